package journalui_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/journalui"
)

func newUI(t testing.TB, opts journalui.Options, handles ...*durable.Handle) *journalui.Handler {
	t.Helper()
	ui, err := journalui.New(handles, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ui.Close)
	return ui
}

// serve runs the page on a loopback test server.
func serve(t testing.TB, ui *journalui.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(ui)
	srv.Config.RegisterOnShutdown(ui.Close)
	t.Cleanup(func() { ui.Close(); srv.Close() })
	return srv
}

func get(t testing.TB, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in the page:\n%s", page)
	}
	return m[1]
}

func post(t testing.TB, c *http.Client, u string, form url.Values, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestPagesEscapeProgramValuesAndSetAStrictPolicy(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, hostile)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	for _, path := range []string{"/", "/executions/" + id} {
		res, body := get(t, srv.Client(), srv.URL+path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, res.Status, body)
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("GET %s: the policy allows inline code: %q", path, csp)
		}
		if strings.Contains(body, "<script>document") || strings.Contains(body, "<img src=x") {
			t.Errorf("GET %s: tool arguments were rendered as markup:\n%s", path, body)
		}
		if !strings.Contains(body, `&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;`) {
			t.Errorf("GET %s: the arguments are not shown escaped:\n%s", path, body)
		}
		if n := strings.Count(body, "<script"); n != 1 || !strings.Contains(body, `<script src="/static/app.js" defer></script>`) {
			t.Errorf("GET %s: want exactly the one external script, found %d script tags", path, n)
		}
	}
}

func TestListShowsExecutionsAndFiltersByStatus(t *testing.T) {
	f := newFixture(t)
	paused := f.paused(t, triage)
	done := f.execute(t, `async () => (await github.list_pull_requests({ repo: "x" })).length`)
	failed := f.execute(t, `async () => { throw new Error("boom") }`)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	_, all := get(t, srv.Client(), srv.URL+"/")
	for _, id := range []string{paused, done.ExecutionID, failed.ExecutionID} {
		if !strings.Contains(all, `<tr data-execution="`+id+`">`) {
			t.Errorf("the list lacks %s", id)
		}
	}
	for _, want := range []string{"awaits approval: github.create_issue", "result: 2", "boom", "runtime: default"} {
		if !strings.Contains(all, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	_, only := get(t, srv.Client(), srv.URL+"/?status=error")
	if !strings.Contains(only, failed.ExecutionID) || strings.Contains(only, `<tr data-execution="`+done.ExecutionID) {
		t.Errorf("?status=error does not filter:\n%s", only)
	}
	res, body := get(t, srv.Client(), srv.URL+"/?status=nonsense")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `unknown status "nonsense"`) {
		t.Errorf("?status=nonsense: %s %s", res.Status, body)
	}
	res, _ = get(t, srv.Client(), srv.URL+"/executions/exec_0_missing")
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown execution: %s, want 404", res.Status)
	}
}

