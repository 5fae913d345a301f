package client_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/typecheck"
)

// TestUnavailableNamespaceSaysWhy runs programs against a contract whose
// namespace "broken" is unavailable (a connector's server is down): a
// call of any of its tools fails naming the namespace and the reason,
// while the rest of the scope behaves as before, with the client's own
// setup and with an extension's.
func TestUnavailableNamespaceSaysWhy(t *testing.T) {
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: contract.DefaultNamespace, Tools: tools},
		contract.Namespace{Name: "broken", Unavailable: "its MCP server failed to start (fork/exec /nonexistent: no such file or directory)"})
	if err != nil {
		t.Fatal(err)
	}
	rt := quickjsRuntime(t, quickjs.Options{Timeout: 5 * time.Second})
	base := client.New(rt, c)
	extended := base.Extend(client.Extension{Setup: `(s: any): any => ({ ...s, extra: 1 })`})
	const why = "TypeError: broken.anything is unavailable: namespace broken has no tools: its MCP server failed to start (fork/exec /nonexistent: no such file or directory). " +
		"No change to the program makes it available; whoever runs codemode must fix it."
	tests := []struct {
		name   string
		cl     *client.Client
		code   string
		value  string // the value's JSON on success
		failed string // the error's first line on failure
	}{
		{"a call", base, `await broken.anything({})`, "", why},
		{"a call, extended", extended, `await broken.anything({})`, "", why},
		{"the namespace awaited", base, `const b = await broken; typeof b.then`, `"undefined"`, ""},
		{"a symbol", base, `typeof broken[Symbol.iterator]`, `"undefined"`, ""},
		{"another namespace", base, `(await codemode.add({ a: 1, b: 2 })).sum`, `3`, ""},
		{"codemode.step", base, `await codemode.step("s", async () => 4)`, `4`, ""},
		{"the extension's scope", extended, "export default async (s: any) => s.extra", `1`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.cl.RunCode(context.Background(), tc.code, client.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.failed == "" {
				if out.Kind != client.Success || string(out.Value) != tc.value {
					t.Fatalf("outcome %s, value %s, error %v; want success %s", out.Kind, out.Value, out.Error, tc.value)
				}
				return
			}
			if out.Error == nil || out.Error.Name+": "+out.Error.Message != tc.failed {
				t.Fatalf("outcome %s, error %+v\nwant %q", out.Kind, out.Error, tc.failed)
			}
		})
	}
}

// TestUnavailableNamespaceInTheCheckersReport: a program that calls a tool
// of an unavailable namespace does not type-check (the namespace declares
// no tools), and the report says the namespace has no tools now and why,
// in Validate and ValidateCode alike; a program that names no unavailable
// namespace gets the compiler's report alone.
func TestUnavailableNamespaceInTheCheckersReport(t *testing.T) {
	checker := realChecker(t)
	tools, err := fixtures.Tools(nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := contract.NewNamespaced(contract.Namespace{Name: contract.DefaultNamespace, Tools: tools},
		contract.Namespace{Name: "files", Unavailable: "its MCP server failed to start (exit status 1)"})
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(quickjsRuntime(t, quickjs.Options{}), c)
	const note = "Namespace files has no tools now: its MCP server failed to start (exit status 1). No change to the program makes its tools available"
	ctx := context.Background()
	for _, tc := range []struct {
		name, code string
		module     bool
		note       bool
	}{
		{"a call", `await files.read_text_file({ path: "/a" })`, false, true},
		{"an optional call", `await files?.read_text_file({ path: "/a" })`, false, true},
		{"by index", `await files["read_text_file"]({ path: "/a" })`, false, true},
		{"in a module", "export default async ({ files }: AgentProgramScope) => await files.read_text_file({ path: \"/a\" })", true, true},
		{"another fault", `await codemode.nope()`, false, false},
		{"a name that only ends in files", `const myfiles = { x: 1 }; myfiles.y`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res *typecheck.Result
			if tc.module {
				res, err = cl.Validate(ctx, checker, tc.code)
			} else {
				res, err = cl.ValidateCode(ctx, checker, tc.code)
			}
			if err != nil || res.Valid {
				t.Fatalf("%v, valid %v", err, res != nil && res.Valid)
			}
			if got := strings.Contains(res.Report, note); got != tc.note {
				t.Fatalf("the report has the note: %v, want %v\n%s", got, tc.note, res.Report)
			}
		})
	}
}
