package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v75/github"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/errname"
	"github.com/codemode-go/codemode/internal/nodetest"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/codemode-go/codemode/typecheck"
)

// corpusValues are a zero and a filled value of each corpus type, by tool
// name suffix. A pointer type's zero is a pointer to a zero value: a nil
// one is not a value the type's schema declares (see NewTool).
func corpusValues() map[string][]any {
	when := time.Date(2026, 11, 3, 9, 30, 0, 0, time.UTC)
	ts := &github.Timestamp{Time: when}
	owner := &github.User{Login: github.Ptr("octocat"), ID: github.Ptr(int64(1)), Type: github.Ptr("User"), SiteAdmin: github.Ptr(false)}
	parent := &github.Repository{ID: github.Ptr(int64(7)), Name: github.Ptr("upstream"), FullName: github.Ptr("octocat/upstream"), Owner: owner, CreatedAt: ts}
	repo := &github.Repository{
		ID: github.Ptr(int64(8)), Name: github.Ptr("fork"), Owner: owner, Parent: parent, Source: parent, Fork: github.Ptr(true),
		Topics: []string{"go", "mcp"}, Permissions: map[string]bool{"admin": true, "pull": true},
		CustomProperties: map[string]any{"team": "tools", "tier": 2.0, "flags": []any{"a", nil}},
		License:          &github.License{Key: github.Ptr("mit"), Name: github.Ptr("MIT License")},
		CreatedAt:        ts, PushedAt: ts, Visibility: github.Ptr("public"), StargazersCount: github.Ptr(42),
	}
	issue := &github.Issue{
		ID: github.Ptr(int64(99)), Number: github.Ptr(12), State: github.Ptr("open"), Title: github.Ptr("Typed tools take real types"),
		Body: github.Ptr("Maps <, >, & and \u2028 survive."), User: owner, Assignees: []*github.User{owner},
		Labels:    []*github.Label{{Name: github.Ptr("bug"), Color: github.Ptr("d73a4a"), Default: github.Ptr(true)}},
		CreatedAt: ts, UpdatedAt: ts, Repository: repo, Milestone: &github.Milestone{Title: github.Ptr("v1"), DueOn: ts, Creator: owner},
		Reactions: &github.Reactions{TotalCount: github.Ptr(3), PlusOne: github.Ptr(2)},
	}
	replicas, yes := int32(3), true
	deployment := &Deployment{
		TypeMeta:   TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: ObjectMeta{Name: "web", Namespace: "prod", CreationTimestamp: Time{when}, Labels: map[string]string{"app": "web"}, OwnerReferences: []OwnerReference{{APIVersion: "v1", Kind: "Owner", Name: "o", Controller: &yes}}},
		Spec: DeploymentSpec{
			Replicas: &replicas, Selector: &LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: PodTemplateSpec{ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: PodSpec{Containers: []Container{{
				Name: "web", Image: "nginx:1.27", Ports: []ContainerPort{{ContainerPort: 80}},
				Resources: ResourceRequirements{Limits: ResourceList{"cpu": Quantity{"500m"}, "memory": Quantity{"1Gi"}}},
			}}}},
			Strategy: DeploymentStrategy{Type: "RollingUpdate", RollingUpdate: &RollingUpdateDeployment{MaxSurge: &IntOrString{Type: 1, StrVal: "25%"}, MaxUnavailable: &IntOrString{IntVal: 1}}},
		},
		Status: DeploymentStatus{Replicas: 3, ReadyReplicas: 2, Conditions: []DeploymentCondition{{Type: "Available", Status: "True", LastTransitionTime: Time{when}}}},
	}
	note := "Order 1234"
	charge := &Charge{
		ID: "ch_1", Object: "charge", Amount: 1999, Currency: "eur", Created: when.Unix(), Paid: true, Status: "succeeded", Description: &note,
		Customer: map[string]any{"id": "cus_1", "object": "customer", "email": nil}, BalanceTransaction: "txn_1",
		Metadata: map[string]string{"order": "1234"}, Outcome: &ChargeOutcome{NetworkStatus: "approved_by_network", RiskLevel: "normal", Type: "authorized"},
		Refunds:       &RefundList{Object: "list", Data: []*Refund{{ID: "re_1", Amount: 500, Charge: "ch_1"}}, URL: "/v1/charges/ch_1/refunds"},
		PaymentMethod: map[string]any{"card": map[string]any{"brand": "visa", "last4": "4242"}},
	}
	nick := "nick"
	return map[string][]any{
		"Issue":      {&github.Issue{}, issue},
		"Repository": {&github.Repository{}, repo},
		"Issues":     {[]*github.Issue(nil), []*github.Issue{issue, {}}},
		"Deployment": {&Deployment{}, deployment},
		"Charge":     {&Charge{}, charge},
		"Counts":     {map[string]int(nil), map[string]int{"go": 3, "ts": 1}},
		"Anything":   {nil, map[string]any{"a": []any{1.0, "b", nil}}},
		"Category":   {&Category{}, &Category{Name: "root", Children: []*Category{{Name: "a", Children: []*Category{{Name: "a1"}}}, {Name: "b"}}}},
		"User":       {User{}, User{ID: 7, Tags: []string{"x"}, Nickname: &nick}},
	}
}

