package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/mcpserver"
)

type sendInput struct {
	To string `json:"to"`
}

// sendConnector is the namespace mail with send, which needs approval.
func sendConnector(t *testing.T) contract.Namespace {
	t.Helper()
	send, err := contract.NewTool("send", "Sends a message.", func(ctx context.Context, in sendInput) (okOutput, error) { return okOutput{true}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if send, err = send.WithPolicy(contract.Policy{RequiresApproval: true}); err != nil {
		t.Fatal(err)
	}
	return contract.Namespace{Name: "mail", Tools: []*contract.Tool{send}}
}

// hidden is what a program puts in an argument or its code to make the
// question read otherwise than the action: a right-to-left override, the
// invisible tag copy of ASCII, a zero-width space, and U+2028 (a line
// break to JavaScript, nothing to many readers).
var hidden = []string{"\u202e", "\U000E0061", "\u200b", "\u2028"}

// checkQuestion fails when a question shows a hiding character raw.
func checkQuestion(t *testing.T, what string, asked []string) {
	t.Helper()
	if len(asked) != 1 {
		t.Fatalf("%s: asked %d questions: %q", what, len(asked), asked)
	}
	for _, h := range hidden {
		if strings.Contains(asked[0], h) {
			t.Errorf("%s: the question holds %q raw: %q", what, h, asked[0])
		}
	}
}

// The questions a person answers through the client show the action as
// the journal page and the CLI do: the characters that hide or reorder
// text escaped, in the arguments of a pause, of a plain run's call, and
// in a program asked about before it runs (an adversarial review found
// them raw in each).
func TestQuestionsEscapeHidingCharacters(t *testing.T) {
	const program = "// just a comment \u2028 await mail.send({ to: \"bob\u202e\U000E0061\u200b@example.com\" });\n1"
	elicit := func(asked *[]string) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			*asked = append(*asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "decline"}, nil
		}}
	}
	t.Run("a pause", func(t *testing.T) {
		var asked []string
		cs := connectRunner(t, handle(t, sendConnector(t)), mcpserver.Options{}, elicit(&asked))
		callCode(t, cs, program)
		checkQuestion(t, "a pause", asked)
		if !strings.Contains(asked[0], `"bob\u202e\udb40\udc61\u200b@example.com"`) {
			t.Errorf("the question does not show the argument escaped: %q", asked[0])
		}
	})
	t.Run("a plain run's call", func(t *testing.T) {
		c, err := contract.NewNamespaced(sendConnector(t))
		if err != nil {
			t.Fatal(err)
		}
		d := quickjs.New(quickjs.Options{Timeout: 20 * time.Second})
		t.Cleanup(func() { d.Close() })
		rt, err := client.NewRuntime(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
		var asked []string
		cs := connectOn(t, client.New(rt, c), mcpserver.Options{}, elicit(&asked), "2025-11-25")
		callCode(t, cs, program)
		checkQuestion(t, "a plain run's call", asked)
	})
	t.Run("a program before it runs", func(t *testing.T) {
		var asked []string
		cs := connectOn(t, handle(t, sendConnector(t)), mcpserver.Options{ApprovePrograms: true}, elicit(&asked), "2025-11-25")
		callCode(t, cs, program)
		checkQuestion(t, "a program", asked)
		if !strings.Contains(asked[0], "// just a comment \n await mail.send") {
			t.Errorf("the program is not shown with the line JavaScript reads after U+2028: %q", asked[0])
		}
	})
}
