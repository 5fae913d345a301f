package main

import (
	"strings"
	"testing"
)

// TestRunCPUTimeLimit runs with --cpu-time 300ms: a program that waits two
// seconds on a tool completes (waiting does not count), and a busy loop
// fails with a TimeoutError naming the CPU time limit, not the deadline.
func TestRunCPUTimeLimit(t *testing.T) {
	tools := writeFile(t, "tools.json", `{"tools": [
  {"name": "nap", "description": "Sleeps for a second.", "inputSchema": {"type":"object","properties":{},"additionalProperties":false},
   "outputSchema": {"type":"object","properties":{},"additionalProperties":false}, "command": ["sh", "-c", "sleep 1; echo '{}'"]}
]}`)
	waits := writeFile(t, "waits.ts", `export default async function ({ codemode }: AgentProgramScope) {
  await codemode.nap({});
  await codemode.nap({});
  return "rested";
}`)
	code, stdout, stderr := runCLI(t, "run", "--cpu-time", "300ms", "--timeout", "1m", "--tools", tools, waits)
	if code != 0 || strings.TrimSpace(stdout) != "rested" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	busy := writeFile(t, "busy.ts", `export default async function () { for (;;) {} }`)
	code, _, stderr = runCLI(t, "run", "--cpu-time", "300ms", "--timeout", "1m", "--tools", tools, busy)
	if code != 1 || !strings.Contains(stderr, "TimeoutError") || !strings.Contains(stderr, "CPU time limit of 300ms") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}