// recorder keeps what the put tools decoded, to compare with what was
// sent.
type recorder struct {
	mu   sync.Mutex
	diff []string
}

// corpusTools are, for each corpus type T, getT({index}) returning the
// value and putT({index, value}) that decodes the value the program sends
// back and reports whether Go encodes it as getT sent the original.
func corpusTools[T any](t *testing.T, name string, values []any, rec *recorder) []*contract.Tool {
	t.Helper()
	type putIn struct {
		Index int `json:"index"`
		Value T   `json:"value"`
	}
	type index struct {
		Index int `json:"index"`
	}
	get, err := contract.NewTool("get"+name, "Returns the "+name+" value at index.", func(ctx context.Context, in index) (T, error) {
		v, _ := values[in.Index].(T)
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	put, err := contract.NewTool("put"+name, "Takes a "+name+" back.", func(ctx context.Context, in putIn) (bool, error) {
		// What get sent (nil slices as []) is what Go encodes of the
		// value it decoded from the program's copy.
		want, err := get.Call(ctx, json.RawMessage(fmt.Sprintf(`{"index":%d}`, in.Index)))
		if err != nil {
			return false, err
		}
		got, _ := json.Marshal(in.Value)
		same := bytes.Equal(want, got)
		if !same {
			rec.mu.Lock()
			rec.diff = append(rec.diff, fmt.Sprintf("%s[%d]: sent back as %s, was %s", name, in.Index, got, want))
			rec.mu.Unlock()
		}
		return same, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return []*contract.Tool{get, put}
}

func corpusContract(t *testing.T, rec *recorder) *contract.Contract {
	t.Helper()
	v := corpusValues()
	var tools []*contract.Tool
	tools = append(tools, corpusTools[*github.Issue](t, "Issue", v["Issue"], rec)...)
	tools = append(tools, corpusTools[*github.Repository](t, "Repository", v["Repository"], rec)...)
	tools = append(tools, corpusTools[[]*github.Issue](t, "Issues", v["Issues"], rec)...)
	tools = append(tools, corpusTools[*Deployment](t, "Deployment", v["Deployment"], rec)...)
	tools = append(tools, corpusTools[*Charge](t, "Charge", v["Charge"], rec)...)
	tools = append(tools, corpusTools[map[string]int](t, "Counts", v["Counts"], rec)...)
	tools = append(tools, corpusTools[any](t, "Anything", v["Anything"], rec)...)
	tools = append(tools, corpusTools[*Category](t, "Category", v["Category"], rec)...)
	tools = append(tools, corpusTools[User](t, "User", v["User"], rec)...)
	c, err := contract.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCorpusMatchesGoldens pins the declarations and the schemas of real
// Go types: go-github's Issue and Repository (recursive, pointers
// everywhere, maps, Timestamp), a Kubernetes Deployment (embedded inline
// metadata, label maps, times that write null, quantities), a payments
// charge (expandable any fields, metadata maps), and the issue's map, any,
// tree and nil-slice cases.
func TestCorpusMatchesGoldens(t *testing.T) {
	c := corpusContract(t, &recorder{})
	golden(t, filepath.Join("testdata", "corpus", "corpus.d.ts"), c.TypeDefinitions())
	for _, tool := range c.Tools() {
		if !strings.HasPrefix(tool.Name(), "get") {
			continue
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, tool.OutputSchema().JSON(), "", "  "); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("testdata", "corpus", tool.Name()+".output.json"), pretty.String()+"\n")
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./contract -run TestCorpusMatchesGoldens -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test ./contract -run TestCorpusMatchesGoldens -update to accept)\n--- got ---\n%.3000s", path, got)
	}
}

// corpusProgram reads every corpus value, uses its declared fields, and
// sends it back; it returns the put tools' verdicts.
const corpusProgram = `
const verdicts: string[] = [];
const seen: string[] = [];
for (const index of [0, 1]) {
  const issue = (await codemode.getIssue({ index }))!;
  seen.push(issue.title ?? "", issue.user?.login ?? "", String(issue.labels?.map((l) => l.name).join("+")), issue.created_at ?? "");
  seen.push(String(issue.repository?.parent?.owner?.login), Object.keys(issue.repository?.custom_properties ?? {}).join("+"));
  verdicts.push(String(await codemode.putIssue({ index, value: issue })));
  const repo = (await codemode.getRepository({ index }))!;
  seen.push(String(repo.permissions?.["admin"]), String(repo.source?.full_name));
  verdicts.push(String(await codemode.putRepository({ index, value: repo })));
  const issues = await codemode.getIssues({ index });
  seen.push(String(issues.length));
  verdicts.push(String(await codemode.putIssues({ index, value: issues })));
  const d = (await codemode.getDeployment({ index }))!;
  seen.push(d.metadata.creationTimestamp ?? "never", d.metadata.labels?.["app"] ?? "", String(d.spec.replicas), String(d.spec.template.spec.containers.length));
  verdicts.push(String(await codemode.putDeployment({ index, value: d })));
  const charge = (await codemode.getCharge({ index }))!;
  const customer = charge.customer;
  seen.push(typeof customer === "string" ? customer : JSON.stringify(customer), String(charge.refunds?.data[0]?.amount), charge.description ?? "");
  verdicts.push(String(await codemode.putCharge({ index, value: charge })));
  const counts = await codemode.getCounts({ index });
  seen.push(Object.entries(counts).map(([k, n]) => k + n).join(","));
  verdicts.push(String(await codemode.putCounts({ index, value: counts })));
  const anything = await codemode.getAnything({ index });
  verdicts.push(String(await codemode.putAnything({ index, value: anything })));
  const tree = (await codemode.getCategory({ index }))!;
  const names = (c: CodemodeTypes.Category): string[] => [c.name, ...c.children.flatMap(names)];
  seen.push(names(tree).join("/"));
  verdicts.push(String(await codemode.putCategory({ index, value: tree })));
  const user = await codemode.getUser({ index });
  seen.push(user.tags.join("+"), user.nickname ?? "none");
  verdicts.push(String(await codemode.putUser({ index, value: user })));
}
console.log(seen.join("|"));
return verdicts.join(",");
`

// TestCorpusRoundTripsOnQuickJSAndNode: a program that the TypeScript
// checker accepts against the corpus declarations reads every value (zero
// and filled), uses its fields, and sends it back; validation passes both
// ways and Go decodes what it sent, on QuickJS and on Node.js.
func TestCorpusRoundTripsOnQuickJSAndNode(t *testing.T) {
	rec := &recorder{}
	c := corpusContract(t, rec)
	checker, err := typecheck.New(typecheck.Options{})
	switch {
	case errors.Is(err, typecheck.ErrNotInstalled) && os.Getenv("CODEMODE_REQUIRE_TSC") == "":
		t.Log("no TypeScript checker: the program runs unchecked")
	case err != nil:
		t.Fatal(err)
	default:
		defer checker.Close()
	}
	drivers := map[string]func() (*client.Runtime, error){
		"quickjs": func() (*client.Runtime, error) {
			return client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{Timeout: 20 * time.Second}))
		},
		"node": func() (*client.Runtime, error) {
			path := nodetest.Path()
			if path == "" {
				return nil, errors.New("no Node.js")
			}
			return client.NewRuntime(context.Background(), node.New(node.Options{NodePath: path}))
		},
	}
	for _, name := range []string{"quickjs", "node"} {
		t.Run(name, func(t *testing.T) {
			rt, err := drivers[name]()
			if err != nil {
				if name == "node" && os.Getenv("CODEMODE_REQUIRE_NODE") == "" {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			defer rt.Close()
			cl := client.New(rt, c)
			if checker != nil {
				res, err := cl.ValidateCode(context.Background(), checker, corpusProgram)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Valid {
					t.Fatalf("the program does not check against the corpus declarations:\n%s", res.Report)
				}
				// A property a named input type lacks is still caught on a
				// variable, not only on a literal.
				extra := "const u = await codemode.getUser({ index: 0 });\nconst v = { ...u, extra: 1 };\nawait codemode.putUser({ index: 0, value: v });"
				res, err = cl.ValidateCode(context.Background(), checker, extra)
				if err != nil {
					t.Fatal(err)
				}
				if res.Valid || !strings.Contains(res.Report, "input.value.extra") {
					t.Errorf("an extra property in a named input type: valid=%v\n%s", res.Valid, res.Report)
				}
			}
			out, err := cl.RunCode(context.Background(), corpusProgram, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out.Error != nil {
				t.Fatalf("program failed: %s: %s", out.Error.Name, out.Error.Message)
			}
			want := strings.TrimSuffix(strings.Repeat("true,", 18), ",")
			if got, _ := out.ValueText(); got != want {
				t.Errorf("verdicts = %s, want %s; differences: %q", got, want, rec.diff)
			}
		})
	}
}

// TestCorpusDescribesWithinBudget: the largest declaration, a repository
// that reaches dozens of named types, is described within the describe
// budget, farthest types listed by name.
func TestCorpusDescribesWithinBudget(t *testing.T) {
	c := corpusContract(t, &recorder{})
	d, err := c.Namespaces()[0].Describer()
	if err != nil {
		t.Fatal(err)
	}
	full, err := c.NamespaceDeclarations(contract.DefaultNamespace, "getRepository")
	if err != nil {
		t.Fatal(err)
	}
	text, err := d.Tool("getRepository", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= typegen.DefaultDescribeChars || len(text) > typegen.DefaultDescribeChars {
		t.Errorf("full declarations %d characters, described in %d; want more than %d cut to at most it", len(full), len(text), typegen.DefaultDescribeChars)
	}
	if !strings.Contains(text, "getRepository(input: {") || !strings.Contains(text, "// Not shown: CodemodeTypes.") {
		t.Errorf("describe answer:\n%s", text)
	}
	if n := strings.Count(full, "  interface Repository {"); n != 1 {
		t.Errorf("Repository declared %d times, want once", n)
	}
}

// TestHandlerBugReachesTheEmbedder: a handler returning a value its own
// type's schema refuses (here a nil pointer as a slice element) fails the
// call in the program, and the embedder's telemetry gets the failure with
// its JSON pointer and the note that it is the tool's.
func TestHandlerBugReachesTheEmbedder(t *testing.T) {
	find, err := contract.NewTool("findUser", "Finds a user.", func(ctx context.Context, in struct{}) ([]*User, error) { return []*User{nil}, nil })
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.New(find)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), quickjs.New(quickjs.Options{Timeout: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var mu sync.Mutex
	var failed []error
	out, err := client.New(rt, c).RunCode(context.Background(), `try { await codemode.findUser({}); return "no error"; } catch (e) { return e.name; }`, client.RunOptions{
		OnTelemetry: func(e client.Event) {
			if e.Kind == client.EventToolCallFailed {
				mu.Lock()
				failed = append(failed, e.Err)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := out.ValueText(); got != string(errname.ToolValidation) {
		t.Errorf("the program saw %q, want %s", got, errname.ToolValidation)
	}
	var tv *contract.ValidationError
	if len(failed) != 1 || !errors.As(failed[0], &tv) || tv.Phase != "output" || len(tv.Lines) != 1 || !strings.HasPrefix(tv.Lines[0], "/0: got null, want object; the tool's Go value here is a nil pointer") {
		t.Errorf("telemetry got %v, want one output ToolValidationError at /0", failed)
	}
}
