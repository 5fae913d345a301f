package journalui_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/journalui"
)

// The decisions a person makes on the page, tried as a new user would
// (screenshots under $JOURNALUI_SCREENSHOTS) and attacked as an adversary
// would: nothing that is approved is hidden, every button says what it
// does, and after a click the page says what really happened.

// padded pads the memo so that the recipient, recorded after it (keys are
// kept sorted), would be past any cut.
const padded = `async () => {
  // Send a gift
  const args = { title: "gift", memo: "pad ".repeat(6000), to: "mallory" };
  await github.create_issue(args);
}`

// loop pauses once per pass of the loop.
const loop = `async () => {
  // File one issue per release
  for (const v of ["v1", "v2", "v3"]) await github.create_issue({ title: "release " + v });
}`

// parallel asks for two actions at once.
const parallel = `async () => {
  await Promise.all([github.create_issue({ title: "left" }), github.create_issue({ title: "right" })]);
}`

func TestBrowserShowsEveryArgumentBeforeApproval(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, padded)
	srv, ctx := browse(t, f, journalui.Options{})
	for _, page := range []string{"/", "/executions/" + id} {
		run(t, ctx, chromedp.Navigate(srv.URL+page))
		// Every key is on the page, visible; the long memo is folded.
		if s := eval[string](t, ctx, `document.querySelector("#pending .tree").innerText`); !strings.Contains(s, `"to": "mallory"`) || !strings.Contains(s, "show all 24000 characters") {
			t.Errorf("%s: the arguments read %q, want the recipient visible and the memo folded", page, cut(s, 300))
		}
	}
	screenshot(t, ctx, "folded")
	// The folded memo opens to show all of it.
	run(t, ctx, chromedp.Click(chromedp.CSS("#pending details.long summary")))
	if n := eval[int](t, ctx, `document.querySelector("#pending details.long pre").innerText.length`); n != 24002 {
		t.Errorf("the opened memo shows %d characters, want 24002 (quoted)", n)
	}
	screenshot(t, ctx, "unfolded")
	click(t, ctx, "#approve")
	if s := text(t, ctx, "#notice"); s != "Approved: the action ran and the run completed." {
		t.Errorf("notice %q", s)
	}
}

func TestBrowserApprovingALoopSaysItPausedAgain(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, loop)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	if s := text(t, ctx, "h1 .title"); s != "File one issue per release" {
		t.Errorf("the run's title reads %q", s)
	}
	if s := text(t, ctx, "#pending .explain"); !strings.Contains(s, "may pause again") || !strings.Contains(s, "line 3") {
		t.Errorf("the page does not say what approving does, or where the program waits: %q", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#code li.calls").length`); n != 1 {
		t.Errorf("%d lines of the code are marked, want the one that calls", n)
	}
	screenshot(t, ctx, "first-pause")
	for i, want := range []string{"release v2", "release v3"} {
		click(t, ctx, "#approve")
		screenshot(t, ctx, fmt.Sprintf("paused-again-%d", i+1))
		if s := text(t, ctx, "#notice"); !strings.Contains(s, "paused again at its next action") {
			t.Fatalf("after approval %d the notice reads %q", i+1, s)
		}
		if s := text(t, ctx, "#status"); s != "awaits approval" {
			t.Errorf("after approval %d the status reads %q", i+1, s)
		}
		if s := text(t, ctx, "#pending .tree"); !strings.Contains(s, want) {
			t.Errorf("after approval %d the pending action reads %q, want %q", i+1, s, want)
		}
		if s := text(t, ctx, "#earlier"); strings.Count(s, "github.create_issue (done)") != i+1 {
			t.Errorf("after approval %d the earlier approvals read %q", i+1, s)
		}
	}
	click(t, ctx, "#approve")
	if s := text(t, ctx, "#notice"); s != "Approved: the action ran and the run completed." {
		t.Errorf("the last approval's notice reads %q", s)
	}
	if s := eval[string](t, ctx, `document.activeElement.id`); s != "notice" {
		t.Errorf("after the click the focus is on %q, not on what happened", s)
	}
	if created, _ := f.svc.snapshot(); len(created) != 3 {
		t.Errorf("created %q, want 3 issues", created)
	}
}

