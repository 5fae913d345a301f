package journalui_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/journalui"
)

// A page whose connectors are configured otherwise than the run's (here
// another base URL) says how, on the list and on the run, and its approve
// button is disabled with that reason: it would be refused.
func TestBrowserWithAnotherConfigurationOffersNoApproval(t *testing.T) {
	_, page, _, out := runUnderAnotherConfiguration(t, "http://127.0.0.1:9/")
	srv := serve(t, newUI(t, journalui.Options{}, page))
	ctx := tab(t)
	for _, at := range []string{"/", "/executions/" + out.ExecutionID} {
		run(t, ctx, chromedp.Navigate(srv.URL+at))
		screenshot(t, ctx, strings.Trim(strings.ReplaceAll(at, "/", "-"), "-")+"page")
		if !eval[bool](t, ctx, `document.querySelector("button.approve").disabled`) {
			t.Errorf("%s: the approve button is enabled on a page configured otherwise than the run", at)
		}
		reason := eval[string](t, ctx, `document.getElementById(document.querySelector("button.approve").getAttribute("aria-describedby")).textContent`)
		if !strings.Contains(reason, `github base URL "https://api.github.com", now "http://127.0.0.1:9/"`) {
			t.Errorf("%s: the disabled button's reason reads %q", at, reason)
		}
	}
}

// runUnderAnotherConfiguration starts the triage run with the github base
// URL https://api.github.com, paused at its approval, and returns its
// handle, a handle of the same journal whose base URL is pageURL (a page
// configured otherwise), the service its tools call, and the paused answer.
func runUnderAnotherConfiguration(t *testing.T, pageURL string) (started, page *durable.Handle, svc *tracker, out codetool.Answer) {
	t.Helper()
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	svc = &tracker{}
	started, err := durable.New(st, executor(t), svc.github(), durable.Options{Configuration: map[string]string{"github base URL": "https://api.github.com"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err = started.Execute(context.Background(), triage)
	if err != nil || out.Status != "paused" {
		t.Fatalf("Execute = %+v, %v", out, err)
	}
	page, err = durable.New(st, executor(t), svc.github(), durable.Options{Configuration: map[string]string{"github base URL": pageURL}})
	if err != nil {
		t.Fatal(err)
	}
	return started, page, svc, out
}
