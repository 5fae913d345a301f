package journalui_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/journalui"
)

// The browser tests drive the page in a real headless Chromium (Debian's
// chromium package). They skip when no Chromium is installed, unless
// CODEMODE_REQUIRE_CHROMIUM=1 (CI). Screenshots of every page go to
// $JOURNALUI_SCREENSHOTS when set, else under the test's temporary folder.

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
)

func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab opens a new tab of the shared headless browser, closed with the test.
func tab(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CODEMODE_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("Chromium is not installed (apt-get install chromium) and CODEMODE_REQUIRE_CHROMIUM=1")
		}
		t.Skip("Chromium is not installed (apt-get install chromium); set CODEMODE_REQUIRE_CHROMIUM=1 to make this a failure")
	}
	browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.DisableGPU,
			chromedp.WindowSize(1280, 900),
		)
		if os.Geteuid() == 0 {
			opts = append(opts, chromedp.NoSandbox) // Chromium refuses to sandbox as root (CI runs as root)
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		browserCtx = ctx
		browserCancel = func() { cancel(); cancelAlloc() }
		browserErr = chromedp.Do(ctx) // starts the browser
	})
	if browserErr != nil {
		t.Fatalf("starting Chromium: %v", browserErr)
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	return tctx
}

func stopBrowser() {
	if browserCancel != nil {
		browserCancel()
	}
}

func run(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// click clicks a submit button and waits for the page the form leads to.
func click(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("clicking %s: %v", css, err)
	}
	if res.Status >= 400 {
		t.Fatalf("clicking %s: HTTP %d", css, res.Status)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// waitFor waits until the JavaScript predicate is true.
func waitFor(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v", js, err)
	}
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`(document.querySelector(%q) || {textContent: ""}).textContent`, css))
}

// screenshot writes the whole page as a PNG.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 makes a PNG; below, a JPEG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("JOURNALUI_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func browse(t *testing.T, f *fixture, opts journalui.Options) (*httptest.Server, context.Context) {
	t.Helper()
	if opts.PollInterval == 0 {
		opts.PollInterval = 100 * time.Millisecond
	}
	srv := serve(t, newUI(t, opts, f.h))
	return srv, tab(t)
}

func TestBrowserListAndOpen(t *testing.T) {
	f := newFixture(t)
	done := f.execute(t, `async () => { console.log("reading"); return (await github.list_pull_requests({ repo: "acme/app" })).map(p => p.title) }`)
	paused := f.paused(t, triage)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/"))
	waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
	screenshot(t, ctx, "list")
	if n := eval[int](t, ctx, `document.querySelectorAll("table.executions tbody tr").length`); n != 2 {
		t.Errorf("the list shows %d executions, want 2", n)
	}
	if s := text(t, ctx, fmt.Sprintf(`tr[data-execution=%q] .badge`, paused)); s != "awaits approval" {
		t.Errorf("the paused run's status reads %q", s)
	}
	if s := text(t, ctx, `#pending .pending-run .call`); s != "github.create_issue" {
		t.Errorf("the pending action reads %q", s)
	}
	res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`tr[data-execution=%q] a`, done.ExecutionID))))
	if err != nil || res.Status != http.StatusOK {
		t.Fatalf("opening the execution: %v %v", res, err)
	}
	screenshot(t, ctx, "detail")
	if s := text(t, ctx, "#status"); s != "completed" {
		t.Errorf("status %q", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#code li").length`); n != 1 {
		t.Errorf("the code has %d numbered lines, want 1", n)
	}
	if s := text(t, ctx, "#result"); !strings.Contains(s, `"Fix acme/app"`) {
		t.Errorf("result %q", s)
	}
	if s := text(t, ctx, "#console"); s != "reading" {
		t.Errorf("console %q", s)
	}

	// The filter keeps one status.
	run(t, ctx, chromedp.Navigate(srv.URL+"/?status=completed"))
	if n := eval[int](t, ctx, `document.querySelectorAll("table.executions tbody tr").length`); n != 1 {
		t.Errorf("?status=completed shows %d rows", n)
	}
}

func TestBrowserApproveShowsTheReplaysEffect(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, triage)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	screenshot(t, ctx, "paused")
	if s := text(t, ctx, `tr[data-seq="2"] .badge`); s != "awaits approval" {
		t.Fatalf("action 2 is %q before approval", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#code li").length`); n != 7 {
		t.Errorf("the code has %d numbered lines, want 7", n)
	}
	click(t, ctx, "#approve")
	screenshot(t, ctx, "approved")
	if s := text(t, ctx, "#status"); s != "completed" {
		t.Fatalf("status after approval %q", s)
	}
	if s := text(t, ctx, `tr[data-seq="2"] .badge`); s != "done" {
		t.Errorf("action 2 is %q after approval", s)
	}
	if s := text(t, ctx, `tr[data-seq="2"] td:nth-child(5)`); !strings.Contains(s, `"id": 101`) || !strings.Contains(s, "Triage 2 pull requests") {
		t.Errorf("seq 2's result reads %q", s)
	}
	if s := text(t, ctx, "#console"); !strings.Contains(s, "created issue 101") {
		t.Errorf("console %q", s)
	}
	if s := text(t, ctx, ".notice"); s != "Approved: the action ran and the run completed." {
		t.Errorf("notice %q", s)
	}
	if created, _ := f.svc.snapshot(); len(created) != 1 {
		t.Errorf("the connector created %q, want one issue", created)
	}
}