func TestBrowserRejectOneOfTwoParallelActions(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, parallel)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	screenshot(t, ctx, "two-pending")
	if s := text(t, ctx, "#approve"); s != "Approve all 2 and continue" {
		t.Errorf("the approve button reads %q", s)
	}
	seqs := eval[[]float64](t, ctx, `[...document.querySelectorAll("#pending .action")].map(a => +a.dataset.seq)`)
	if len(seqs) != 2 {
		t.Fatalf("%d pending actions shown, want 2", len(seqs))
	}
	if s := text(t, ctx, "#pending .explain"); !strings.Contains(s, "Rejecting any of them ends the whole run: none of these actions runs") {
		t.Errorf("the page does not say what rejecting one of two does: %q", s)
	}
	reject := fmt.Sprintf("#reject-%d", int(seqs[0]))
	if s := text(t, ctx, reject); s != "Reject and end the run" {
		t.Errorf("the reject button reads %q", s)
	}
	click(t, ctx, reject)
	screenshot(t, ctx, "rejected")
	if s := text(t, ctx, "#notice"); !strings.HasPrefix(s, "Rejected: the run ended and the action did not run.") {
		t.Errorf("notice %q", s)
	}
	if s := text(t, ctx, "#status"); s != "rejected" {
		t.Errorf("status %q", s)
	}
	for i, want := range []string{"rejected", "not run"} {
		if s := text(t, ctx, fmt.Sprintf(`tr[data-seq="%d"] .badge`, int(seqs[i]))); s != want {
			t.Errorf("action %d reads %q, want %q", int(seqs[i]), s, want)
		}
	}
	if created, _ := f.svc.snapshot(); len(created) != 0 {
		t.Errorf("an action of a rejected run ran: %q", created)
	}
}

// A click on a page someone else has overtaken does not approve: the page
// says what happened instead (no live updates here, so the page is stale).
func TestBrowserSaysWhenSomeoneElseDecidedFirst(t *testing.T) {
	tests := []struct {
		name, code, want, status string
		meanwhile                func(h *durable.Handle, id string) error
	}{
		{"rejected meanwhile", triage, "Not approved: the run no longer awaits approval", "rejected", func(h *durable.Handle, id string) error {
			ok, err := h.Reject(context.Background(), id, 2)
			if !ok && err == nil {
				err = errors.New("not rejected")
			}
			return err
		}},
		{"approved meanwhile, paused again", loop, "Not approved: the actions awaiting approval changed", "awaits approval", func(h *durable.Handle, id string) error {
			_, err := h.Approve(context.Background(), id)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			id := f.paused(t, tt.code)
			srv, ctx := browse(t, f, journalui.Options{PollInterval: time.Hour})
			run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
			// Connected and read once: the next read is an hour away.
			waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
			if err := tt.meanwhile(f.h, id); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#approve"))); err != nil {
				t.Fatal(err)
			}
			screenshot(t, ctx, "overtaken")
			if s := text(t, ctx, ".problem"); !strings.HasPrefix(s, tt.want) {
				t.Errorf("the page reads %q, want %q", s, tt.want)
			}
			if s := text(t, ctx, "#notice"); s != "" {
				t.Errorf("the page also says %q", s)
			}
			if s := text(t, ctx, "#status"); s != tt.status {
				t.Errorf("status %q, want %q", s, tt.status)
			}
			if s := eval[string](t, ctx, `location.pathname`); s != "/executions/"+id {
				t.Errorf("the refused approval's page is at %s, not the run's address", s)
			}
		})
	}
}

// A reject that wins against an approval's replay (the replay is held
// before the program reaches the approved action) is what the page says
// after the click: the action did not run, not "Approved".
func TestBrowserSaysARejectWonAgainstTheApproval(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, `async () => {
  await github.wait({ repo: "hold" });
  await github.create_issue({ title: "contested" });
}`)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	entered, release := make(chan struct{}), make(chan struct{})
	f.svc.mu.Lock()
	f.svc.gate = func() { close(entered); <-release }
	f.svc.mu.Unlock()
	clicked := make(chan error, 1)
	go func() {
		_, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#approve")))
		clicked <- err
	}()
	select {
	case <-entered:
	case err := <-clicked:
		t.Fatalf("the approval ended before its replay reached the held call: %v", err)
	}
	ok, err := f.h.Reject(context.Background(), id, 2)
	close(release)
	if err != nil || !ok {
		t.Fatalf("the reject during the replay: %v %v", ok, err)
	}
	if err := <-clicked; err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "reject-won")
	if s := text(t, ctx, "#notice.warn"); !strings.HasPrefix(s, "Not run: someone else rejected the run") {
		t.Errorf("the warning reads %q", s)
	}
	if s := text(t, ctx, "#status"); s != "rejected" {
		t.Errorf("status %q", s)
	}
	if created, _ := f.svc.snapshot(); len(created) != 0 {
		t.Errorf("the contested action ran: %q", created)
	}
}

func TestBrowserWithoutTheConnectorsOffersNoApproval(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, triage)
	noop := must(contract.NewTool("noop", "Does nothing.", func(ctx context.Context, in repoIn) (pull, error) { return pull{}, nil }))
	c := must(contract.NewNamespaced(contract.Namespace{Name: "other", Tools: []*contract.Tool{noop}}))
	bare, err := durable.New(openStore(t, f.path), executor(t), c, durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, newUI(t, journalui.Options{}, bare))
	ctx := tab(t)
	for _, page := range []string{"/", "/executions/" + id} {
		run(t, ctx, chromedp.Navigate(srv.URL+page))
		screenshot(t, ctx, strings.Trim(strings.ReplaceAll(page, "/", "-"), "-")+"page")
		if !eval[bool](t, ctx, `document.querySelector("button.approve").disabled`) {
			t.Errorf("%s: the approve button is enabled on a page without the run's connectors", page)
		}
		if s := eval[string](t, ctx, `document.getElementById(document.querySelector("button.approve").getAttribute("aria-describedby")).textContent`); !strings.Contains(s, "without the connector(s) github") {
			t.Errorf("%s: the disabled button's reason reads %q", page, s)
		}
	}
}

