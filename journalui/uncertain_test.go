package journalui_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/journalui"
)

// uncertain leaves a triage run paused with its read (action 1) uncertain,
// as a resume finds it after the approver died in the middle of the
// replayed read: the approval of the write (action 2) recorded, the
// read's record lost.
func (f *fixture) uncertain(t *testing.T) string {
	t.Helper()
	id := f.paused(t, triage)
	st := openStore(t, f.path)
	ctx, dead, approved := context.Background(), time.Now().Add(-time.Minute).UnixMilli(), uint64(2)
	if ok, err := st.TransitionExecution(ctx, f.h.Name(), id, []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: dead, Approved: &approved, Lease: &store.Lease{Owner: "dead-host", Until: dead}}); err != nil || !ok {
		t.Fatalf("orphaning: %v, %v", ok, err)
	}
	if ok, err := st.TransitionEntry(ctx, f.h.Name(), id, 1, []store.EntryState{store.EntryApplied}, store.EntryExecuting, store.EntryUpdate{}); err != nil || !ok {
		t.Fatalf("interrupting: %v, %v", ok, err)
	}
	out, err := f.h.Resume(ctx, id)
	if err != nil || out.Status != codetool.StatusPaused || len(out.Pending) == 0 || !out.Pending[0].Uncertain {
		t.Fatalf("resume: %+v, %v", out, err)
	}
	return id
}

// An uncertain action's pages say that approving runs it again, and offer
// "it happened" with what it returned; the answer is recorded only when it
// is JSON the tool could return, and the program then receives it.
func TestUncertainActionIsAnsweredOnThePage(t *testing.T) {
	f := newFixture(t)
	id := f.uncertain(t)
	srv := serve(t, newUI(t, journalui.Options{}, f.h))
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	for _, page := range []string{"/", "/executions/" + id} {
		_, body := get(t, c, srv.URL+page)
		for _, want := range []string{"Approve all 2 and continue: runs the uncertain action again", `action="/executions/` + id + `/happened"`,
			`name="seq" value="1"`, "It happened: record it and continue"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q", page, want)
			}
		}
		if page != "/" && !strings.Contains(body, `data-status="paused">awaits an answer: did it happen?</span>`) {
			t.Errorf("%s: the run's badge does not say it awaits an answer", page)
		}
		if n := strings.Count(body, `/happened"`); n != 1 {
			t.Errorf("%s offers %d happened forms, want 1 (the uncertain action's)", page, n)
		}
	}
	_, page := get(t, c, srv.URL+"/executions/"+id)
	token := csrfOf(t, page)
	happened := srv.URL + "/executions/" + id + "/happened"
	for _, c2 := range []struct {
		name, result string
		code         int
		want         string
	}{
		{"not JSON", "{", http.StatusBadRequest, "must be JSON"},
		{"null for a list", "", http.StatusBadRequest, "give what it returned, as JSON"},
		{"an object for a list", `{"number":1}`, http.StatusBadRequest, "the tool could not return that"},
		{"another action", `[]`, http.StatusConflict, "Not recorded: action 2 of"},
	} {
		seq := "1"
		if c2.name == "another action" {
			seq = "2"
		}
		res, body := post(t, c, happened, url.Values{"csrf": {token}, "seq": {seq}, "result": {c2.result}}, nil)
		if res.StatusCode != c2.code || !strings.Contains(body, c2.want) || f.record(t, id).Status != store.StatusPaused {
			t.Errorf("%s: %s, status %s, want %d and %q", c2.name, res.Status, f.record(t, id).Status, c2.code, c2.want)
		}
	}
	res, _ := post(t, c, happened, url.Values{"csrf": {token}, "seq": {"1"}, "result": {`[{"number":7,"title":"Seen"},{"number":8,"title":"Also"}]`}}, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/executions/"+id+"?done=happened-completed" {
		t.Fatalf("happened: %s -> %q", res.Status, res.Header.Get("Location"))
	}
	// The read's result is the one given, and the approved write (whose
	// arguments the replay rebuilt from it) ran once.
	if e := f.record(t, id); e.Status != store.StatusCompleted || !strings.Contains(string(e.Log[0].Result), `"Seen"`) {
		t.Errorf("after the answer: %s, the read's result %s", e.Status, e.Log[0].Result)
	}
	if created, _ := f.svc.snapshot(); !slices.Equal(created, []string{"Triage 2 pull requests"}) {
		t.Errorf("created %q", created)
	}
	if _, body := get(t, c, srv.URL+"/executions/"+id+"?done=happened-completed"); !strings.Contains(body, "Recorded as happened: the action did not run again, and the run completed.") {
		t.Errorf("the page after the answer does not say what happened")
	}
	if res, body := post(t, c, happened, url.Values{"csrf": {token}, "seq": {"1"}, "result": {"[]"}}, nil); res.StatusCode != http.StatusConflict || !strings.Contains(body, "no longer awaits an answer") {
		t.Errorf("a second answer: %s", res.Status)
	}
}