func TestBrowserRejectFromTheList(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, triage)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/"))
	click(t, ctx, fmt.Sprintf(`.pending-run[data-execution=%q] button.reject`, id))
	screenshot(t, ctx, "rejected")
	if s := text(t, ctx, "#status"); s != "rejected" {
		t.Fatalf("status after reject %q", s)
	}
	if s := text(t, ctx, "#error"); s != "Action github.create_issue rejected by user" {
		t.Errorf("error %q", s)
	}
	if created, _ := f.svc.snapshot(); len(created) != 0 {
		t.Errorf("a rejected action ran: %q", created)
	}
}

func TestBrowserRollback(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, triage)
	if out, err := f.h.Approve(context.Background(), id); err != nil || out.Status != codetool.StatusCompleted {
		t.Fatalf("approve: %+v %v", out, err)
	}
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	// The rollback is behind a preview: which actions, which revert, in
	// which order, and a button that says what it does.
	if eval[bool](t, ctx, `document.getElementById("rollback").checkVisibility()`) {
		t.Error("the rollback button is offered before its preview is opened")
	}
	run(t, ctx, chromedp.Click(chromedp.CSS("#rollback-preview summary")))
	screenshot(t, ctx, "rollback-preview")
	if s := text(t, ctx, "#rollback-preview ol"); !strings.Contains(s, "action 2, github.create_issue: undone by its revert") || !strings.Contains(s, "action 1, github.list_pull_requests: stays (no revert)") ||
		strings.Index(s, "action 2") > strings.Index(s, "action 1") {
		t.Errorf("the rollback preview reads %q, want action 2 undone first and action 1 staying", s)
	}
	if s := text(t, ctx, "#rollback"); s != "Undo 1 action" {
		t.Errorf("the rollback button reads %q", s)
	}
	click(t, ctx, "#rollback")
	screenshot(t, ctx, "rolled-back")
	if s := text(t, ctx, "#status"); s != "rolled back" {
		t.Fatalf("status after rollback %q", s)
	}
	if s := text(t, ctx, `tr[data-seq="2"] .badge`); s != "undone" {
		t.Errorf("action 2 is %q after rollback", s)
	}
	if s := text(t, ctx, "#result"); !strings.Contains(s, "Triage 2 pull requests") {
		t.Errorf("the result is gone after the rollback: %q", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#rollback").length`); n != 0 {
		t.Errorf("the rollback button is still offered")
	}
	if _, reverted := f.svc.snapshot(); len(reverted) != 1 {
		t.Errorf("reverted %q", reverted)
	}
}

func TestBrowserUpdatesLiveWhenAnotherProcessPauses(t *testing.T) {
	f := newFixture(t)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/"))
	waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
	eval[bool](t, ctx, `window.sameDocument = true`)
	id := pauseInAnotherProcess(t, f.path, "triage")
	waitFor(t, ctx, fmt.Sprintf(`!!document.querySelector('.pending-run[data-execution=%q]')`, id))
	screenshot(t, ctx, "list-after-pause")
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the page reloaded instead of updating in place")
	}

	// The execution's page follows a change made by another handle too.
	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
	eval[bool](t, ctx, `window.sameDocument = true`)
	other := newHandle(t, openStore(t, f.path), &tracker{})
	if out, err := other.Approve(context.Background(), id); err != nil || out.Status != codetool.StatusCompleted {
		t.Fatalf("approve from another handle: %+v %v", out, err)
	}
	waitFor(t, ctx, `document.getElementById("status").textContent === "completed"`)
	screenshot(t, ctx, "detail-after-remote-approval")
	if !eval[bool](t, ctx, `window.sameDocument === true`) {
		t.Error("the execution page reloaded instead of updating in place")
	}
}

