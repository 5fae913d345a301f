package durable_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
)

// What a person approves is the journal's record of the arguments
// (ShownDigest covers the recorded bytes), and what runs is what the
// program sends: the two must mean the same. Two texts that record alike
// (a lone surrogate escape decodes to U+FFFD, so "bob\ud800" and
// "bob\udbff" both recorded as "bob\ufffd") let a program that knows it
// replays (a step's function runs on the first pass only) have its
// approval run with another value than the one approved, which a
// JavaScript or Python server tells apart (an adversarial review,
// December 2026). Such arguments are refused before anything is recorded
// or run: the program sees a ToolValidationError.
func TestArgumentsThatRecordOtherwiseAreRefused(t *testing.T) {
	var mu sync.Mutex
	var got []string
	send := connectorTool{
		Name: "send", Description: "Sends a message.", RequiresApproval: true,
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`),
		OutputSchema: json.RawMessage(`{"type":"boolean"}`),
		Execute: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, string(args))
			return json.RawMessage("true"), nil
		},
	}
	for _, tt := range []struct{ name, to, want string }{
		{"a lone surrogate on the replay", `first ? "bob" : "bob\udbff"`, `/to: the string holds a lone surrogate (\udbff)`},
		{"a lone high surrogate", `"bob\ud800"`, `/to: the string holds a lone surrogate (\ud800)`},
		{"a lone low surrogate", `"\udc00bob"`, `/to: the string holds a lone surrogate (\udc00)`},
		{"a high surrogate before another", `"\ud800\ud800\udc00"`, `/to: the string holds a lone surrogate (\ud800)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
			h := newHandle(t, st, durable.Options{}, connector{Name: "mail", Tools: []connectorTool{send}})
			out := execute(t, h, `let first = false;
await codemode.step("probe", async () => { first = true; return 1; });
try { await mail.send({ to: `+tt.to+` }); } catch (e) { return e.name + ": " + e.message; }
return "sent"`)
			if out.Status == codetool.StatusPaused {
				out, _ = h.ApproveShown(context.Background(), out.ExecutionID, durable.ShownDigest(out.Pending))
			}
			var said string
			_ = json.Unmarshal(out.Value, &said)
			if out.Status != codetool.StatusCompleted || !strings.HasPrefix(said, "ToolValidationError") || !strings.Contains(said, tt.want) {
				t.Errorf("answer %s %s (value %s), want the call refused saying %q", out.Status, out.Error, out.Value, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 0 {
				t.Errorf("the tool ran with %q", got)
			}
		})
	}
}

// Valid surrogate pairs (an emoji) and escaped backslashes before a "u"
// are kept: only what would record otherwise is refused.
func TestArgumentsWithPairsAreRecorded(t *testing.T) {
	h, svc, _ := fixture(t)
	out := execute(t, h, `await github.create_issue({ title: "ship it \ud83d\ude80 \\ud800 \u00e9" }); 1`)
	wantStatus(t, out, codetool.StatusPaused)
	if want := `{"title":"ship it 🚀 \\ud800 é"}`; string(out.Pending[0].Args) != want {
		t.Fatalf("recorded %s, want %s", out.Pending[0].Args, want)
	}
	done, err := h.ApproveShown(context.Background(), out.ExecutionID, durable.ShownDigest(out.Pending))
	if err != nil || done.Status != codetool.StatusCompleted || svc.count("create_issue") != 1 {
		t.Fatalf("approval: %+v, %v; create_issue ran %d times", done, err, svc.count("create_issue"))
	}
}
