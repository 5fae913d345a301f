package journalui_test

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/journalui"
)

// programFixture is a journal whose handle approves each program before
// it runs (durable.Options.ApprovePrograms).
func programFixture(t *testing.T) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	svc := &tracker{}
	h, err := durable.New(openStore(t, path), executor(t), svc.github(), durable.Options{ApprovePrograms: true})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{path: path, h: h, svc: svc}
}

// A run started with program approval waits, before anything runs, for a
// person to approve its whole program: the page shows the program line by
// line (from what the approval's digest covers), says nothing has run,
// and offers "Approve program and run" and a reject that runs nothing.
// Approving runs it up to the action its policy still holds; the page
// says so. The list offers the same; rejecting there runs nothing. The
// page passes axe-core.
func TestBrowserApprovesAProgramBeforeItRuns(t *testing.T) {
	axe := axeScript(t)
	f := programFixture(t)
	id := f.paused(t, triage)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	screenshot(t, ctx, "program-awaits-approval")
	if s := text(t, ctx, "#approve"); s != "Approve program and run" {
		t.Errorf("the approve button reads %q", s)
	}
	if s := text(t, ctx, "#reject-0"); s != "Reject: nothing runs" {
		t.Errorf("the reject button reads %q", s)
	}
	if s := eval[string](t, ctx, `[...document.querySelectorAll("#pending ol.program li")].map(li => li.textContent).join("\n")`); s != triage {
		t.Errorf("the page shows the program as\n%s\nwant\n%s", s, triage)
	}
	if s := text(t, ctx, "#pending .explain"); !strings.Contains(s, "Nothing has run yet") {
		t.Errorf("the page does not say nothing has run: %q", s)
	}
	checkAccessibility(t, ctx, axe, "the program awaiting approval")
	click(t, ctx, "#approve")
	screenshot(t, ctx, "program-approved")
	if s := text(t, ctx, "#notice"); s != "Approved: the program started, and paused at an action that needs approval, shown below for your decision." {
		t.Errorf("after the approval the notice reads %q", s)
	}
	if s := text(t, ctx, "#pending .tree"); !strings.Contains(s, "Triage 2 pull requests") {
		t.Errorf("after the approval the pending action reads %q", s)
	}
	if s := text(t, ctx, "#earlier"); !strings.Contains(s, "the program itself (approved before it ran)") {
		t.Errorf("the earlier approvals read %q", s)
	}

	other := f.paused(t, triage)
	run(t, ctx, chromedp.Navigate(srv.URL+"/"))
	group := `.pending-run[data-execution="` + other + `"]`
	if s := text(t, ctx, group+" button.approve"); s != "Approve program and run" {
		t.Errorf("the list's approve button reads %q", s)
	}
	screenshot(t, ctx, "program-in-list")
	if s := text(t, ctx, `tr[data-execution="`+other+`"]`); !strings.Contains(s, "awaits approval: its program, before it runs") {
		t.Errorf("the list's row reads %q", s)
	}
	if s := text(t, ctx, group+" form.decide .muted"); !strings.Contains(s, "Nothing has run yet") {
		t.Errorf("the list says %q beside the approve button", s)
	}
	click(t, ctx, group+" button.reject")
	if e := f.record(t, other); e.Status != store.StatusRejected {
		t.Errorf("after the list's reject the run is %s", e.Status)
	}
	if created, _ := f.svc.snapshot(); len(created) != 0 {
		t.Errorf("created %q: nothing was approved to run", created)
	}
	if e := f.record(t, id); e.Status != store.StatusPaused || e.Passes != 1 {
		t.Errorf("the approved run is %s after %d passes", e.Status, e.Passes)
	}
}

// The page approves only the program it showed: its form carries the
// digest of the program on the page, and an approval carrying another
// program's is refused, the run left waiting, nothing run.
func TestProgramApprovalIsBoundToTheProgramShown(t *testing.T) {
	f := programFixture(t)
	id := f.paused(t, triage)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	c := srv.Client()
	_, page := get(t, c, srv.URL+"/executions/"+id)
	if shown := durable.ShownDigest(pendingOf(f.record(t, id))); !strings.Contains(page, `name="shown" value="`+shown+`"`) {
		t.Fatalf("the form does not carry the digest %s of the program shown", shown)
	}
	other := programFixture(t)
	stale := durable.ShownDigest(pendingOf(other.record(t, other.paused(t, hostile))))
	res, body := post(t, c, srv.URL+"/executions/"+id+"/approve", url.Values{"csrf": {csrfOf(t, page)}, "shown": {stale}}, nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "Not approved") {
		t.Fatalf("an approval of another program: %s", res.Status)
	}
	if e := f.record(t, id); e.Status != store.StatusPaused || e.Passes != 0 {
		t.Fatalf("after the refused approval: %s, %d passes", e.Status, e.Passes)
	}
}

// trojan hides statements from a reader of its text: JavaScript ends a
// line at a carriage return and at U+2028 and U+2029, which a page that
// splits lines at "\n" shows inside one comment line, and a right-to-left
// override (U+202E) makes a line read otherwise than it runs. Each of the
// three console.log calls runs.
const trojan = "const ok = 1;\n" +
	"// a comment \u2028 console.log(\"after U+2028\");\n" +
	"// a comment \r console.log(\"after CR\");\n" +
	"// a comment \u2029 console.log(\"after U+2029\");\n" +
	"/* \u202e } */ console.log(\"bidi\");\n" +
	"ok"

// The program a person approves is shown as it runs: a line for each line
// JavaScript reads (a carriage return, U+2028 and U+2029 end one), and the
// characters that hide or reorder text escaped (an adversarial review
// hid three calls in comments of a program the page said was shown
// "exactly as it will run"). The Code section of the run shows it so too.
func TestProgramShownLineByLineAsItRuns(t *testing.T) {
	f := programFixture(t)
	id := f.paused(t, trojan)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	for _, path := range []string{"/executions/" + id, "/"} {
		_, page := get(t, srv.Client(), srv.URL+path)
		for _, hidden := range []string{"\u2028", "\u2029", "\r", "\u202e"} {
			if strings.Contains(page, hidden) {
				t.Errorf("GET %s: the page holds %q as it is", path, hidden)
			}
		}
		for _, line := range []string{
			`<li><code>// a comment </code></li><li><code> console.log(&#34;after U&#43;2028&#34;);</code></li>`,
			`<li><code>// a comment </code></li><li><code> console.log(&#34;after CR&#34;);</code></li>`,
			`<li><code>// a comment </code></li><li><code> console.log(&#34;after U&#43;2029&#34;);</code></li>`,
			`<li><code>/* \u202e } */ console.log(&#34;bidi&#34;);</code></li>`,
		} {
			if !strings.Contains(page, line) {
				t.Errorf("GET %s: the program is not shown with the line(s)\n%s\nin\n%s", path, line, page)
			}
		}
	}
}
