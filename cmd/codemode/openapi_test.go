package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/codetool"
)

// TestRunWithOpenAPI runs a program against the petstore document through
// `codemode run --openapi`, with the base URL and a credential header from
// the environment; `types` prints the named component types.
func TestRunWithOpenAPI(t *testing.T) {
	spec, err := filepath.Abs("../../.tools/node_modules/@readme/oas-examples/3.0/json/petstore.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filepath.Glob(spec); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization")+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":7,"name":"Rex","photoUrls":[]}`)
	}))
	defer srv.Close()
	t.Setenv("PETSTORE_TOKEN", "Bearer from-env")
	flags := []string{"--openapi", "petstore=" + spec, "--base-url", "petstore=" + srv.URL + "/v3", "--header-env", "petstore=Authorization:PETSTORE_TOKEN"}

	prog := writeFile(t, "prog.ts", `export default async ({ petstore, result }: AgentProgramScope) => {
  const pet = await petstore.getPetById({ petId: 7 });
  await petstore.updatePet({ body: { ...pet, name: "Max" } });
  result.appendText(pet.name);
};
`)
	code, stdout, stderr := runCLI(t, append([]string{"run"}, append(flags, prog)...)...)
	if code != 0 || !strings.Contains(stdout, "Rex") {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := []string{
		"GET /v3/pet/7 Bearer from-env ",
		`PUT /v3/pet Bearer from-env {"id":7,"name":"Max","photoUrls":[]}`,
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("server saw:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(stdout+stderr, "from-env") {
		t.Error("the credential was printed")
	}
	// Asked to keep unsafe methods for a person, a plain run (which cannot
	// wait for one) refuses the PUT before it is sent.
	mu.Lock()
	seen = nil
	mu.Unlock()
	code, _, stderr = runCLI(t, append([]string{"run", "--approval", "destructive"}, append(flags, prog)...)...)
	if code != exitError || !strings.Contains(stderr, "petstore.updatePet needs a person's approval") || len(seen) != 1 {
		t.Fatalf("run --approval destructive: exit %d, the server saw %q\n%s", code, seen, stderr)
	}

	code, stdout, stderr = runCLI(t, append([]string{"types"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "declare namespace PetstoreTypes {") || !strings.Contains(stdout, "getPetById(input: {") {
		t.Fatalf("types: exit %d\nstdout: %.2000s\nstderr: %s", code, stdout, stderr)
	}

	code, _, stderr = runCLI(t, "types", "--openapi", "petstore="+spec, "--header-env", "petstore=Authorization:CODEMODE_UNSET_VARIABLE")
	if code == 0 || !strings.Contains(stderr, "CODEMODE_UNSET_VARIABLE is not set") {
		t.Fatalf("unset variable: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "types", "--openapi", "petstore="+spec, "--base-url", "other=http://x")
	if code == 0 || !strings.Contains(stderr, "--base-url other: no --openapi other=SPEC") {
		t.Fatalf("base URL for an unknown namespace: exit %d, stderr %s", code, stderr)
	}
}

// TestNoUsableBaseURLNamesTheFlag: a document whose server is not an
// absolute http(s) URL, or that lists none, or a mistyped --base-url, is
// refused saying which flag sets the base URL, not the Go option
// (Options.BaseURL) that openapi's own error names.
func TestNoUsableBaseURLNamesTheFlag(t *testing.T) {
	doc := func(servers string) string {
		return writeFile(t, "api.json", `{"openapi":"3.0.0","info":{"title":"k","version":"1"},`+servers+`"paths":{}}`)
	}
	relative, none := doc(`"servers":[{"url":"//kubernetes.local"}],`), doc("")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"run, a relative server", []string{"types", "--openapi", "k8s=" + relative},
			`codemode: --openapi k8s: no usable base URL: "//kubernetes.local" is not an absolute http(s) URL (give --base-url k8s=URL: the server its calls go to)` + "\n"},
		{"run, no servers", []string{"types", "--openapi", "k8s=" + none},
			"codemode: --openapi k8s: no usable base URL: the document lists no servers (give --base-url k8s=URL: the server its calls go to)\n"},
		{"run, a base URL without its scheme", []string{"types", "--openapi", "k8s=" + none, "--base-url", "k8s=localhost:8080"},
			`codemode: --openapi k8s: no usable base URL: "localhost:8080" is not an absolute http(s) URL, such as "http://localhost:8080" (give --base-url k8s=URL: the server its calls go to)` + "\n"},
		{"openapi serve, no servers", []string{"openapi", "serve", "--spec", none},
			"codemode: --spec: no usable base URL: the document lists no servers (give --base-url URL: the server its calls go to)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitError || stderr != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant exit %d,\n%q", code, stderr, exitError, tt.want)
			}
		})
	}
}

// TestDurableRunWithOpenAPI: `run --journal --openapi` pauses before the
// PUT, and `approve` (with the same --openapi flags, as a later process
// would) continues from the journal, so the GET is sent once.
func TestDurableRunWithOpenAPI(t *testing.T) {
	spec, err := filepath.Abs("../../.tools/node_modules/@readme/oas-examples/3.0/json/petstore.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec); err != nil {
		t.Skip(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization")+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":7,"name":"Rex","photoUrls":[]}`)
	}))
	defer srv.Close()
	t.Setenv("PETSTORE_TOKEN", "Bearer from-env")
	journal := filepath.Join(t.TempDir(), "journal.db")
	flags := []string{"--journal", journal, "--openapi", "petstore=" + spec, "--base-url", "petstore=" + srv.URL + "/v3", "--header-env", "petstore=Authorization:PETSTORE_TOKEN"}
	prog := writeFile(t, "prog.ts", `const pet = await petstore.getPetById({ petId: 7 });
await petstore.updatePet({ body: { ...pet, name: "Max" } });
pet.name
`)
	code, stdout, stderr := runCLI(t, append(append([]string{"run", "--json"}, flags...), prog)...)
	var out codetool.Answer
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != exitPaused || out.Status != codetool.StatusPaused || len(out.Pending) != 1 || out.Pending[0].Method != "updatePet" {
		t.Fatalf("run: exit %d, %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, append(append([]string{"approve", "--json"}, flags...), out.ExecutionID)...)
	var done codetool.Answer
	if err := json.Unmarshal([]byte(stdout), &done); err != nil || code != exitCompleted || string(done.Value) != `"Rex"` {
		t.Fatalf("approve: exit %d, %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"GET /v3/pet/7 Bearer from-env ", `PUT /v3/pet Bearer from-env {"id":7,"name":"Max","photoUrls":[]}`}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("server saw:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
