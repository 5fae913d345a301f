package main

import (
	"strings"
	"testing"
)

// TestMCPServeSessions: with --sessions, the stdio client's programs
// continue one session; with --journal too, the command refuses.
func TestMCPServeSessions(t *testing.T) {
	f := newJournalFixture(t)
	s := agent(t, "--tools", f.tools, "--sessions", "--no-check")
	for i, st := range []struct{ program, want string }{
		{"const items = await codemode.list_items({ prefix: 'x' });\nlet seen = items.length;\nseen", `"value":2`},
		{"seen += items.length;\nseen", `"value":4`},
	} {
		texts, _, isErr := code(t, s, st.program)
		if isErr || len(texts) == 0 || !strings.Contains(texts[0], st.want) {
			t.Fatalf("program %d: %q (error %v); want %s", i, texts, isErr, st.want)
		}
	}
	exit, _, stderr := f.cli(t, "mcp", "serve", "--sessions", "--journal", f.journal, "--tools", f.tools)
	if exit != 2 || !strings.Contains(stderr, "--sessions is for plain runs") {
		t.Fatalf("--sessions with --journal: exit %d %q", exit, stderr)
	}
}
