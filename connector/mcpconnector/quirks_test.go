package mcpconnector_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/internal/mcptest"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.d.ts goldens")

// quirks is the test server that lists real servers' tools with their
// schemas as exported (internal/mcptest/testdata), as namespace p.
func quirks(t *testing.T, validate mcpconnector.Validation, tools map[string]mcpconnector.Validation) mcpconnector.Server {
	command, env := mcptest.Server(t, mcptest.Quirks, "")
	return mcpconnector.Server{Name: "p", Command: command, Env: env, Approval: mcpconnector.ApprovalNever, Validate: validate, ValidateTools: tools}
}

// TestQuirkyToolsTakeWhatTheServerTakes: the calls the issue found refused
// pass the host's validation as the servers mean their schemas (the test
// server answers with the arguments it received), while a value of the
// wrong type is still refused on the host.
func TestQuirkyToolsTakeWhatTheServerTakes(t *testing.T) {
	out := run(t, []mcpconnector.Server{quirks(t, "", nil)}, `
const shot = await p.browser_take_screenshot({ type: "png" });
const logs = await p.kubectl_logs({ resourceType: "pod", name: "web" });
const scrape = await p.firecrawl_scrape({ url: "https://example.com", jsonOptions: { prompt: "the title", schema: { type: "object", properties: { title: { type: "string" } } } } });
const extract = await p.firecrawl_extract({ urls: ["https://example.com"], schema: { type: "object" } });
const act = await p.browserbase_stagehand_act({ action: "type %password%", variables: { password: "hunter2" } });
const errors = [];
for (const call of [() => p.browser_take_screenshot({ type: 3 }), () => p.kubectl_logs({ name: "web" }), () => p.browser_close({ force: true })]) {
  try { await call(); errors.push("passed"); } catch (e) { errors.push(e.name); }
}
({ shot, logs, scrape: scrape.jsonOptions.schema, extract: extract.schema, act: act.variables, errors })
`)
	if out.Kind != client.Success {
		t.Fatalf("failed: %+v", out.Error)
	}
	want := `{"shot":{"type":"png"},"logs":{"resourceType":"pod","name":"web"},"scrape":{"type":"object","properties":{"title":{"type":"string"}}},"extract":{"type":"object"},"act":{"password":"hunter2"},"errors":["ToolValidationError","ToolValidationError","ToolValidationError"]}`
	if string(out.Value) != want {
		t.Fatalf("value\n%s\nwant\n%s", out.Value, want)
	}
}

// TestValidateStrictAndOff: strict validation refuses what the exports
// say (the ToolValidationError), and validation off for one tool
// lets the server judge even a wrong type.
func TestValidateStrictAndOff(t *testing.T) {
	out := run(t, []mcpconnector.Server{quirks(t, mcpconnector.ValidateStrict, map[string]mcpconnector.Validation{"browser_take_screenshot": mcpconnector.ValidateOff})}, `
let strict = "";
try { await p.kubectl_logs({ resourceType: "pod", name: "web" }); } catch (e) { strict = e.name + ": " + e.message; }
const off = await p.browser_take_screenshot({ type: 3 });
({ strict, off })
`)
	if out.Kind != client.Success {
		t.Fatalf("failed: %+v", out.Error)
	}
	if v := string(out.Value); !strings.Contains(v, `"strict":"ToolValidationError: `) || !strings.Contains(v, "missing property 'namespace'") || !strings.Contains(v, `"off":{"type":3}`) {
		t.Fatalf("value %s", v)
	}
}

// TestQuirkyDeclarations pins the declarations of the real servers' tools
// as ValidateLenient declares them (testdata/quirks.d.ts; -update rewrites
// it): defaulted properties optional, "any object" open.
func TestQuirkyDeclarations(t *testing.T) {
	got := contractOf(t, connectUp(t, mcpconnector.Options{}, quirks(t, "", nil))).TypeDefinitions()
	golden := filepath.Join("testdata", "quirks.d.ts")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("declarations differ from %s (go test -run TestQuirkyDeclarations -update rewrites it):\n%s", golden, got)
	}
	for _, part := range []string{"scale?:", "namespace?:", "schema?: Record<string, unknown>", "variables?: Record<string, unknown>"} {
		if !strings.Contains(got, part) {
			t.Errorf("the declarations lack %q", part)
		}
	}
}
