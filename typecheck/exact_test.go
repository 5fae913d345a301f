package typecheck

import (
	"testing"

	"github.com/codemode-go/codemode/internal/typegen"
)

// TestExactDeclarationsUseTheCheckersText: a file with checker declarations
// is replaced by their exact text, others are kept as written.
func TestExactDeclarationsUseTheCheckersText(t *testing.T) {
	files := []File{
		{Name: "codemode.d.ts", Text: "plain", Checker: &typegen.CheckerDeclarations{Exact: "exact", Methods: []string{"echo"}}},
		{Name: "lib.d.ts", Text: "lib"},
		{Name: "none.d.ts", Text: "none", Checker: &typegen.CheckerDeclarations{Exact: "unused"}},
	}
	out, names := exactDeclarations(files)
	if out[0].Text != "exact" || out[1].Text != "lib" || out[2].Text != "none" || len(names) != 1 || names[0] != "echo" {
		t.Fatalf("exactDeclarations = %+v, %v", out, names)
	}
	if files[0].Text != "plain" {
		t.Fatal("exactDeclarations changed its argument")
	}
}

func TestMentionsAny(t *testing.T) {
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
