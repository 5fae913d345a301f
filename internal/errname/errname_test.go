package errname

import (
	"strings"
	"testing"
)

func TestProgramErrorsRegistry(t *testing.T) {
	seen := map[Name]bool{}
	text := ToolCallText()
	for _, e := range programErrors() {
		if seen[e.Name] || !strings.HasSuffix(string(e.Name), "Error") || strings.TrimSpace(e.Meaning) == "" {
			t.Errorf("bad or repeated entry %+v", e)
		}
		seen[e.Name] = true
		if got := strings.Contains(text, string(e.Name)+":"); got != e.ToolCall {
			t.Errorf("ToolCallText mentions %s: %v, want %v\n%s", e.Name, got, e.ToolCall, text)
		}
	}
	for _, name := range []Name{ToolValidation, MCPTool, Timeout, Halt, rangeError, internalError} {
		if !seen[name] {
			t.Errorf("%s is not in ProgramErrors", name)
		}
	}
	programErrors()[0].Name = "Changed"
	if programErrors()[0].Name == "Changed" {
		t.Error("ProgramErrors shares its slice")
	}
}
