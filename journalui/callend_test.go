package journalui_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/journalui"
)

type none struct{}

// leaver is a connector whose calls end three ways: slow runs until its
// execution ends, started returns once slow runs (so a program can leave
// slow behind for certain), fail fails.
func leaver() *contract.Contract {
	begun := make(chan struct{}, 1)
	slow := must(contract.NewTool("slow", "Runs until its execution ends.", func(ctx context.Context, _ none) (none, error) {
		begun <- struct{}{}
		<-ctx.Done()
		return none{}, ctx.Err()
	}))
	started := must(contract.NewTool("started", "Returns once slow runs.", func(ctx context.Context, _ none) (none, error) {
		select {
		case <-begun:
			return none{}, nil
		case <-ctx.Done():
			return none{}, ctx.Err()
		}
	}))
	fail := must(contract.NewTool("fail", "Fails.", func(context.Context, none) (none, error) { return none{}, errors.New("upstream is down") }))
	return must(contract.NewNamespaced(contract.Namespace{Name: "svc", Tools: []*contract.Tool{slow, started, fail}}))
}

// The run's actions say how each call ended, in words, beside its state:
// a call the program left behind is abandoned, a failed one failed; a
// completed one needs no words. The page passes the accessibility check.
func TestBrowserSaysHowCallsEnded(t *testing.T) {
	h, err := durable.New(openStore(t, filepath.Join(t.TempDir(), "journal.db")), executor(t), leaver(), durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Execute(context.Background(), `svc.slow({}); await svc.started({}); try { await svc.fail({}) } catch {} return "left"`)
	if err != nil || out.Status != "completed" {
		t.Fatalf("Execute = %+v, %v", out, err)
	}
	srv := serve(t, newUI(t, journalui.Options{}, h))
	ctx := tab(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+out.ExecutionID))
	screenshot(t, ctx, "ends")
	for seq, want := range map[string]string{
		"1": "abandoned: the execution ended before this call finished (the program did not await it, or the run was cancelled)",
		"2": "",
		"3": "failed: the tool failed or refused the call, or answered what its output schema forbids",
	} {
		got := eval[string](t, ctx, `(document.querySelector('#log tr[data-seq="`+seq+`"] .call-end') || {textContent: ""}).textContent`)
		if strings.TrimSpace(got) != want {
			t.Errorf("action %s: the end reads %q, want %q", seq, got, want)
		}
	}
	if axe, err := os.ReadFile(axePath); err == nil { // TestBrowserPagesPassAnAccessibilityCheck says when it is missing
		checkAccessibility(t, ctx, axe, "the run's page")
	}
}
