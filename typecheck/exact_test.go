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
	out, changed := exactTools(src)
	if !changed {
		t.Fatal("nothing rewritten")
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
	if _, changed := exactTools("interface CodeModeResult {\n  appendText(text: string): void;\n}\n"); changed {
		t.Error("rewrote a declaration without tools")
	}
}
