package contract_test

import (
	"strings"
	"testing"

	"github.com/codemode-go/codemode/contract"
)

func TestProgramErrorsRegistry(t *testing.T) {
	seen := map[contract.ErrorName]bool{}
	text := contract.ToolCallErrorsText()
	for _, e := range contract.ProgramErrors() {
		if seen[e.Name] || !strings.HasSuffix(string(e.Name), "Error") || strings.TrimSpace(e.Meaning) == "" {
			t.Errorf("bad or repeated entry %+v", e)
		}
		seen[e.Name] = true
		if got := strings.Contains(text, string(e.Name)+":"); got != e.ToolCall {
			t.Errorf("ToolCallErrorsText mentions %s: %v, want %v\n%s", e.Name, got, e.ToolCall, text)
		}
	}
	for _, name := range []contract.ErrorName{contract.ErrorToolValidation, contract.ErrorMCPTool, contract.ErrorTimeout, contract.ErrorHalt, contract.ErrorRange, contract.ErrorInternal} {
		if !seen[name] {
			t.Errorf("%s is not in ProgramErrors", name)
		}
	}
	contract.ProgramErrors()[0].Name = "Changed"
	if contract.ProgramErrors()[0].Name == "Changed" {
		t.Error("ProgramErrors shares its slice")
	}
}