func TestBrowserRendersScriptInjectionInert(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, hostile)
	srv, ctx := browse(t, f, journalui.Options{})
	for _, path := range []string{"/", "/executions/" + id} {
		run(t, ctx, chromedp.Navigate(srv.URL+path))
		waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
		screenshot(t, ctx, strings.Trim(strings.ReplaceAll(path, "/", "-"), "-")+"page")
		if title := eval[string](t, ctx, `document.title`); strings.Contains(title, "pwned") {
			t.Errorf("%s: the injected script ran (title %q)", path, title)
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("#live img, #live script").length`); n != 0 {
			t.Errorf("%s: the arguments became %d elements", path, n)
		}
		if s := text(t, ctx, "#pending .tree"); !strings.Contains(s, `<script>document.title='pwned'</script>`) {
			t.Errorf("%s: the arguments are not shown as text: %q", path, s)
		}
	}
}

// nonLoopbackIP returns an address of this machine that is not loopback,
// or "" when it has none.
func nonLoopbackIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

func TestBrowserLoginIsRequiredOffLoopback(t *testing.T) {
	ip := nonLoopbackIP()
	if ip == "" {
		t.Skip("this machine has no non-loopback IPv4 address")
	}
	f := newFixture(t)
	id := f.paused(t, triage)
	const secret = "s3cret-token-for-the-test"
	ui := newUI(t, journalui.Options{Token: secret, PollInterval: 100 * time.Millisecond}, f.h)
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: ui}}
	srv.Start()
	t.Cleanup(func() { ui.Close(); srv.Close() })
	ctx := tab(t)

	run(t, ctx, chromedp.Navigate(srv.URL+"/executions/"+id))
	if loc := eval[string](t, ctx, `location.pathname`); loc != "/login" {
		t.Fatalf("without a session the page is %s, want /login", loc)
	}
	screenshot(t, ctx, "login")
	run(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), "wrong"))
	if res, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#login"))); err != nil || res.Status != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %v %v", res, err)
	}
	if s := text(t, ctx, ".problem"); !strings.Contains(s, "not the one") {
		t.Errorf("a wrong token: %q", s)
	}
	run(t, ctx, chromedp.SendKeys(chromedp.CSS("#token"), secret))
	click(t, ctx, "#login")
	if loc := eval[string](t, ctx, `location.pathname`); loc != "/executions/"+id {
		t.Fatalf("after login the page is %s", loc)
	}
	waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
	screenshot(t, ctx, "after-login")
	if cookie := eval[string](t, ctx, `document.cookie`); cookie != "" {
		t.Errorf("the session cookie is readable by scripts: %q", cookie)
	}
	click(t, ctx, "#approve")
	if s := text(t, ctx, "#status"); s != "completed" {
		t.Errorf("status after approval %q", s)
	}
}

// A live update must not put another decision under the person's cursor.
// The list showed the newest pause first, so a program that paused a new
// run (an agent can start runs at will) pushed every pending run down and
// put its own approve button, of the same height, where the button the
// person was about to click had been (an adversarial review, December
// 2026). Pauses are listed oldest first now, so a new one goes below; and
// a decision button that is new or has moved is held (disabled) for a
// moment after an update, so that a click meant for what was there does
// not land on it.
func TestBrowserLiveUpdateKeepsDecisionsInPlace(t *testing.T) {
	f := newFixture(t)
	first := f.paused(t, triage)
	srv, ctx := browse(t, f, journalui.Options{})
	run(t, ctx, chromedp.Navigate(srv.URL+"/"))
	waitFor(t, ctx, `document.getElementById("conn").textContent === "live"`)
	eval[bool](t, ctx, fmt.Sprintf(`(() => {
  const r = document.querySelector('.pending-run[data-execution=%q] button.approve').getBoundingClientRect();
  window.spot = [r.x + r.width / 2, r.y + r.height / 2];
  window.armed = [];
  new MutationObserver(ms => { for (const m of ms) for (const n of m.addedNodes) if (n.querySelectorAll)
    for (const b of n.querySelectorAll("button.approve, button.reject")) if (!b.disabled) window.armed.push(b.closest(".pending-run").dataset.execution);
  }).observe(document.body, { childList: true, subtree: true });
  return true; })()`, first))
	second := f.paused(t, triage)
	waitFor(t, ctx, fmt.Sprintf(`!!document.querySelector('.pending-run[data-execution=%q]')`, second))
	under := eval[string](t, ctx, `(() => { const e = document.elementFromPoint(window.spot[0], window.spot[1]);
  const b = e && e.closest("button"); if (!b) return "nothing";
  return (b.disabled ? "disabled " : "") + b.className + " of " + b.closest(".pending-run").dataset.execution; })()`)
	if under != "approve of "+first {
		t.Errorf("after a new pause, the place of %s's approve button holds the %s (the new run is %s)", first, under, second)
	}
	if armed := eval[[]string](t, ctx, `window.armed`); slices.Contains(armed, second) {
		t.Errorf("the new run's decision buttons could be clicked the moment they appeared (armed at insertion: %q)", armed)
	}
	// The hold ends: the new run can be decided.
	waitFor(t, ctx, fmt.Sprintf(`!document.querySelector('.pending-run[data-execution=%q] button.approve').disabled`, second))
}
