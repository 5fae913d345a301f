package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
)

// TestMCPServeApproveProgramsWithAJournal: with --approve-programs and
// --journal, a program is recorded and paused before anything runs, its
// one pending action the program itself; pending shows it whole with the
// approve command, and the approval (from another process, as the
// journal page's would be) runs it.
func TestMCPServeApproveProgramsWithAJournal(t *testing.T) {
	f := newJournalFixture(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-codemode-cli", "mcp", "serve", "--journal", f.journal, "--tools", f.tools, "--approve-programs")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	const program = `const items = await codemode.list_items({ prefix: "p" });
return items.length;`
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "code", Arguments: map[string]any{"code": program}})
	if err != nil || res.IsError {
		t.Fatalf("code: %+v %v", res, err)
	}
	var out codetool.Answer
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil || out.Status != codetool.StatusPaused ||
		len(out.Pending) != 1 || out.Pending[0].Seq != 0 || out.Pending[0].Connector != "codemode" || out.Pending[0].Method != "program" {
		t.Fatalf("answer %q: %v", res.Content[0].(*mcp.TextContent).Text, err)
	}
	if got := f.lines(t, "list.log"); got != nil {
		t.Fatalf("before the program's approval the read ran: %q", got)
	}
	_, pending, _ := f.cli(t, "pending", out.ExecutionID)
	approve := regexp.MustCompile(`codemode approve .* --shown (\w+)`).FindStringSubmatch(pending)
	if !strings.Contains(pending, "action 0: codemode.program") || !strings.Contains(pending, `"code": "const items = await codemode.list_items({ prefix: \"p\" });\nreturn items.length;"`) || approve == nil {
		t.Fatalf("pending does not show the program whole with its approve command:\n%s", pending)
	}
	done := f.output(t, exitCompleted, "approve", "--tools", f.tools, "--json", out.ExecutionID, "--shown", approve[1])
	if string(done.Value) != "2" || len(f.lines(t, "list.log")) != 1 {
		t.Fatalf("approve: %+v; the read ran %d times", done, len(f.lines(t, "list.log")))
	}
	if e := f.record(t, out.ExecutionID); e.Log[0].State != store.EntryApplied || e.Passes != 1 {
		t.Fatalf("after the approval: %+v, %d passes", e.Log[0], e.Passes)
	}
}
