package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oasExample is a document of @readme/oas-examples, installed by
// scripts/test; the test skips without it.
func oasExample(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".tools", "node_modules", "@readme", "oas-examples", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CODEMODE_REQUIRE_OAS_EXAMPLES") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return p
}

// openAPISession serves the OpenAPI tools over doc, bound to a local API
// server that records what it receives, to an in-process go-sdk client.
func openAPISession(t *testing.T, doc string, opts mcpserver.Options, approval func(string) bool) (*mcp.ClientSession, *[]*http.Request, *sync.Mutex) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var seen []*http.Request
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r2 := r.Clone(context.Background())
		r2.Body = io.NopCloser(strings.NewReader(string(body)))
		mu.Lock()
		seen = append(seen, r2)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/pets" && r.Method == http.MethodGet:
			io.WriteString(w, `[{"id":1,"name":"Rex","tag":"dog"},{"id":2,"name":"Tom","tag":"cat"}]`)
		case r.URL.Path == "/pets" && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			w.Write(body)
		case strings.HasPrefix(r.URL.Path, "/big"):
			w.Write([]byte("[" + strings.Repeat(`{"n":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},`, 5000) + `{"n":"end"}]`))
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"no such thing"}`)
		}
	}))
	t.Cleanup(api.Close)
	conn, _, err := openapi.Load(ctx, doc, openapi.Options{BaseURL: api.URL, Headers: http.Header{"Authorization": {"Bearer host-secret"}}, Approval: approval})
	if err != nil {
		t.Fatal(err)
	}
	d := quickjs.New(quickjs.Options{Timeout: 10 * time.Second})
	t.Cleanup(func() { d.Close() })
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := mcpserver.NewOpenAPI(rt, conn, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, &seen, &mu
}

// callCode calls tool with code and returns its text and whether it is an
// error.
func callProgram(t *testing.T, cs *mcp.ClientSession, tool, code string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	text := strings.Join(texts, "\n")
	// A JSON answer, compacted, so expectations need not follow its layout.
	var b bytes.Buffer
	if json.Compact(&b, []byte(text)) == nil {
		text = b.String()
	}
	return text, res.IsError
}

func TestOpenAPIServerTools(t *testing.T) {
	cs, _, _ := openAPISession(t, oasExample(t, "3.0/json/petstore.json"), mcpserver.Options{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.Tools[0].Name != "execute" && res.Tools[1].Name != "execute" {
		t.Fatalf("tools: %+v", res.Tools)
	}
	for _, tool := range res.Tools {
		for _, want := range []string{"Swagger Petstore", "codemode.spec()", "spec(input?:", "Where the program runs: QuickJS"} {
			if !strings.Contains(tool.Description, want) {
				t.Errorf("%s description lacks %q:\n%s", tool.Name, want, tool.Description)
			}
		}
		if strings.Contains(tool.Description, "{{") || strings.Contains(tool.Description, "host-secret") {
			t.Errorf("%s description has a placeholder or the credential:\n%s", tool.Name, tool.Description)
		}
		if tool.Name == "search" && strings.Contains(tool.Description, "request(input") {
			t.Errorf("search declares request:\n%s", tool.Description)
		}
	}
}

func TestOpenAPIServerSearch(t *testing.T) {
	cs, seen, mu := openAPISession(t, oasExample(t, "3.0/json/petstore.json"), mcpserver.Options{}, nil)
	cases := []struct {
		name, code string
		want       []string
		isError    bool
	}{
		{"operations", `const spec = await codemode.spec();
const ops = [];
for (const [path, item] of Object.entries(spec.paths)) for (const [m, op] of Object.entries(item as any)) if ((op as any).operationId) ops.push(m.toUpperCase() + " " + path + " " + (op as any).operationId);
ops.sort()`, []string{`"GET /pet/{petId} getPetById"`, `"POST /pet addPet"`, `"DELETE /store/order/{orderId} deleteOrder"`}, false},
		{"references resolve as read", `const spec = await codemode.spec();
const body = spec.paths["/pet"].post.requestBody;
({ required: body.content["application/json"].schema.required, tags: body.content["application/json"].schema.properties.tags.items.properties.name })`, []string{`"required":["name","photoUrls"]`, `"tags":{"type":"string"}`}, false},
		{"the whole document stringifies", `JSON.stringify(await codemode.spec()).length > 1000`, []string{"true"}, false},
		{"request is not in search", `await (codemode as any).request({ path: "/pets" })`, []string{"TypeError"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := callProgram(t, cs, "search", tc.code)
			if isErr != tc.isError {
				t.Fatalf("isError %v, want %v:\n%s", isErr, tc.isError, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %s:\n%s", w, text)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(*seen) != 0 {
		t.Errorf("search sent %d requests to the API", len(*seen))
	}
}

func TestOpenAPIServerSearchMarksCycles(t *testing.T) {
	cs, _, _ := openAPISession(t, oasExample(t, "3.0/json/circular.json"), mcpserver.Options{}, nil)
	text, isErr := callProgram(t, cs, "search", `const spec = await codemode.spec();
