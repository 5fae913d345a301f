package openapidurable_test

import (
	"context"
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
	"github.com/codemode-go/codemode/connector/openapi/openapidurable"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/sqlite"
)

func TestDefaultApproval(t *testing.T) {
	for method, want := range map[string]bool{"GET": false, "HEAD": false, "OPTIONS": false, "TRACE": false, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "": true} {
		if got := openapidurable.DefaultApproval(method); got != want {
			t.Errorf("DefaultApproval(%q) = %v, want %v", method, got, want)
		}
	}
}

// TestDurablePetstore runs a program over the petstore as a durable
// execution against a local server: the GET runs at once, the POST pauses
// for approval, and after approval the execution continues from the
// journal, so the GET is sent once.
func TestDurablePetstore(t *testing.T) {
	doc, err := filepath.Abs(filepath.Join("..", "..", "..", ".tools", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(doc); err != nil {
		t.Skip(err)
	}
	var mu sync.Mutex
	var seen []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+string(body)+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodGet:
			io.WriteString(w, `{"id":7,"name":"Rex","photoUrls":[]}`)
		default:
			w.Write(body)
		}
	}))
	defer api.Close()
	ctx := context.Background()
	conn, _, err := openapi.Load(ctx, doc, openapi.Options{Name: "petstore", BaseURL: api.URL, Headers: http.Header{"Authorization": {"Bearer host-secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	dc, err := openapidurable.Connector(conn, openapidurable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "journal.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
	defer d.Close()
	rt, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	h, err := durable.New(st, rt, []durable.Connector{dc}, durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The declarations name the document's components once.
	if decls := h.TypeDefinitions(); !strings.Contains(decls, "declare namespace PetstoreTypes") || !strings.Contains(decls, "getPetById(input: {") {
		t.Fatalf("declarations:\n%s", decls)
	}
	out, err := h.Execute(ctx, `const pet = await petstore.getPetById({ petId: 7 });
const made = await petstore.addPet({ body: { name: pet.name + " II", photoUrls: [] } });
({ first: pet.name, made: made.name })`)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != durable.OutputPaused || len(out.Pending) != 1 || out.Pending[0].Method != "addPet" {
		t.Fatalf("first pass: %+v", out)
	}
	mu.Lock()
	if len(seen) != 1 || !strings.HasPrefix(seen[0], "GET /pet/7 ") {
		t.Errorf("before approval the API saw %q", seen)
	}
	mu.Unlock()
	done, err := h.Approve(ctx, out.ExecutionID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != durable.OutputCompleted || string(done.Result) != `{"first":"Rex","made":"Rex II"}` {
		t.Fatalf("after approval: %+v (%s)", done, done.Result)
	}
	mu.Lock()
	want := []string{"GET /pet/7  Bearer host-secret", `POST /pet {"name":"Rex II","photoUrls":[]} Bearer host-secret`}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("the API saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	mu.Unlock()

	// request pauses by the call's method: a GET runs, a post waits.
	req, err := h.Execute(ctx, `const a = await petstore.request({ path: "/pet/7" });
await petstore.request({ method: "post", path: "/pet", body: { name: a.name } });`)
	if err != nil {
		t.Fatal(err)
	}
	if req.Status != durable.OutputPaused || len(req.Pending) != 1 || req.Pending[0].Method != "request" || req.Pending[0].Seq != 2 {
		t.Errorf("request: %+v", req)
	}

	// An invalid argument is the program's ToolValidationError, and nothing is sent.
	bad, err := h.Execute(ctx, `await petstore.getPetById({ petId: "seven" })`)
	if err != nil {
		t.Fatal(err)
	}
	if bad.Status != durable.OutputError || !strings.Contains(bad.Error, "ToolValidationError") {
		t.Errorf("invalid argument: %+v", bad)
	}
}
