package durable

import (
	"strings"
	"testing"
)

// FuzzPrepare: any text prepares without panicking, keeps the agent's code
// and its line count (positions in errors stay the code's own), and only
// text that may start a function is parsed.
func FuzzPrepare(f *testing.F) {
	for _, s := range []string{"1", "async () => 1", "// c\nasync () => 2", "/* x */ (async () => 3)", "/* open", "//",
		"export default async () => 1", "```ts\n1\n```", "function () {}", "const a = 1;\na", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		out, _ := prepare(code, []string{"github", "console", "result"})
		if !strings.Contains(out, sdkNamespace) {
			t.Fatalf("no SDK in %q", out)
		}
		if !strings.HasPrefix(strings.TrimSpace(code), "```") && strings.Count(out, "\n") < strings.Count(code, "\n") {
			t.Fatalf("lines lost: %q -> %q", code, out)
		}
		if mayBeFunction(code) {
			s := strings.TrimLeft(code, " \t\r\n")
			if !strings.HasPrefix(s, "async") && !strings.HasPrefix(s, "function") && !strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "/") {
				t.Fatalf("mayBeFunction(%q) without a function start", code)
			}
		}
	})
}
