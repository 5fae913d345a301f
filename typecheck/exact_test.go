package typecheck

import (
	"strings"
	"testing"
)

// TestExactToolsRewritesOnlyToolMethods: the methods of …Tools interfaces
// are rewritten (flat inputs with the one-level check), other interfaces
// and comments are left alone.
func TestExactToolsRewritesOnlyToolMethods(t *testing.T) {
	src := `interface Tools {
  /** Echo {x} ( */
  echo(input: {
    /** Any ) text. */
    value: string;
  }): Promise<{ value: string }>;
  list(input: { items: string[] }): Promise<{ a: "(" }>;
}
interface GithubTools {
  search(input: { q: string }): Promise<{ hits: number }>;
}
interface CodeModeResult {
  appendText(text: string): void;
  other(input: { x: string }): void;
}
`
	out, names := exactTools(src)
	if strings.Join(names, ",") != "echo,list,search" {
		t.Fatalf("rewrote %v, want echo, list, search", names)
	}
	for _, want := range []string{
		"echo<CodeModeI extends {\n    /** Any ) text. */\n    value: string;\n  }>(input: CodeModeI & CodeModeExactFlat<CodeModeI, {",
		`list<CodeModeI extends { items: string[] }>(input: CodeModeI & CodeModeExact<CodeModeI, { items: string[] }>): Promise<{ a: "(" }>;`,
		`search<CodeModeI extends { q: string }>(input: CodeModeI & CodeModeExactFlat<CodeModeI, { q: string }>)`,
		"  other(input: { x: string }): void;",
		"/** Echo {x} ( */",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if _, names := exactTools("interface CodeModeResult {\n  appendText(text: string): void;\n}\n"); len(names) > 0 {
		t.Errorf("rewrote %v in a declaration without tools", names)
	}
	for _, c := range []struct {
		source string
		want   bool
	}{
		{"await codemode.echo(x)", true},
		{"const { echo } = codemode", true},
		{"echoes(); $echo; echo_x", false},
		{"nothing", false},
	} {
		if got := mentionsAny(c.source, []string{"echo"}); got != c.want {
			t.Errorf("mentionsAny(%q) = %v", c.source, got)
		}
	}
}
