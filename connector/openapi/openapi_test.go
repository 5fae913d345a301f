package openapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/codemode-go/codemode/internal/typescript"
	"github.com/codemode-go/codemode/typecheck"
)

// examplesDir is @readme/oas-examples, installed by scripts/test.
func examplesDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", ".tools", "node_modules", "@readme", "oas-examples"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CODEMODE_REQUIRE_OAS_EXAMPLES") != "" {
			t.Fatalf("@readme/oas-examples not found at %s and CODEMODE_REQUIRE_OAS_EXAMPLES is set", dir)
		}
		t.Skipf("@readme/oas-examples not found at %s (run scripts/test, which installs it)", dir)
	}
	return dir
}

// recorded is one request the test server saw.
type recorded struct {
	Method, Path, RawPath, Query string
	Header                       http.Header
	Body                         string
}

// apiServer is a local HTTP server that records every request and answers
// with reply (status, content type, body) chosen by path.
type apiServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []recorded
}

func newAPIServer(t *testing.T, reply func(r *http.Request) (int, string, string)) *apiServer {
	s := &apiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.seen = append(s.seen, recorded{Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		s.mu.Unlock()
		status, ct, out := reply(r)
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(status)
		io.WriteString(w, out)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *apiServer) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// load parses an example document against the server.
func load(t *testing.T, file, name, baseURL string) *openapi.Connector {
	t.Helper()
	c, warnings, err := openapi.Load(context.Background(), filepath.Join(examplesDir(t), file), openapi.Options{
		Name: name, BaseURL: baseURL,
		Headers: http.Header{"Authorization": {"Bearer host-secret"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Log(w)
	}
	return c
}

// runCode runs code against the connectors' namespaces on real QuickJS.
func runCode(t *testing.T, code string, cs ...*openapi.Connector) *client.Outcome {
	t.Helper()
	k := contractOf(t, cs...)
	ctx := context.Background()
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	// The test stands for the person: every unsafe request is approved.
	approve := func(context.Context, client.ToolCall) error { return nil }
	out, err := client.New(rt, k).RunCode(ctx, code, client.RunOptions{Approve: approve})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func contractOf(t *testing.T, cs ...*openapi.Connector) *contract.Contract {
	t.Helper()
	var nss []contract.Namespace
	for _, c := range cs {
		ns, err := c.Namespace()
		if err != nil {
			t.Fatal(err)
		}
		nss = append(nss, ns)
	}
	k, err := contract.NewNamespaced(nss...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// value decodes the program's value.
func value(t *testing.T, out *client.Outcome, v any) {
	t.Helper()
	if out.Kind != client.Success {
		t.Fatalf("program failed: %+v", out.Error)
	}
	if err := json.Unmarshal(out.Value, v); err != nil {
		t.Fatalf("%v: %s", err, out.Value)
	}
}

// TestPetstoreEndToEnd calls the petstore through a program: path, query,
// header parameters and JSON bodies reach the server as the document says,
// with the host's credentials; a 404 is an HTTPError (its body without the
// trailing newline, in the message too); a bad parameter is a
// ToolValidationError that sends nothing.
func TestPetstoreEndToEnd(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) {
		switch {
		case r.Method == "DELETE":
			return 204, "", ""
		case r.URL.Path == "/v3/pet/7":
			return 200, "application/json", `{"id":7,"name":"Rex","photoUrls":[],"status":"available"}`
		case r.URL.Path == "/v3/store/order/9":
			return 404, "application/json", "{\"message\":\"Order not found\"}\r\n" // a trailing newline, as most servers write
		case r.URL.Path == "/v3/user/logout":
			return 200, "text/plain", "bye"
		}
		return 200, "application/json", `[{"id":1,"name":"a","photoUrls":[]}]`
	})
	c := load(t, "3.0/json/petstore.json", "petstore", srv.URL+"/v3")
	out := runCode(t, `
const pet = await petstore.getPetById({ petId: 7 });
const found = await petstore.findPetsByStatus({ status: ["sold", "pending"] });
const tagged = await petstore.findPetsByTags({ tags: ["a b", "c/d"] });
await petstore.addPet({ body: { name: "Rex", photoUrls: ["u"], tags: [{ id: 1, name: "good" }] } });
const gone = await petstore.deletePet({ petId: 7, api_key: "k1" });
const bye = await petstore.logoutUser();
let notFound;
try { await petstore.getOrderById({ orderId: 9 }); } catch (e) { notFound = { name: e.name, message: e.message, status: e.status, method: e.method, path: e.path, body: e.body, isClass: e instanceof HTTPError && e instanceof Error, keys: Object.keys(e).join() }; }
let invalid;
try { await petstore.getPetById({ petId: "seven" } as any); } catch (e) { invalid = { name: e.name, message: e.message }; }
const raw = await petstore.request({ path: "/store/inventory", params: { a: 1, b: [true, "x"] }, headers: { "X-Trace": "t1", Authorization: "mine" } });
({ pet, found, tagged, gone, bye, notFound, invalid, raw })
`, c)
	var v struct {
		Pet      struct{ Name string }
		Found    []any
		Gone     any
		Bye      string
		NotFound struct {
			Name, Message, Method, Path, Body, Keys string
			Status                                  int
			IsClass                                 bool
		}
		Invalid struct{ Name, Message string }
	}
	value(t, out, &v)
	if v.Pet.Name != "Rex" || len(v.Found) != 1 || v.Gone != nil || v.Bye != "bye" {
		t.Errorf("values: %+v", v)
	}
	if v.NotFound.Name != "HTTPError" || !strings.Contains(v.NotFound.Message, "HTTP 404 Not Found: GET /store/order/9") || !strings.HasSuffix(v.NotFound.Message, `: {"message":"Order not found"}`) {
		t.Errorf("404: %+v", v.NotFound)
	}
	if nf := v.NotFound; nf.Status != 404 || nf.Method != "GET" || nf.Path != "/store/order/9" || nf.Body != `{"message":"Order not found"}` ||
		!nf.IsClass || nf.Keys != "body,method,path,status" {
		t.Errorf("404's properties: %+v", nf)
	}
	if v.Invalid.Name != "ToolValidationError" || !strings.Contains(v.Invalid.Message, "/petId") {
		t.Errorf("invalid parameter: %+v", v.Invalid)
	}
	want := []struct{ method, rawPath, query, body string }{
		{"GET", "/v3/pet/7", "", ""},
		{"GET", "/v3/pet/findByStatus", "status=sold&status=pending", ""},
		{"GET", "/v3/pet/findByTags", "tags=a%20b&tags=c%2Fd", ""},
		{"POST", "/v3/pet", "", `{"name":"Rex","photoUrls":["u"],"tags":[{"id":1,"name":"good"}]}`},
		{"DELETE", "/v3/pet/7", "", ""},
		{"GET", "/v3/user/logout", "", ""},
		{"GET", "/v3/store/order/9", "", ""},
		{"GET", "/v3/store/inventory", "a=1&b=true&b=x", ""},
	}
	got := srv.requests()
	if len(got) != len(want) {
		t.Fatalf("server saw %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Method != w.method || g.RawPath != w.rawPath || g.Query != w.query || g.Body != w.body {
			t.Errorf("request %d: %s %s ?%s %s, want %s %s ?%s %s", i, g.Method, g.RawPath, g.Query, g.Body, w.method, w.rawPath, w.query, w.body)
		}
		if a := g.Header.Get("Authorization"); a != "Bearer host-secret" {
			t.Errorf("request %d: Authorization %q, want the host's credentials", i, a)
		}
	}
	if got[3].Header.Get("Content-Type") != "application/json" {
		t.Errorf("addPet Content-Type %q", got[3].Header.Get("Content-Type"))
	}
	if got[4].Header.Get("api_key") != "k1" {
		t.Errorf("deletePet api_key header %q", got[4].Header.Get("api_key"))
	}
	if got[7].Header.Get("X-Trace") != "t1" {
		t.Errorf("request header X-Trace %q", got[7].Header.Get("X-Trace"))
	}
	if strings.Contains(fmt.Sprint(out.Content), "host-secret") {
		t.Error("the program saw the host's credentials")
	}
}

// TestParameterStyles sends the parameters-style document's path, query and
// header styles and checks the wire form (OpenAPI 3.1 §4.8.12.4).
func TestParameterStyles(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) { return 200, "application/json", `{}` })
	c := load(t, "3.0/json/parameters-style.json", "styles", srv.URL)
	args := `{ primitive: "p", array: ["a", "b"], object: { x: "1", y: "2" } }`
	calls := []struct {
		call           string
		rawPath, query string
		header         map[string]string
	}{
		{"paths_standard(" + args + ")", "/anything/path/p/a,b/x,1,y,2", "", nil},
		{"paths_matrix_nonExploded(" + args + ")", "/anything/path/matrix/;primitive=p/;array=a,b/;object=x,1,y,2", "", nil},
		{"paths_matrix_exploded(" + args + ")", "/anything/path/matrix/;primitive=p/;array=a;array=b/;x=1;y=2", "", nil},
		{"paths_label_nonExploded(" + args + ")", "/anything/path/label/.p/.a,b/.x,1,y,2", "", nil},
		{"paths_label_exploded(" + args + ")", "/anything/path/label/.p/.a.b/.x=1.y=2", "", nil},
		{"paths_simple_exploded(" + args + ")", "/anything/path/simple/p/a,b/x=1,y=2", "", nil},
		{"query_standard(" + args + ")", "/anything/query", "primitive=p&array=a&array=b&x=1&y=2", nil},
		{"query_form_nonExploded(" + args + ")", "/anything/query/form", "primitive=p&array=a,b&object=x,1,y,2", nil},
		{`query_spaceDelimited_nonExploded({ array: ["a", "b"] })`, "/anything/query/spaceDelimited", "array=a%20b", nil},
		{`query_pipeDelimited_nonExploded({ array: ["a", "b"] })`, "/anything/query/pipeDelimited", "array=a|b", nil},
		{`query_deepObject_nonExploded({ object: { x: "1", y: "2" } })`, "/anything/query/deepObject", "object%5Bx%5D=1&object%5By%5D=2", nil},
		{"headers_simple_nonExploded(" + args + ")", "/anything/headers/simple", "", map[string]string{"primitive": "p", "array": "a,b", "object": "x,1,y,2"}},
		{"headers_simple_exploded(" + args + ")", "/anything/headers/simple", "", map[string]string{"primitive": "p", "array": "a,b", "object": "x=1,y=2"}},
	}
	var code strings.Builder
	for _, c := range calls {
		code.WriteString("await styles." + c.call + ";\n")
	}
	code.WriteString("0\n")
	out := runCode(t, code.String(), c)
	if out.Kind != client.Success {
		t.Fatalf("program failed: %+v", out.Error)
	}
	got := srv.requests()
	if len(got) != len(calls) {
		t.Fatalf("server saw %d requests, want %d", len(got), len(calls))
	}
	for i, w := range calls {
		g := got[i]
		if g.RawPath != w.rawPath || g.Query != w.query {
			t.Errorf("%s: sent %s ?%s, want %s ?%s", w.call, g.RawPath, g.Query, w.rawPath, w.query)
		}
		for k, v := range w.header {
			if g.Header.Get(k) != v {
				t.Errorf("%s: header %s %q, want %q", w.call, k, g.Header.Get(k), v)
			}
		}
	}
}

// TestBodiesOfCircularAndPolymorphicDocuments sends JSON bodies whose
// schemas are recursive, discriminated or polymorphic, and checks that the
// server receives them as written.
func TestBodiesOfCircularAndPolymorphicDocuments(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) { return 200, "application/json", `{"ok":true}` })
	circular := load(t, "3.0/json/circular-request-bodies.json", "circular", srv.URL)
	disc := load(t, "3.0/json/discriminators.json", "disc", srv.URL)
	poly := load(t, "3.0/json/polymorphism.json", "poly", srv.URL)
	k := contractOf(t, circular, disc, poly)
	for _, ns := range k.Namespaces() {
		t.Logf("%s: %d tools", ns.Name, len(ns.Tools))
	}
	out := runCode(t, `
const a = await poly.post_anything_one_of_object({ body: { string: "s", number: 1 } as any });
const b = await poly.post_anything_any_of_primitive({ body: "text" as any });
const c = await disc.oneOfWithTopLevelDiscriminatorAndMapping({ body: { discrim: "Option One", optionone: 1 } });
({ a, b, c })
`, circular, disc, poly)
	var v map[string]map[string]bool
	value(t, out, &v)
	if !v["a"]["ok"] || !v["c"]["ok"] {
		t.Errorf("values %v", v)
	}
	got := srv.requests()
	want := []struct{ method, path, body string }{
		{"POST", "/anything/one-of-object", `{"number":1,"string":"s"}`},
		{"POST", "/anything/any-of-primitive", `"text"`},
		{"PATCH", "/discriminator-with-mapping", `{"discrim":"Option One","optionone":1}`},
	}
	if len(got) != len(want) {
		t.Fatalf("server saw %d requests, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Method != w.method || got[i].Path != w.path || got[i].Body != w.body {
			t.Errorf("request %d: %s %s %s, want %s %s %s", i, got[i].Method, got[i].Path, got[i].Body, w.method, w.path, w.body)
		}
	}
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9]+`)

// TestEveryExampleDocumentDeclaresAndTypeChecks loads every document of
// @readme/oas-examples (Swagger 2.0, OpenAPI 3.0 and 3.1), declares them all
// as namespaces of one contract, and compiles the declarations with the
// real TypeScript compiler beside a program that calls a method of each.
func TestEveryExampleDocumentDeclaresAndTypeChecks(t *testing.T) {
	dir := examplesDir(t)
	var files []string
	for _, v := range []string{"2.0", "3.0", "3.1"} {
		m, _ := filepath.Glob(filepath.Join(dir, v, "json", "*.json"))
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("found %d example documents, want at least 50", len(files))
	}
	var nss []contract.Namespace
	var program strings.Builder
	program.WriteString("export default async (scope: AgentProgramScope) => {\n")
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		name := "d" + notIdent.ReplaceAllString(strings.TrimSuffix(rel, ".json"), "_")
		c, _, err := openapi.Load(context.Background(), f, openapi.Options{Name: name, BaseURL: "http://127.0.0.1:9/"})
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		ns, err := c.Namespace()
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if len(ns.Tools) < 1 {
			t.Errorf("%s: no methods, want at least request", rel)
		}
		// Each namespace alone builds a contract (its declarations print).
		if _, err := contract.NewNamespaced(ns); err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		// Every method describes within the bound, or as the method alone
		// when that is over it.
		d, err := ns.Describer()
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		for _, tool := range ns.Tools {
			text, err := d.Tool(tool.Name(), 0)
			if err != nil {
				t.Errorf("%s: describe %s: %v", rel, tool.Name(), err)
				continue
			}
			if !strings.Contains(text, "  "+tool.Name()+"(") || len(text) > typegen.DefaultDescribeChars && strings.Contains(text, "declare namespace") {
				t.Errorf("%s: describe %s: %d characters:\n%s", rel, tool.Name(), len(text), text)
			}
		}
		nss = append(nss, ns)
		fmt.Fprintf(&program, "  await scope.%s.request({ path: \"/\" });\n", name)
	}
	program.WriteString("};\n")
	k, err := contract.NewNamespaced(nss...)
	if err != nil {
		t.Fatal(err)
	}
	checker, err := typecheck.New(typecheck.Options{})
	if errors.Is(err, typescript.ErrNotInstalled) && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer checker.Close()
	res, err := checker.Check(context.Background(), []typecheck.File{{Name: "codemode.d.ts", Text: k.TypeDefinitions()}}, program.String())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("program does not check:\n%s", res.Report)
	}
	compileDeclarations(t, k.TypeDefinitions())
}

// compileDeclarations compiles declarations alone with tsc in strict mode,
// so that an error inside them (which a program check may not report)
// fails the test.
func compileDeclarations(t *testing.T, decls string) {
	t.Helper()
	tsc, err := typescript.Find(".")
	if err != nil && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "surface.d.ts"), []byte(decls), 0o644)
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(`{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2023","lib":["es2023"],"types":[]},"files":["surface.d.ts"]}`), 0o644)
	if out, err := exec.Command(tsc, "-p", dir).CombinedOutput(); err != nil {
		t.Fatalf("tsc rejects the declarations (%v):\n%s", err, out)
	}
}

// TestProgramsAreCheckedAgainstTheDocument: the checker rejects a call
// with a wrong parameter type or a missing required body field, and
// accepts a correct one, using the named component types.
func TestProgramsAreCheckedAgainstTheDocument(t *testing.T) {
	c := load(t, "3.0/json/petstore.json", "petstore", "http://127.0.0.1:9/v3")
	k := contractOf(t, c)
	decls := k.TypeDefinitions()
	if ro := k.Tool("petstore", "getPetById").Annotations().ReadOnly; ro == nil || !*ro {
		t.Error("getPetById is not annotated read-only")
	}
	if ro := k.Tool("petstore", "addPet").Annotations().ReadOnly; ro != nil {
		t.Error("addPet is annotated read-only")
	}
	for _, want := range []string{"declare namespace PetstoreTypes {", "interface Pet {", "getPetById(input: {", "): Promise<PetstoreTypes.Pet>;"} {
		if !strings.Contains(decls, want) {
			t.Errorf("declarations lack %q", want)
		}
	}
	checker, err := typecheck.New(typecheck.Options{})
	if errors.Is(err, typescript.ErrNotInstalled) && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer checker.Close()
	files := []typecheck.File{{Name: "codemode.d.ts", Text: decls}}
	cases := []struct {
		name, body string
		valid      bool
	}{
		{"good", `const p: PetstoreTypes.Pet = await petstore.getPetById({ petId: 1 }); return p.name.toUpperCase();`, true},
		{"wrong parameter type", `await petstore.getPetById({ petId: "x" });`, false},
		{"missing body field", `await petstore.addPet({ body: { photoUrls: [] } });`, false},
		{"unknown method", `await petstore.nope();`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "export default async ({ petstore }: AgentProgramScope) => { " + tc.body + " };\n"
			res, err := checker.Check(context.Background(), files, src)
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tc.valid {
				t.Errorf("valid %v, want %v:\n%s", res.Valid, tc.valid, res.Report)
			}
		})
	}
}

// TestCredentialsAndMethodStayTheHosts: an API that echoes the request's
// headers (in an error or a success) does not hand the host's credential to
// the program, and a program cannot send a method-override header (the
// host approves requests by method).
func TestCredentialsAndMethodStayTheHosts(t *testing.T) {
	srv := newAPIServer(t, func(r *http.Request) (int, string, string) {
		echo := "Authorization was: " + r.Header.Get("Authorization")
		if r.URL.Path == "/v3/store/inventory" {
			return http.StatusInternalServerError, "text/plain", echo
		}
		b, _ := json.Marshal(map[string]string{"echo": echo})
		return http.StatusOK, "application/json", string(b)
	})
	c := load(t, "3.0/json/petstore.json", "petstore", srv.URL+"/v3")
	out := runCode(t, `const results = [];
try { await petstore.request({ path: "/store/inventory" }); } catch (e) { results.push(e.message); }
results.push(JSON.stringify(await petstore.request({ path: "/pet/1" })));
for (const h of ["X-HTTP-Method-Override", "x-http-method", "X-Method-Override"]) {
  try { await petstore.request({ path: "/pet/1", headers: { [h]: "DELETE" } }); results.push("sent " + h); } catch (e) { results.push(e.message); }
}
results`, c)
	if out.Kind != client.Success {
		t.Fatalf("%+v", out.Error)
	}
	got := string(out.Value)
	if strings.Contains(got, "host-secret") {
		t.Fatalf("the program saw the host's credential: %s", got)
	}
	if strings.Count(got, "[redacted]") != 2 {
		t.Errorf("want the echoed credential redacted twice: %s", got)
	}
	if strings.Contains(got, "sent ") || strings.Count(got, "is refused: it would change the request's method") != 3 {
		t.Errorf("method-override headers: %s", got)
	}
	for _, r := range srv.requests() {
		if r.Header.Get("X-Http-Method-Override") != "" || r.Header.Get("X-Http-Method") != "" || r.Header.Get("X-Method-Override") != "" {
			t.Errorf("the server received a method override: %v", r.Header)
		}
	}
}

// TestOperationsNameTheirUpstream: each operation's tool names the
// operation it calls (contract.Tool.Upstream: method and path), which a
// journal records with each call, so that a document whose changes give
// the name to another operation is noticed; request and spec, which call
// no one operation, name none.
func TestOperationsNameTheirUpstream(t *testing.T) {
	c := load(t, "3.0/json/petstore.json", "petstore", "http://127.0.0.1:9/v3")
	k := contractOf(t, c)
	for name, want := range map[string]string{"getPetById": "operation GET /pet/{petId}", "addPet": "operation POST /pet", "request": ""} {
		if got := k.Tool("petstore", name).Upstream(); got != want {
			t.Errorf("%s's upstream name is %q, want %q", name, got, want)
		}
	}
}