func TestApproveRejectAndRollbackOverHTTP(t *testing.T) {
	f := newFixture(t)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	id := f.paused(t, triage)
	_, page := get(t, c, srv.URL+"/executions/"+id)
	token := csrfOf(t, page)
	// The form carries the digest of the actions the page showed; an
	// approval of others (the page was stale: another approval moved the
	// run on), or of none, is refused and the run stays paused.
	shown := durable.ShownDigest(pendingOf(f.record(t, id)))
	if !strings.Contains(page, fmt.Sprintf(`name="shown" value="%s"`, shown)) {
		t.Errorf("the approve form does not carry the digest %s of the action shown", shown)
	}
	for _, form := range []url.Values{{"shown": {"0123456789abcdef0123456789abcdef"}}, {"seq": {"2"}}} {
		form.Set("csrf", token)
		res, body := post(t, c, srv.URL+"/executions/"+id+"/approve", form, nil)
		if res.StatusCode/100 != 4 || !strings.Contains(body, "Not approved") || f.record(t, id).Status != store.StatusPaused {
			t.Fatalf("an approval of %v: %s %q, status %s", form, res.Status, body, f.record(t, id).Status)
		}
	}
	res, _ := post(t, c, srv.URL+"/executions/"+id+"/approve", url.Values{"csrf": {token}, "shown": {shown}}, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/executions/"+id+"?done=approved-completed" {
		t.Fatalf("approve: %s -> %q", res.Status, res.Header.Get("Location"))
	}
	if e := f.record(t, id); e.Status != store.StatusCompleted {
		t.Fatalf("after approval the run is %s: %s", e.Status, e.Error)
	}
	_, page = get(t, c, srv.URL+"/executions/"+id+"?done=approved-completed")
	for _, want := range []string{"Approved: the action ran and the run completed.", "created issue 101", `<span class="k">&#34;title&#34;</span>: <span class="v-string">&#34;Triage 2 pull requests&#34;</span>`, "Undo 1 action"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page after approval lacks %q", want)
		}
	}
	res, page = post(t, c, srv.URL+"/executions/"+id+"/approve", url.Values{"csrf": {token}, "shown": {shown}}, nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(page, "the run no longer awaits approval") {
		t.Errorf("a second approval: %s", res.Status)
	}

	res, _ = post(t, c, srv.URL+"/executions/"+id+"/rollback", url.Values{"csrf": {token}}, nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rollback: %s", res.Status)
	}
	if _, reverted := f.svc.snapshot(); len(reverted) != 1 || reverted[0] != "Triage 2 pull requests" {
		t.Errorf("reverted %q", reverted)
	}
	if e := f.record(t, id); e.Status != store.StatusRolledBack {
		t.Errorf("after rollback the run is %s", e.Status)
	}

	other := f.paused(t, triage)
	res, page = post(t, c, srv.URL+"/executions/"+other+"/rollback", url.Values{"csrf": {token}}, nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(page, "Rollback is for ended executions; this one is paused") {
		t.Errorf("rollback of a paused run: %s", res.Status)
	}
	res, page = post(t, c, srv.URL+"/executions/"+other+"/reject", url.Values{"csrf": {token}, "seq": {"9"}}, nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(page, "action 9 no longer awaits approval") {
		t.Errorf("reject of a seq that is not pending: %s", res.Status)
	}
	res, _ = post(t, c, srv.URL+"/executions/"+other+"/reject", url.Values{"csrf": {token}, "seq": {"2"}}, nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reject: %s", res.Status)
	}
	if e := f.record(t, other); e.Status != store.StatusRejected || e.Error != "Action github.create_issue rejected by user" {
		t.Errorf("after reject: %s %q", e.Status, e.Error)
	}
}

func TestStateChangesNeedTheCSRFTokenAndTheSameOrigin(t *testing.T) {
	f := newFixture(t)
	id := f.paused(t, triage)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	_, page := get(t, srv.Client(), srv.URL+"/executions/"+id)
	token := csrfOf(t, page)
	cases := []struct {
		name   string
		form   url.Values
		header http.Header
	}{
		{"no token", url.Values{}, nil},
		{"wrong token", url.Values{"csrf": {strings.Repeat("0", len(token))}}, nil},
		{"other origin", url.Values{"csrf": {token}}, http.Header{"Origin": {"http://evil.example"}}},
		{"opaque origin", url.Values{"csrf": {token}}, http.Header{"Origin": {"null"}}},
		{"cross-site fetch", url.Values{"csrf": {token}}, http.Header{"Sec-Fetch-Site": {"cross-site"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := post(t, srv.Client(), srv.URL+"/executions/"+id+"/approve", c.form, c.header)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %s, want 403", c.name, res.Status)
			}
		})
	}
	res, _ := get(t, srv.Client(), srv.URL+"/executions/"+id+"/approve")
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET approve: %s, want 405", res.Status)
	}
	if e := f.record(t, id); e.Status != store.StatusPaused {
		t.Errorf("a refused request changed the run: %s", e.Status)
	}
}

func TestWithoutATokenOnlyLoopbackIsServed(t *testing.T) {
	f := newFixture(t)
	ui := newUI(t, journalui.Options{}, f.h)
	cases := []struct {
		remote, host string
		want         int
	}{
		{"127.0.0.1:5555", "127.0.0.1:7312", http.StatusOK},
		{"[::1]:5555", "[::1]:7312", http.StatusOK},
		{"127.0.0.1:5555", "localhost:7312", http.StatusOK},
		{"10.1.2.3:5555", "127.0.0.1:7312", http.StatusForbidden},
		{"127.0.0.1:5555", "rebound.example:7312", http.StatusMisdirectedRequest},
	}
	for _, c := range cases {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr, req.Host = c.remote, c.host
		rec := httptest.NewRecorder()
		ui.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("from %s to %s: %d, want %d", c.remote, c.host, rec.Code, c.want)
		}
	}
}

