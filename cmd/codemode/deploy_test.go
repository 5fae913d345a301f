package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// manifests are deploy/'s objects, decoded strictly into the Kubernetes
// API types (an unknown or misspelt field is an error).
type manifests struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	configMaps  map[string]*corev1.ConfigMap
	secrets     map[string]*corev1.Secret // from secrets.example.yaml
}

// loadManifests decodes the files kustomization.yaml lists and the
// example Secrets.
func loadManifests(t *testing.T) *manifests {
	t.Helper()
	dir := filepath.Join("..", "..", "deploy")
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string              `json:"apiVersion"`
		Kind       string              `json:"kind"`
		Labels     []map[string]any    `json:"labels"`
		Resources  []string            `json:"resources"`
		Images     []map[string]string `json:"images"`
	}
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range all {
		name := filepath.Base(f)
		if name != "kustomization.yaml" && name != "secrets.example.yaml" && !slices.Contains(k.Resources, name) {
			t.Errorf("%s is not in kustomization.yaml's resources", name)
		}
	}
	m := &manifests{configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	for _, f := range append(k.Resources, "secrets.example.yaml") {
		raw, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(raw), -1) {
			if err := m.decode([]byte(doc)); err != nil {
				t.Errorf("%s, document %d: %v", f, i+1, err)
			}
		}
	}
	return m
}

// decode decodes one YAML document by its kind.
func (m *manifests) decode(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	var obj any
	switch tm.Kind {
	case "Deployment":
		d := &appsv1.Deployment{}
		m.deployments, obj = append(m.deployments, d), d
	case "Service":
		s := &corev1.Service{}
		m.services, obj = append(m.services, s), s
	case "PodDisruptionBudget":
		p := &policyv1.PodDisruptionBudget{}
		m.pdbs, obj = append(m.pdbs, p), p
	case "ConfigMap":
		obj = &corev1.ConfigMap{}
	case "Secret":
		obj = &corev1.Secret{}
	default:
		return &unknownKind{tm.Kind}
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return err
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		m.configMaps[o.Name] = o
	case *corev1.Secret:
		m.secrets[o.Name] = o
	}
	return nil
}

type unknownKind struct{ kind string }

func (e *unknownKind) Error() string { return "no API type for kind " + strconv.Quote(e.kind) }

// TestManifests checks deploy/ against the real API types and this CLI:
// every container's flags are flags of its command, its probes ask the
// --admin port for /readyz and /healthz, the Secrets, ConfigMaps and
// variables it names exist, and every Service and PodDisruptionBudget
// selects a Deployment's pods.
func TestManifests(t *testing.T) {
	m := loadManifests(t)
	if len(m.deployments) != 3 {
		t.Errorf("%d Deployments, want runner hosts, MCP replicas and the journal page", len(m.deployments))
	}
	for _, d := range m.deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			t.Run(d.Name+"/"+c.Name, func(t *testing.T) {
				checkFlags(t, c.Args)
				checkProbes(t, c)
				checkReferences(t, m, c, d.Spec.Template.Spec.Volumes)
			})
		}
		if sc := d.Spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Errorf("%s: the pod does not require a non-root user", d.Name)
		}
	}
	for _, s := range m.services {
		d := m.selected(t, s.Name, &metav1.LabelSelector{MatchLabels: s.Spec.Selector})
		for _, p := range s.Spec.Ports {
			if d != nil && !hasPort(d.Spec.Template.Spec.Containers, p.TargetPort.String()) {
				t.Errorf("Service %s: target port %s is no container port of %s", s.Name, p.TargetPort.String(), d.Name)
			}
		}
	}
	for _, p := range m.pdbs {
		d := m.selected(t, p.Name, p.Spec.Selector)
		if d != nil && (d.Spec.Replicas == nil || *d.Spec.Replicas < 2) {
			t.Errorf("PodDisruptionBudget %s covers %s, which has fewer than two replicas", p.Name, d.Name)
		}
	}
}