const schema = spec.paths["/anything"].get.responses["404"].content["application/json"].schema;
const direct = spec.components.schemas.ErrorMessage;
({ inner: direct.properties.inner.properties.statusCode, again: direct.properties.inner.properties.inner, viaRef: schema.properties.inner, all: JSON.stringify(spec).length })`)
	if isErr {
		t.Fatal(text)
	}
	for _, w := range []string{`"inner":{"type":"integer","format":"int32"}`, `"again":{"$circular":"#/components/schemas/ErrorMessage"}`, `"viaRef":{"$circular":"#/components/schemas/ErrorMessage"}`, `"all":`} {
		if !strings.Contains(text, w) {
			t.Errorf("answer lacks %s:\n%s", w, text)
		}
	}
}

func TestOpenAPIServerExecute(t *testing.T) {
	never := func(string) bool { return false }
	cs, seen, mu := openAPISession(t, oasExample(t, "3.0/json/petstore.json"), mcpserver.Options{MaxTokens: 500}, never)
	text, isErr := callProgram(t, cs, "execute", `const pets = await codemode.request({ path: "/pets", params: { tags: ["dog", "cat"], limit: 2 } });
const made = await codemode.request({ method: "POST", path: "/pets", body: { name: "Kit" }, headers: { "X-Trace": "t1", "Authorization": "Bearer program" } });
const op = (await codemode.spec()).paths["/pet/{petId}"].get.operationId;
({ names: pets.map((p: any) => p.name), made, op })`)
	if isErr {
		t.Fatal(text)
	}
	if !strings.Contains(text, `"names":["Rex","Tom"]`) || !strings.Contains(text, `"made":{"name":"Kit"}`) || !strings.Contains(text, `"op":"getPetById"`) {
		t.Errorf("answer: %s", text)
	}
	mu.Lock()
	reqs := *seen
	mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if r := reqs[0]; r.Method != "GET" || r.URL.Path != "/pets" || r.URL.RawQuery != "limit=2&tags=dog&tags=cat" || r.Header.Get("Authorization") != "Bearer host-secret" {
		t.Errorf("first request %s %s?%s auth %q", r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"))
	}
	if r := reqs[1]; r.Method != "POST" || r.Header.Get("X-Trace") != "t1" || r.Header.Get("Authorization") != "Bearer host-secret" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("second request %s, headers %v", r.Method, r.Header)
	}
	body, _ := io.ReadAll(reqs[1].Body)
	if string(body) != `{"name":"Kit"}` {
		t.Errorf("second request body %s", body)
	}

	// A non-2xx status is an HTTPError with the status and the body.
	text, isErr = callProgram(t, cs, "execute", `await codemode.request({ path: "/nothing" })`)
	if !isErr || !strings.Contains(text, "HTTPError") || !strings.Contains(text, "404") || !strings.Contains(text, "no such thing") {
		t.Errorf("404: isError %v: %s", isErr, text)
	}
	// A large answer is cut to the budget and stays valid JSON.
	text, isErr = callProgram(t, cs, "execute", `await codemode.request({ path: "/big" })`)
	if isErr || len(text) > 500*4+100 {
		t.Fatalf("big answer: isError %v, %d characters", isErr, len(text))
	}
	var a struct{ Value []any }
	if err := json.Unmarshal([]byte(text), &a); err != nil || len(a.Value) < 2 {
		t.Errorf("big answer's value is not a JSON array (%v): %s", err, text)
	}
	// The host's credentials never reach the program.
	text, _ = callProgram(t, cs, "execute", `JSON.stringify(await codemode.request({ path: "/pets" })) + JSON.stringify(Object.keys(globalThis))`)
	if strings.Contains(text, "host-secret") {
		t.Errorf("the credential reached the program: %s", text)
	}
}

// TestOpenAPIServerWriteNeedsApproval: by default a request that may change
// the server (POST) needs a person's approval; a plain execute runner whose
// client cannot be asked refuses it, and nothing is sent.
func TestOpenAPIServerWriteNeedsApproval(t *testing.T) {
	cs, seen, mu := openAPISession(t, oasExample(t, "3.0/json/petstore.json"), mcpserver.Options{}, nil)
	text, isErr := callProgram(t, cs, "execute", `await codemode.request({ method: "POST", path: "/pets", body: { name: "Kit" } })`)
	if !isErr || !strings.Contains(text, "codemode.request needs a person's approval") {
		t.Fatalf("isError %v: %s", isErr, text)
	}
	text, isErr = callProgram(t, cs, "execute", `(await codemode.request({ path: "/pets" })).length`)
	if isErr || !strings.Contains(text, `"value":2`) {
		t.Fatalf("a GET: isError %v: %s", isErr, text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(*seen) != 1 || (*seen)[0].Method != http.MethodGet {
		t.Fatalf("requests sent: %d", len(*seen))
	}
}