func TestATokenRequiresALogin(t *testing.T) {
	f := newFixture(t)
	const secret = "correct horse battery staple"
	srv := serve(t, newUI(t, journalui.Options{Token: secret}, f.h))
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	res, _ := get(t, c, srv.URL+"/?status=paused")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=%2F%3Fstatus%3Dpaused" {
		t.Fatalf("GET / without login: %s -> %q", res.Status, res.Header.Get("Location"))
	}
	res, _ = get(t, c, srv.URL+"/events")
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("events without login: %s", res.Status)
	}
	_, page := get(t, c, srv.URL+"/login")
	token := csrfOf(t, page)
	res, page = post(t, c, srv.URL+"/login", url.Values{"csrf": {token}, "token": {"wrong"}, "next": {"/"}}, nil)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(page, "not the one this page was started with") {
		t.Errorf("a wrong token: %s", res.Status)
	}
	// After the login only a path of this origin is followed: anything a
	// browser could read as another origin goes to "/".
	_, page = get(t, c, srv.URL+"/login?next=%2F%09%2Fevil.example%2F")
	if !strings.Contains(page, `name="next" value="/"`) {
		t.Errorf("the login page keeps a next that leaves the origin")
	}
	for _, next := range []struct{ give, want string }{
		{"/\t/evil.example/", "/"}, {"//evil.example/", "/"}, {"/\\evil.example", "/"}, {"https://evil.example/", "/"},
		{"/%2F/evil.example", "/"}, {"javascript:alert(1)", "/"}, {"/\n/evil.example", "/"}, {"/?status=paused", "/?status=paused"},
	} {
		_, page = get(t, c, srv.URL+"/login") // the CSRF token follows the session
		res, _ = post(t, c, srv.URL+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {secret}, "next": {next.give}}, nil)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != next.want {
			t.Fatalf("login with next %q: %s -> %q, want %q", next.give, res.Status, res.Header.Get("Location"), next.want)
		}
	}
	u, _ := url.Parse(srv.URL)
	cookies := jar.Cookies(u)
	if len(cookies) != 1 || strings.Contains(cookies[0].Value, secret) {
		t.Fatalf("session cookies %v", cookies)
	}
	res, _ = get(t, c, srv.URL+"/")
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET / after login: %s", res.Status)
	}
	// Someone else's request is served too, once logged in: a token makes
	// the page usable off loopback.
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.RemoteAddr, req.Host = "10.1.2.3:5555", "journal.example:7312"
	req.AddCookie(cookies[0])
	rec := httptest.NewRecorder()
	srv.Config.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("a logged-in remote client: %d", rec.Code)
	}
}

// readEvent reads the next "change" event's data from a server-sent event
// stream.
func readEvent(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
			return data
		}
	}
}

func TestEventsAnnounceAChangeMadeByAnotherHandle(t *testing.T) {
	f := newFixture(t)
	srv := serve(t, newUI(t, journalui.Options{PollInterval: 20 * time.Millisecond}, f.h))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/events?since=stale", nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	r := bufio.NewReader(res.Body)
	first := readEvent(t, r) // "stale" is not the journal's version
	// A second handle on the same file, as another process would have.
	other := newHandle(t, openStore(t, f.path), &tracker{})
	if _, err := other.Execute(context.Background(), triage); err != nil {
		t.Fatal(err)
	}
	if next := readEvent(t, r); next == first {
		t.Errorf("the version did not change: %s", next)
	}
}

func TestCloseEndsEventStreams(t *testing.T) {
	f := newFixture(t)
	ui := newUI(t, journalui.Options{PollInterval: 10 * time.Millisecond}, f.h)
	srv := serve(t, ui)
	res, err := srv.Client().Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	ui.Close()
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, res.Body); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the stream ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the event stream")
	}
}

func TestNewRefusesBadHandles(t *testing.T) {
	f := newFixture(t)
	if _, err := journalui.New(nil, journalui.Options{}); err == nil {
		t.Error("New accepted no handles")
	}
	if _, err := journalui.New([]*durable.Handle{f.h, f.h}, journalui.Options{}); err == nil || !strings.Contains(err.Error(), `two handles have the runtime name "default"`) {
		t.Errorf("two handles of one name: %v", err)
	}
}

