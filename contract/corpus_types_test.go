package contract_test

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/invopop/jsonschema"
)

// The Kubernetes-style types below follow k8s.io/api/apps/v1.Deployment
// and k8s.io/apimachinery's meta/v1 and util/intstr as encoding/json sees
// them (field names, tags, embedding and JSON methods), cut to the fields
// that matter here; the real modules would bring a dozen modules into
// go.mod for a test.

// Time is meta/v1.Time: a time.Time that writes null when zero and an
// RFC 3339 string in seconds otherwise. It declares its schema, since
// MarshalJSON says nothing a reflector can read.
type Time struct {
	time.Time `protobuf:"-"`
}

// MarshalJSON writes null for the zero time, as meta/v1.Time does.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339, s)
	t.Time = p.Local()
	return err
}

// JSONSchema is an RFC 3339 string or null.
func (Time) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string", Format: "date-time"}, {Type: "null"}}}
}

// Quantity is api/resource.Quantity: "500m", "1Gi", written by its own
// MarshalJSON and declared by no schema, so any JSON value.
type Quantity struct {
	s string
}

// MarshalJSON writes the quantity's text.
func (q Quantity) MarshalJSON() ([]byte, error) {
	if q.s == "" {
		return []byte(`"0"`), nil
	}
	return json.Marshal(q.s)
}

// UnmarshalJSON reads a quantity's text.
func (q *Quantity) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &q.s) }

// IntOrString is util/intstr.IntOrString: an integer or a string.
type IntOrString struct {
	Type   int64
	IntVal int32
	StrVal string
}

// MarshalJSON writes the integer or the string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == 1 {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON reads an integer or a string.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.Type = 1
		return json.Unmarshal(b, &v.StrVal)
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	v.Type, v.IntVal = 0, int32(n)
	return err
}

// TypeMeta is meta/v1.TypeMeta, embedded inline in every object.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is meta/v1.ObjectMeta.
type ObjectMeta struct {
	Name              string            `json:"name,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	Generation        int64             `json:"generation,omitempty"`
	CreationTimestamp Time              `json:"creationTimestamp,omitempty"`
	DeletionTimestamp *Time             `json:"deletionTimestamp,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
	OwnerReferences   []OwnerReference  `json:"ownerReferences,omitempty"`
	Finalizers        []string          `json:"finalizers,omitempty"`
}

// OwnerReference is meta/v1.OwnerReference.
type OwnerReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Controller *bool  `json:"controller,omitempty"`
}

// LabelSelector is meta/v1.LabelSelector.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is meta/v1.LabelSelectorRequirement.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// ResourceList is core/v1.ResourceList.
type ResourceList map[string]Quantity

// Container is core/v1.Container, cut.
type Container struct {
	Name      string               `json:"name"`
	Image     string               `json:"image,omitempty"`
	Args      []string             `json:"args,omitempty"`
	Env       []EnvVar             `json:"env,omitempty"`
	Ports     []ContainerPort      `json:"ports,omitempty"`
	Resources ResourceRequirements `json:"resources,omitempty"`
}

// EnvVar is core/v1.EnvVar.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ContainerPort is core/v1.ContainerPort.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

// ResourceRequirements is core/v1.ResourceRequirements.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// PodTemplateSpec is core/v1.PodTemplateSpec.
type PodTemplateSpec struct {
	ObjectMeta `json:"metadata,omitempty"`
	Spec       PodSpec `json:"spec,omitempty"`
}

// PodSpec is core/v1.PodSpec, cut.
type PodSpec struct {
	Containers   []Container       `json:"containers"`
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
}

// Deployment is apps/v1.Deployment.
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       DeploymentSpec   `json:"spec,omitempty"`
	Status     DeploymentStatus `json:"status,omitempty"`
}

// DeploymentSpec is apps/v1.DeploymentSpec, cut.
type DeploymentSpec struct {
	Replicas *int32             `json:"replicas,omitempty"`
	Selector *LabelSelector     `json:"selector"`
	Template PodTemplateSpec    `json:"template"`
	Strategy DeploymentStrategy `json:"strategy,omitempty"`
}

// DeploymentStrategy is apps/v1.DeploymentStrategy.
type DeploymentStrategy struct {
	Type          string                   `json:"type,omitempty"`
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment is apps/v1.RollingUpdateDeployment.
type RollingUpdateDeployment struct {
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	MaxSurge       *IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is apps/v1.DeploymentStatus, cut.
type DeploymentStatus struct {
	ObservedGeneration int64                 `json:"observedGeneration,omitempty"`
	Replicas           int32                 `json:"replicas,omitempty"`
	ReadyReplicas      int32                 `json:"readyReplicas,omitempty"`
	Conditions         []DeploymentCondition `json:"conditions,omitempty"`
}

// DeploymentCondition is apps/v1.DeploymentCondition.
type DeploymentCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastUpdateTime     Time   `json:"lastUpdateTime,omitempty"`
	LastTransitionTime Time   `json:"lastTransitionTime,omitempty"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
}

// The payments-style types follow a Stripe charge as Go clients model it:
// expandable references as any (an id string, or the object once
// expanded), metadata maps, nested lists with paging, amounts in minor
// units and times in Unix seconds.

// Charge is a payment.
type Charge struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	Amount             int64             `json:"amount"`
	AmountRefunded     int64             `json:"amount_refunded"`
	Currency           string            `json:"currency"`
	Created            int64             `json:"created"`
	Livemode           bool              `json:"livemode"`
	Paid               bool              `json:"paid"`
	Status             string            `json:"status"`
	Description        *string           `json:"description"`
	Customer           any               `json:"customer"`
	BalanceTransaction any               `json:"balance_transaction"`
	Invoice            any               `json:"invoice"`
	Metadata           map[string]string `json:"metadata"`
	Outcome            *ChargeOutcome    `json:"outcome"`
	Refunds            *RefundList       `json:"refunds"`
	BillingDetails     BillingDetails    `json:"billing_details"`
	PaymentMethod      map[string]any    `json:"payment_method_details"`
}

// ChargeOutcome is how the payment went.
type ChargeOutcome struct {
	NetworkStatus string  `json:"network_status"`
	RiskLevel     string  `json:"risk_level"`
	RiskScore     *int    `json:"risk_score,omitempty"`
	Rule          any     `json:"rule"`
	SellerMessage *string `json:"seller_message"`
	Type          string  `json:"type"`
}

// RefundList is a page of refunds.
type RefundList struct {
	Object  string    `json:"object"`
	Data    []*Refund `json:"data"`
	HasMore bool      `json:"has_more"`
	URL     string    `json:"url"`
}

// Refund is money given back.
type Refund struct {
	ID       string            `json:"id"`
	Amount   int64             `json:"amount"`
	Charge   any               `json:"charge"`
	Metadata map[string]string `json:"metadata"`
	Reason   *string           `json:"reason"`
}

// BillingDetails are who paid.
type BillingDetails struct {
	Address *Address `json:"address"`
	Email   *string  `json:"email"`
	Name    *string  `json:"name"`
}

// Address is a postal address.
type Address struct {
	City       *string `json:"city"`
	Country    *string `json:"country"`
	Line1      *string `json:"line1"`
	PostalCode *string `json:"postal_code"`
}

// Category is a recursive tree.
type Category struct {
	Name     string      `json:"name"`
	Children []*Category `json:"children"`
	Parent   *Category   `json:"-"`
}

// User is the example: nil slices and pointers.
type User struct {
	ID       int      `json:"id"`
	Tags     []string `json:"tags"`
	Nickname *string  `json:"nickname"`
}