// checkFlags runs the container's command with --help and checks that
// each of its --flags is among the flags printed.
func checkFlags(t *testing.T, args []string) {
	words := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") })
	if words < 1 {
		t.Fatalf("args %v name no command", args)
	}
	var out, errb bytes.Buffer
	if status := cli(context.Background(), append(slices.Clone(args[:words]), "--help"), &out, &errb); status != 0 {
		t.Fatalf("codemode %s --help: status %d\n%s", strings.Join(args[:words], " "), status, errb.String())
	}
	known := map[string]bool{}
	for _, f := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		known[f[1]] = true
	}
	for _, a := range args[words:] {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !known[name] {
			t.Errorf("%s: codemode %s has no such flag", a, strings.Join(args[:words], " "))
		}
	}
}

// checkProbes checks that the readiness and liveness probes ask the
// container's --admin port.
func checkProbes(t *testing.T, c corev1.Container) {
	admin := ""
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--admin="); ok {
			_, admin, _ = strings.Cut(v, ":")
		}
	}
	if admin == "" {
		t.Fatal("no --admin=HOST:PORT: nothing serves the probes")
	}
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{c.ReadinessProbe, "/readyz"}, {c.LivenessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("no HTTP probe for %s", p.path)
			continue
		}
		port := p.probe.HTTPGet.Port.String()
		for _, cp := range c.Ports {
			if cp.Name == port {
				port = strconv.Itoa(int(cp.ContainerPort))
			}
		}
		if p.probe.HTTPGet.Path != p.path || port != admin {
			t.Errorf("the probe asks port %s for %s; want the --admin port %s for %s", port, p.probe.HTTPGet.Path, admin, p.path)
		}
	}
}

// checkReferences checks that the Secrets, ConfigMaps, volumes and
// variables the container names exist.
func checkReferences(t *testing.T, m *manifests, c corev1.Container, volumes []corev1.Volume) {
	env := map[string]bool{}
	for _, e := range c.Env {
		env[e.Name] = true
		if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil {
			s := m.secrets[ref.SecretKeyRef.Name]
			if s == nil || s.StringData[ref.SecretKeyRef.Key] == "" {
				t.Errorf("$%s: secrets.example.yaml has no Secret %s with key %s", e.Name, ref.SecretKeyRef.Name, ref.SecretKeyRef.Key)
			}
		}
	}
	for _, a := range c.Args {
		for _, v := range regexp.MustCompile(`\$\(([A-Z_]+)\)`).FindAllStringSubmatch(a, -1) {
			if !env[v[1]] {
				t.Errorf("%s names $(%s), which the container does not define", a, v[1])
			}
		}
	}
	for _, vm := range c.VolumeMounts {
		i := slices.IndexFunc(volumes, func(v corev1.Volume) bool { return v.Name == vm.Name })
		if i < 0 {
			t.Errorf("volume mount %s: no such volume", vm.Name)
			continue
		}
		if cm := volumes[i].ConfigMap; cm != nil && m.configMaps[cm.Name] == nil {
			t.Errorf("volume %s: no ConfigMap %s", vm.Name, cm.Name)
		}
	}
}

// selected returns the one Deployment whose pods sel selects.
func (m *manifests) selected(t *testing.T, name string, sel *metav1.LabelSelector) *appsv1.Deployment {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil
	}
	var found []*appsv1.Deployment
	for _, d := range m.deployments {
		if !s.Empty() && s.Matches(labels.Set(d.Spec.Template.Labels)) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Errorf("%s selects the pods of %d Deployments, want 1", name, len(found))
		return nil
	}
	return found[0]
}

// hasPort reports whether a container has a port of that name or number.
func hasPort(cs []corev1.Container, port string) bool {
	for _, c := range cs {
		for _, p := range c.Ports {
			if p.Name == port || strconv.Itoa(int(p.ContainerPort)) == port {
				return true
			}
		}
	}
	return false
}