// A page whose handle's connectors are configured otherwise than the
// run's (another base URL) refuses the approval, naming the difference;
// the run stays paused and nothing runs.
func TestApproveRefusedWhenTheConfigurationDiffers(t *testing.T) {
	started, page, svc, out := runUnderAnotherConfiguration(t, "https://evil.example")
	srv := serve(t, newUI(t, journalui.Options{}, page))
	c := srv.Client()
	_, body := get(t, c, srv.URL+"/executions/"+out.ExecutionID)
	res, body := post(t, c, srv.URL+"/executions/"+out.ExecutionID+"/approve", url.Values{"csrf": {csrfOf(t, body)}, "shown": {durable.ShownDigest(out.Pending)}}, nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "the tools this page reaches are not those the run recorded") || !strings.Contains(body, "https://evil.example") {
		t.Fatalf("approve: %s\n%s", res.Status, body)
	}
	if e, err := started.Execution(context.Background(), out.ExecutionID); err != nil || e.Status != store.StatusPaused || e.Passes != 1 {
		t.Fatalf("after the refusal: %+v, %v", e, err)
	}
	if created, _ := svc.snapshot(); len(created) != 0 {
		t.Fatalf("created %q", created)
	}
}

// A page whose handle's connectors are configured otherwise than the
// run's disables the rollback of an ended run, saying why, and refuses a
// posted one naming the difference: nothing is undone.
func TestRollbackRefusedWhenTheConfigurationDiffers(t *testing.T) {
	started, page, svc, out := runUnderAnotherConfiguration(t, "https://evil.example")
	out, err := started.Approve(context.Background(), out.ExecutionID)
	if err != nil || out.Status != "completed" {
		t.Fatalf("Approve = %+v, %v", out, err)
	}
	srv := serve(t, newUI(t, journalui.Options{}, page))
	c := srv.Client()
	_, body := get(t, c, srv.URL+"/executions/"+out.ExecutionID)
	if !regexp.MustCompile(`id="rollback"[^>]* disabled aria-describedby="mismatch"`).MatchString(body) || !strings.Contains(body, "so it cannot roll back this run") {
		t.Fatalf("the page offers the rollback:\n%s", body)
	}
	res, body := post(t, c, srv.URL+"/executions/"+out.ExecutionID+"/rollback", url.Values{"csrf": {csrfOf(t, body)}}, nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(body, "Not rolled back") || !strings.Contains(body, "https://evil.example") {
		t.Fatalf("rollback: %s\n%s", res.Status, body)
	}
	if _, reverted := svc.snapshot(); len(reverted) != 0 {
		t.Fatalf("reverted %q", reverted)
	}
	if e, err := started.Execution(context.Background(), out.ExecutionID); err != nil || e.Status != store.StatusCompleted {
		t.Fatalf("after the refusal: %+v, %v", e, err)
	}
}

// TestOrphanedRunsSaySo: a run whose host died while it ran (its record
// running, its lease run out) is marked orphaned on the list and on its
// page, with how it is resumed; a live run is not.
func TestOrphanedRunsSaySo(t *testing.T) {
	f := newFixture(t)
	st := openStore(t, f.path)
	now := time.Now().UnixMilli()
	for _, e := range []*store.Execution{
		{ID: "exec_dead", Code: "await github.list_repos({})", Status: store.StatusRunning, CreatedAt: now - 60_000, UpdatedAt: now - 60_000, LeaseOwner: "gone", LeaseUntil: now - 30_000},
		{ID: "exec_live", Code: "await github.list_repos({})", Status: store.StatusRunning, CreatedAt: now, UpdatedAt: now, LeaseOwner: "here", LeaseUntil: now + 600_000},
	} {
		if _, err := st.CreateExecution(context.Background(), f.h.Name(), e, 0); err != nil {
			t.Fatal(err)
		}
	}
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	_, list := get(t, srv.Client(), srv.URL+"/")
	if n := strings.Count(list, `class="tag orphaned"`); n != 1 || !strings.Contains(list, "as does codemode resume exec_dead") {
		t.Errorf("the list marks %d runs orphaned, want exec_dead alone with how to resume it:\n%s", n, list)
	}
	if _, page := get(t, srv.Client(), srv.URL+"/executions/exec_dead"); !strings.Contains(page, `id="orphaned"`) {
		t.Errorf("exec_dead's page does not say it is orphaned:\n%s", page)
	}
	if _, page := get(t, srv.Client(), srv.URL+"/executions/exec_live"); strings.Contains(page, `id="orphaned"`) {
		t.Errorf("exec_live's page says it is orphaned")
	}
}
