package mcpconnector_test

import (
	"strings"
	"testing"

	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/mcptest"
)

// TestContractToolsCarryUpstreamAnnotations: the filesystem server's tool
// annotations reach the contract tools and the declarations' JSDoc.
func TestContractToolsCarryUpstreamAnnotations(t *testing.T) {
	set := connectUp(t, mcpconnector.Options{}, mcpconnector.Server{Name: "files", Command: mcptest.Command(t, "mcp-server-filesystem"), Args: []string{t.TempDir()}})
	byName := map[string]*contract.Tool{}
	for _, tool := range set.Namespaces()[0].Tools {
		byName[tool.Name()] = tool
	}
	is := func(p *bool, want bool) bool { return p != nil && *p == want }
	read, write := byName["read_text_file"], byName["write_file"]
	if read == nil || write == nil {
		t.Fatalf("the server lacks read_text_file or write_file: %v", byName)
	}
	if a := read.Annotations(); !is(a.ReadOnly, true) || !is(a.OpenWorld, false) {
		t.Errorf("read_text_file annotations %+v, want read-only and closed-world", a)
	}
	if a := write.Annotations(); a.ReadOnly != nil || !is(a.Destructive, true) || !is(a.Idempotent, true) || !is(a.OpenWorld, false) {
		t.Errorf("write_file annotations %+v, want destructive, idempotent, closed-world", a)
	}
	d := contractOf(t, set).TypeDefinitions()
	i := strings.Index(d, "  write_file(")
	if i < 0 || !strings.HasSuffix(d[:i], "   * @destructive\n   * @idempotent\n   * @openWorld false\n   */\n") {
		t.Errorf("write_file's JSDoc lacks its tags:\n%s", d)
	}
}
