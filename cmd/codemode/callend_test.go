package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codemode show says how each call of a run ended: the code in the tool
// log's END column, the plain words of each code other than completed
// under it, and the code in --json's entries ("end"), as executions --json
// has it too. The program leaves a slow command behind (abandoned), and
// catches a failing one.
func TestShowSaysHowCallsEnded(t *testing.T) {
	f := newJournalFixture(t)
	tools := map[string]any{"tools": []map[string]any{
		{"name": "slow", "description": "Runs until it is stopped.", "inputSchema": json.RawMessage(`{"type":"object"}`), "outputSchema": json.RawMessage(`{"type":"object"}`),
			"command": []string{"sh", "-c", `touch started; sleep 60; echo '{}'`}},
		{"name": "started", "description": "Returns once slow runs.", "inputSchema": json.RawMessage(`{"type":"object"}`), "outputSchema": json.RawMessage(`{"type":"object"}`),
			"command": []string{"sh", "-c", `while [ ! -f started ]; do sleep 0.01; done; echo '{}'`}},
		{"name": "fail", "description": "Fails.", "inputSchema": json.RawMessage(`{"type":"object"}`), "outputSchema": json.RawMessage(`{"type":"object"}`),
			"command": []string{"sh", "-c", `echo 'upstream is down' >&2; exit 1`}},
	}}
	raw, _ := json.Marshal(tools)
	program := filepath.Join(f.dir, "abandon.ts")
	for name, text := range map[string]string{f.tools: string(raw),
		program: `codemode.slow({}); await codemode.started({}); try { await codemode.fail({}) } catch {} return "left"`} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := f.output(t, 0, "run", "--json", "--tools", f.tools, program)
	e := f.record(t, out.ExecutionID)
	var got []string
	for _, l := range e.Log {
		got = append(got, l.Method+"="+l.End)
	}
	if strings.Join(got, " ") != "slow=cancelled started=completed fail=failed" {
		t.Fatalf("show --json: ends %v", got)
	}
	code, stdout, stderr := f.cli(t, "show", out.ExecutionID)
	if code != 0 {
		t.Fatalf("show: exit %d, %s", code, stderr)
	}
	for _, want := range []string{"#  STATE", "END", "cancelled  codemode.slow({})", "completed  codemode.started({})", "failed     codemode.fail({})",
		"cancelled (abandoned): the execution ended before this call finished", "failed: the tool failed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "completed: ") {
		t.Errorf("show explains completed:\n%s", stdout)
	}
	code, stdout, _ = f.cli(t, "executions", "--json")
	if code != 0 || !strings.Contains(stdout, `"end":"cancelled"`) {
		t.Fatalf("executions --json: exit %d, %s", code, stdout)
	}
}
