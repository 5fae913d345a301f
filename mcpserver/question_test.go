package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-go/codemode/codetool"
)

// A pause for the program itself (a durable runner that approves programs
// before they run) asks about the program as it will run, line by line,
// and only when all of it fits; any other pause lists its actions.
func TestApprovalQuestionShowsAPendingProgramWhole(t *testing.T) {
	program := func(code string) codetool.Answer {
		args, _ := json.Marshal(map[string]string{"code": code})
		return codetool.Answer{ExecutionID: "exec_1", Pending: []codetool.Pending{{Seq: 0, Connector: "codemode", Method: "program", Args: args}}}
	}
	const code = "const a = await github.list({});\nawait github.delete({ id: a[0] });"
	tests := []struct {
		name   string
		answer codetool.Answer
		budget int
		want   string
		whole  bool
	}{
		{"a program", program(code), 8000, "before it runs anything:\n\n" + code + "\n\nAccept to run it", true},
		{"a program too long to show", program(strings.Repeat("x", 9000)), 8000, "before it runs anything", false},
		{"an action at seq 0 of another tool", codetool.Answer{ExecutionID: "exec_1", Pending: []codetool.Pending{{Seq: 0, Connector: "codemode", Method: "other", Args: json.RawMessage(`{"code":"x"}`)}}}, 8000,
			`- codemode.other with {"code":"x"}`, true},
	}
	for _, tt := range tests {
		q, whole := approvalQuestion(tt.answer, tt.budget)
		if !strings.Contains(q, tt.want) || whole != tt.whole {
			t.Errorf("%s: question %q (whole %v), want it to hold %q (whole %v)", tt.name, cut(q, 300), whole, tt.want, tt.whole)
		}
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