// axePath is axe-core's script, installed by scripts/test.
var axePath = filepath.Join("..", ".tools", "node_modules", "axe-core", "axe.min.js")

// TestBrowserPagesPassAnAccessibilityCheck runs axe-core in every page (a
// list with a pause, a paused run with a folded argument, a rolled-back
// run, the login page): no serious or critical violation.
func TestBrowserPagesPassAnAccessibilityCheck(t *testing.T) {
	axe := axeScript(t)
	f := newFixture(t)
	paused := f.paused(t, padded)
	done := f.paused(t, triage)
	if _, err := f.h.Approve(context.Background(), done); err != nil {
		t.Fatal(err)
	}
	if err := f.h.Rollback(context.Background(), done); err != nil {
		t.Fatal(err)
	}
	uncertain := f.uncertain(t) // its "it happened" form
	srv, ctx := browse(t, f, journalui.Options{})
	login := serve(t, newUI(t, journalui.Options{Token: "t"}, f.h))
	for _, page := range []string{srv.URL + "/", srv.URL + "/executions/" + paused, srv.URL + "/executions/" + done, srv.URL + "/executions/" + uncertain, login.URL + "/login"} {
		run(t, ctx, chromedp.Navigate(page))
		checkAccessibility(t, ctx, axe, page)
	}
}

// axeScript is axe-core's script, or skips the test (fails it with
// CODEMODE_REQUIRE_AXE=1) when it is not installed.
func axeScript(t *testing.T) []byte {
	t.Helper()
	axe, err := os.ReadFile(axePath)
	if err != nil {
		if os.Getenv("CODEMODE_REQUIRE_AXE") == "1" {
			t.Fatalf("axe-core is not installed (scripts/test installs it): %v", err)
		}
		t.Skipf("axe-core is not installed (scripts/test installs it); set CODEMODE_REQUIRE_AXE=1 to make this a failure: %v", err)
	}
	return axe
}

// checkAccessibility runs axe in the tab's page: a serious or critical
// violation fails the test, others are logged.
func checkAccessibility(t *testing.T, ctx context.Context, axe []byte, page string) {
	t.Helper()
	eval[bool](t, ctx, string(axe)+";true")
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 3)}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: running axe: %v", page, err)
	}
	var violations []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(raw), &violations); err != nil {
		t.Fatalf("%s: axe answered %q: %v", page, raw, err)
	}
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: %s violation %s (%s) at %q", page, v.Impact, v.ID, v.Help, v.Nodes)
		} else {
			t.Logf("%s: %s violation %s (%s) at %q", page, v.Impact, v.ID, v.Help, v.Nodes)
		}
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// The login's next is followed only to a path of this origin: a tab that
// browsers strip ("/\t/evil.example/" becomes "//evil.example/") does not
// lead elsewhere.
func TestBrowserLoginStaysOnThisOrigin(t *testing.T) {
	f := newFixture(t)
	const secret = "s3cret-token-for-the-test"
	srv := serve(t, newUI(t, journalui.Options{Token: secret}, f.h))
	ctx := tab(t)
	run(t, ctx, chromedp.Navigate(srv.URL+"/login?next=%2F%09%2Fevil.example%2F"))
	run(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), secret))
	click(t, ctx, "#login")
	if origin, path := eval[string](t, ctx, `location.origin`), eval[string](t, ctx, `location.pathname`); origin != srv.URL || path != "/" {
		t.Errorf("after the login the page is %s%s, want %s/", origin, path, srv.URL)
	}
}

// A keyboard alone decides: Tab reaches the arguments, then "Reject and
// end the run", then "Approve and continue", in reading order; Enter
// approves, and the focus lands on what happened.
func TestBrowserKeyboardDecides(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, triage)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	var order []string
	for range 80 {
		run(t, ctx, chromedp.KeyEvent("\t"))
		el := eval[string](t, ctx, `(e => e.id || e.tagName.toLowerCase() + (e.closest("#pending") ? "@pending" : ""))(document.activeElement)`)
		order = append(order, el)
		if el == "approve" {
			break
		}
	}
	pos := func(name string) int { return slices.Index(order, name) }
	if pos("summary@pending") < 0 || pos("reject-2") < pos("summary@pending") || pos("approve") < pos("reject-2") {
		t.Fatalf("the focus order is %q: want the arguments, then reject, then approve", order)
	}
	if _, err := chromedp.RunResponse(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	if s := eval[string](t, ctx, `document.activeElement.id`); s != "notice" {
		t.Errorf("after Enter the focus is on %q", s)
	}
	if s := text(t, ctx, "#notice"); s != "Approved: the action ran and the run completed." {
		t.Errorf("notice %q", s)
	}
}
