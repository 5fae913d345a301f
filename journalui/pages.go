package journalui

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/callend"
	"github.com/codemode-go/codemode/internal/termtext"
)

// maxShown is how many characters of an error or of the console a page
// shows; the rest is summarized. Values are shown whole (tree).
const maxShown = 20_000

// statuses are the filters of the list, in lifecycle order.
var statuses = []store.Status{store.StatusPaused, store.StatusRunning, store.StatusCompleted,
	store.StatusError, store.StatusRejected, store.StatusRolledBack}

func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{"lower": strings.ToLower, "status": statusLabel, "uncertain": countUncertain, "answerForm": answerForm}
	pages := map[string]*template.Template{}
	for _, name := range []string{"list", "detail", "login"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/templates/layout.html", "assets/templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("journalui: template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// page is what the layout needs besides the page's own data.
type page struct {
	Title    string
	Runtimes string
	CSRF     string
	Events   string // the event stream URL; "" for a page without live updates
	Version  string // the journal version the page shows
	Data     any
}

type loginView struct {
	Next, Problem string
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	p := page{Title: "codemode journal", Runtimes: h.runtimeNames(), CSRF: h.csrf(r), Data: data}
	switch v := data.(type) {
	case *listView:
		p.Events, p.Version = "/events?", v.Version
	case *detailView:
		p.Title = v.ID + " · codemode journal"
		p.Events, p.Version = "/events?execution="+url.QueryEscape(v.ID)+"&", v.Version
	case loginView:
		p.Title = "Log in · codemode journal"
	}
	var buf bytes.Buffer
	if err := h.pages[name].Execute(&buf, p); err != nil {
		h.log.Warn("journalui: rendering a page", "page", name, "err", err)
		http.Error(w, "rendering the page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (h *Handler) runtimeNames() string {
	names := make([]string, len(h.handles))
	for i, d := range h.handles {
		names[i] = d.Name()
	}
	return strings.Join(names, ", ")
}

// row is one execution in the list.
type row struct {
	ID, Runtime, Age, Created, Summary, Title string
	Status                                    store.Status
	Calls                                     int
	Orphaned                                  bool // running, its host dead
}

// pendingGroup is the pending actions of one paused execution.
type pendingGroup struct {
	ID, Runtime, Age, Title string
	Actions                 []pendingView
	Digest                  string // of the actions as shown (durable.ShownDigest)
	Missing                 string // connectors the page lacks to approve
	Mismatch                string // how the page's connectors differ from the run's
}

type pendingView struct {
	Seq  uint64
	Call string
	Args *node
	toolInfo
	// Uncertain: the action may have run already (store.Entry.Uncertain):
	// it awaits an answer, not an approval.
	Uncertain bool
	// Program, for the program's own approval before it runs
	// (durable.Options.ApprovePrograms), is the program as the action's
	// arguments hold it (what the approval's digest covers), line by line.
	Program []codeLine
}

// pendingOf is the pending actions of an execution as the page shows them.
func pendingOf(d *durable.Handle, log []store.Entry) []pendingView {
	var p []pendingView
	for _, l := range log {
		if l.State == store.EntryPending {
			call := l.Connector + "." + l.Method
			p = append(p, pendingView{Seq: l.Seq, Call: call, Args: tree(l.Args), toolInfo: infoOf(d, l.Connector, l.Method), Uncertain: l.Uncertain, Program: programLines(l)})
		}
	}
	return p
}

// answerView is the form that answers an uncertain action "it happened".
type answerView struct {
	ID, CSRF string
	Action   pendingView
	Blocked  bool // the page lacks the run's connectors, or they differ
}

// answerForm is the "it happened" form of the uncertain action a of the
// execution id, disabled when the page cannot decide the run (blocked).
func answerForm(id, csrf string, a pendingView, blocked string) answerView {
	return answerView{ID: id, CSRF: csrf, Action: a, Blocked: blocked != ""}
}

// countUncertain is how many of p are uncertain actions (they await an
// answer: it happened, run it again, or reject).
func countUncertain(p []pendingView) int {
	n := 0
	for _, v := range p {
		if v.Uncertain {
			n++
		}
	}
	return n
}

type filter struct {
	Status   store.Status
	Count    int
	Selected bool
}

type listView struct {
	Rows     []row
	Pending  []pendingGroup
	Filters  []filter
	Total    int
	Selected store.Status
	Version  string
	Problem  string
}

// snapshot reads every handle's executions, newest first.
func (h *Handler) snapshot(ctx context.Context) ([]*store.Execution, map[*store.Execution]*durable.Handle, error) {
	var all []*store.Execution
	owner := map[*store.Execution]*durable.Handle{}
	for _, d := range h.handles {
		l, err := d.Executions(ctx, h.opts.Limit)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the executions of runtime %s: %w", d.Name(), err)
		}
		for _, e := range l {
			owner[e] = d
		}
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(a, b *store.Execution) int {
		if a.CreatedAt != b.CreatedAt {
			return int(b.CreatedAt - a.CreatedAt)
		}
		return strings.Compare(b.ID, a.ID)
	})
	return all, owner, nil
}

// version fingerprints what a page shows of executions: it changes when
// any execution or tool log entry changes state, is added or is removed.
func version(list []*store.Execution) string {
	s := sha256.New()
	var b [8]byte
	for _, e := range list {
		s.Write([]byte(e.ID))
		s.Write([]byte(e.Status))
		binary.LittleEndian.PutUint64(b[:], uint64(e.UpdatedAt))
		s.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], uint64(e.Passes))
		s.Write(b[:])
		for _, l := range e.Log {
			binary.LittleEndian.PutUint64(b[:], l.Seq)
			s.Write(b[:])
			s.Write([]byte(l.State))
			binary.LittleEndian.PutUint64(b[:], uint64(l.UpdatedAt))
			s.Write(b[:])
		}
		s.Write([]byte{0})
	}
	return hex.EncodeToString(s.Sum(nil)[:12])
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	v := &listView{}
	if s := r.URL.Query().Get("status"); s != "" {
		v.Selected = store.Status(s)
		if !v.Selected.Valid() {
			http.Error(w, fmt.Sprintf("unknown status %q: use one of running, paused, completed, error, rejected, rolled_back", s), http.StatusBadRequest)
			return
		}
	}
	all, owner, err := h.snapshot(r.Context())
	if err != nil {
		h.log.Warn("journalui: reading the journal", "err", err)
		v.Problem = err.Error()
		h.render(w, r, http.StatusInternalServerError, "list", v)
		return
	}
	v.Version = version(all)
	v.Total = len(all)
	now := time.Now()
	counts := map[store.Status]int{}
	for _, e := range all {
		counts[e.Status]++
		d := owner[e]
		if e.Status == store.StatusPaused {
			v.Pending = append(v.Pending, pendingGroup{
				ID: e.ID, Runtime: d.Name(), Age: age(e.UpdatedAt, now), Title: title(e.Code),
				Actions: pendingOf(d, e.Log), Digest: shownDigest(e.Log), Missing: missingConnectors(d, e), Mismatch: strings.Join(d.ConfigurationChanges(e), "; "),
			})
		}
		if v.Selected != "" && e.Status != v.Selected {
			continue
		}
		v.Rows = append(v.Rows, row{
			ID: e.ID, Runtime: d.Name(), Status: e.Status, Age: age(e.CreatedAt, now),
			Created: time.UnixMilli(e.CreatedAt).UTC().Format(time.RFC3339), Calls: calls(e), Summary: summary(e), Title: title(e.Code), Orphaned: orphaned(e),
		})
	}
	// Pauses oldest first: a new one goes below the others, so that a live
	// update never moves a decision the person is about to click.
	slices.Reverse(v.Pending)
	for _, s := range statuses {
		v.Filters = append(v.Filters, filter{Status: s, Count: counts[s], Selected: s == v.Selected})
	}
	h.render(w, r, http.StatusOK, "list", v)
}

// calls counts the connector calls of an execution (steps excluded).
func calls(e *store.Execution) int {
	n := 0
	for _, l := range e.Log {
		if !l.IsStep() && !isProgram(l) {
			n++
		}
	}
	return n
}

// summary is one line about an execution for the list.
func summary(e *store.Execution) string {
	switch e.Status {
	case store.StatusPaused:
		var p []string
		for _, l := range e.Log {
			switch {
			case l.State == store.EntryPending && isProgram(l):
				p = append(p, "its program, before it runs")
			case l.State == store.EntryPending:
				p = append(p, l.Connector+"."+l.Method)
			}
		}
		return "awaits approval: " + strings.Join(p, ", ")
	case store.StatusCompleted:
		return "result: " + cut(string(e.Value), 120)
	case store.StatusRunning:
		if orphaned(e) && durable.StartedByGoProgram(e.Configuration) {
			return "orphaned: its host died; resume it from the Go program that started it (durable.Handle.Resume): its tools are that program's"
		}
		if orphaned(e) {
			return "orphaned: its host died; a page started with the run's tools resumes it, as does codemode resume " + e.ID
		}
		return "running"
	case store.StatusRolledBack:
		return strings.TrimSuffix(fmt.Sprintf("%d action(s) undone; %s", countState(e, store.EntryReverted), cut(e.Error, 120)), "; ")
	}
	return cut(e.Error, 160)
}

// orphaned reports whether e is running with a lease that has run out: the
// pass that held it died (durable.Handle.ResumeOrphans takes such runs over).
func orphaned(e *store.Execution) bool {
	return e.Orphaned(time.Now().UnixMilli())
}

// countState counts the entries of e in state s.
func countState(e *store.Execution, s store.EntryState) int {
	n := 0
	for _, l := range e.Log {
		if l.State == s {
			n++
		}
	}
	return n
}

// cut shortens s to about max characters on one line, its characters
// that hide or reorder text escaped.
func cut(s string, max int) string {
	s = termtext.Escape(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

// age says how long ago a Unix-millisecond time was: "12s", "4m", "3h", "2d".
func age(ms int64, now time.Time) string {
	d := max(now.Sub(time.UnixMilli(ms)), 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// bounded cuts text (an error, the console) to maxShown characters,
// saying how much is left out; values are shown whole (tree).
func bounded(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cutAt := maxShown
	for cutAt > 0 && !utf8.RuneStart(s[cutAt]) {
		cutAt--
	}
	return s[:cutAt] + fmt.Sprintf("\n… (%d more bytes not shown)", len(s)-cutAt)
}

type entryView struct {
	Seq              uint64
	Call             string
	State            store.EntryState
	Label            string // the state in words
	Args             *node
	Result           *node
	Error            string
	Step             bool
	RequiresApproval bool
	Ephemeral        bool
	Uncertain        bool
	Updated          string
	// End is how the call ended (store.Entry.End), EndLabel and EndWords
	// the same in words ("abandoned", "the program ended before …").
	End, EndLabel, EndWords string
}

// undoStep is one action of a rollback's preview, newest first.
type undoStep struct {
	Seq        uint64
	Call       string
	Revertible bool
}

type detailView struct {
	ID, Runtime, Title string
	Status             store.Status
	Orphaned           bool // running, its host dead (orphaned)
	GoProgram          bool // started by a Go program with tools of its own (durable.GoProgramConfiguration)
	Created, Updated   string
	CreatedAge         string
	Connectors         string
	Code               []codeLine
	CallLines          string // "line 3": where the pending actions are called
	Log                []entryView
	Pending            []pendingView
	Digest             string // of the pending actions as shown
	Earlier            []string
	Result             *node
	Error              string
	Logs               string
	CanApprove         bool
	CanRollback        bool
	Revertible         int
	Undo               []undoStep
	Notice, Problem    string
	Warn               bool // the notice says the click did not have its effect
	Version            string
	Missing            string // connectors the run needs that this page's handle lacks
	Mismatch           string // how this page's connectors differ from the run's
	Exists             bool
	// AwaitsProgram: the run has not started; its program awaits approval.
	AwaitsProgram bool
}

// find returns the handle and record of the execution id.
func (h *Handler) find(ctx context.Context, id string) (*durable.Handle, *store.Execution, error) {
	for _, d := range h.handles {
		e, err := d.Execution(ctx, id)
		if err == nil {
			return d, e, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, nil, err
		}
	}
	return nil, nil, fmt.Errorf("execution %s: %w", id, store.ErrNotFound)
}

// notices are the fixed messages a redirect after a POST may show: what
// the click did, read from the journal after it.
var notices = map[string]string{
	"approved-completed": "Approved: the action ran and the run completed.",
	"approved-paused":    "Approved: the action ran, and the run paused again at its next action, shown below for your decision.",
	"approved-error":     "Approved, but the run then failed (see the error below).",
	"approved-rejected":  "Not run: someone else rejected the run while it was replaying; the approved action did not run.",
	"approved":           "Approved: the run is continuing.",
	"program-completed":  "Approved: the program ran and the run completed.",
	"program-paused":     "Approved: the program started, and paused at an action that needs approval, shown below for your decision.",
	"program-error":      "Approved, but the program then failed (see the error below).",
	"rejected":           "Rejected: the run ended and the action did not run. Earlier actions stay done until you roll the run back.",
	"happened-completed": "Recorded as happened: the action did not run again, and the run completed.",
	"happened-paused":    "Recorded as happened: the action did not run again. The run awaits your decision on what is shown below.",
	"happened-error":     "Recorded as happened, but the run then failed (see the error below).",
	"rolledback":         "Rolled back: the done actions that can be undone were undone by their reverts, newest first.",
}

// warnings are the notices that say a click did not have its effect.
var warnings = map[string]bool{"approved-rejected": true, "approved-error": true, "program-error": true, "happened-error": true}

func (h *Handler) detail(w http.ResponseWriter, r *http.Request) {
	h.showDetail(w, r, http.StatusOK, notices[r.URL.Query().Get("done")], "")
}

func (h *Handler) showDetail(w http.ResponseWriter, r *http.Request, status int, notice, problem string) {
	id := r.PathValue("id")
	d, e, err := h.find(r.Context(), id)
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, store.ErrNotFound) {
			code = http.StatusNotFound
		} else {
			h.log.Warn("journalui: reading an execution", "execution", id, "err", err)
		}
		h.render(w, r, code, "detail", &detailView{ID: id, Problem: err.Error()})
		return
	}
	v := buildDetail(d, e, time.Now())
	v.Notice, v.Problem = notice, problem
	v.Warn = notice != "" && warnings[r.URL.Query().Get("done")]
	h.render(w, r, status, "detail", v)
}

func buildDetail(d *durable.Handle, e *store.Execution, now time.Time) *detailView {
	v := &detailView{
		ID: e.ID, Runtime: d.Name(), Title: title(e.Code), Status: e.Status, Orphaned: orphaned(e), GoProgram: durable.StartedByGoProgram(e.Configuration), Exists: true,
		Created:    time.UnixMilli(e.CreatedAt).UTC().Format("2006-01-02 15:04:05 UTC"),
		Updated:    time.UnixMilli(e.UpdatedAt).UTC().Format("2006-01-02 15:04:05 UTC"),
		CreatedAge: age(e.CreatedAt, now), Connectors: strings.Join(e.Connectors, ", "),
		Error: bounded(termtext.Escape(e.Error)), Result: tree(e.Value), Logs: bounded(termtext.Escape(strings.Join(e.Logs, "\n"))),
		Version: version([]*store.Execution{e}), Pending: pendingOf(d, e.Log), Digest: shownDigest(e.Log),
		Missing: missingConnectors(d, e), Mismatch: strings.Join(d.ConfigurationChanges(e), "; "),
	}
	var marked []int
	v.Code, marked = callLines(e.Code, v.Pending)
	v.CallLines = lineList(marked)
	for _, l := range e.Log {
		if l.Connector == "codemode" && l.Method == "step_end" {
			continue // the end of a step: nothing a person needs
		}
		v.Log = append(v.Log, entryOf(l))
		if l.State == store.EntryApplied && !l.IsStep() && !isProgram(l) {
			rev := d.Revertible(l.Connector, l.Method)
			v.Undo = append([]undoStep{{Seq: l.Seq, Call: l.Connector + "." + l.Method, Revertible: rev}}, v.Undo...)
			if rev {
				v.Revertible++
			}
		}
	}
	if len(v.Pending) > 0 {
		v.Earlier = earlierApprovals(e.Log)
	}
	v.CanApprove = e.Status == store.StatusPaused && len(v.Pending) > 0
	v.AwaitsProgram = len(v.Pending) == 1 && v.Pending[0].Program != nil
	v.CanRollback = e.Status.Terminal() && v.Revertible > 0
	return v
}

// entryOf is a tool log entry as the page shows it.
func entryOf(l store.Entry) entryView {
	errText := l.Error
	if l.ErrorName != "" && errText != "" {
		errText = l.ErrorName + ": " + errText // as the program saw it: an HTTPError, an MCPToolError
	}
	ev := entryView{Seq: l.Seq, State: l.State, Args: tree(l.Args), Result: tree(l.Result), Error: bounded(termtext.Escape(errText)),
		Step: l.IsStep(), RequiresApproval: l.RequiresApproval, Ephemeral: l.Ephemeral, Uncertain: l.Uncertain,
		Updated: time.UnixMilli(l.UpdatedAt).UTC().Format("15:04:05.000")}
	ev.Call, ev.Label = l.Connector+"."+l.Method, entryLabel(l.State)
	ev.End = l.End
	ev.EndLabel, ev.EndWords = callend.Describe(l.End)
	switch {
	case l.State != store.EntryError:
	case l.Error == "rejected by user":
		ev.Label = "rejected"
	case strings.HasPrefix(l.Error, "not run:"):
		ev.Label = "not run"
	}
	if ev.Step {
		var a struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(l.Args, &a)
		ev.Call, ev.Args = "recorded value "+strconv.Quote(a.Name), nil
	}
	return ev
}

// problem renders the execution page with a message about a failed
// action, status 409 (the journal refused it) or 500.
func (h *Handler) problem(w http.ResponseWriter, r *http.Request, code int, msg string) {
	h.showDetail(w, r, code, "", msg)
}

func (h *Handler) done(w http.ResponseWriter, r *http.Request, what string) {
	http.Redirect(w, r, "/executions/"+url.PathEscape(r.PathValue("id"))+"?done="+what, http.StatusSeeOther)
}

func (h *Handler) approve(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	d, before, err := h.find(r.Context(), id)
	if err != nil {
		h.problem(w, r, http.StatusNotFound, err.Error())
		return
	}
	ctx, cancel := h.actionContext(r)
	defer cancel()
	// The form carries the digest of the actions the page showed: approved
	// only if the execution still awaits exactly those (another approval
	// may have moved it on to an action this person has not seen).
	shown := r.PostForm.Get("shown")
	if shown == "" {
		h.problem(w, r, http.StatusBadRequest, "Not approved: the form does not say which actions were shown; reload the page.")
		return
	}
	answer, err := d.ApproveShown(ctx, id, shown)
	switch {
	case errors.Is(err, durable.ErrPendingChanged):
		h.problem(w, r, http.StatusConflict, "Not approved: the actions awaiting approval changed since this page showed them; review them below.")
	case errors.Is(err, durable.ErrNotPaused):
		h.problem(w, r, http.StatusConflict, "Not approved: the run no longer awaits approval (someone else decided it meanwhile); its state is below.")
	case errors.Is(err, durable.ErrConfigurationChanged):
		h.problem(w, r, http.StatusConflict, "Not approved: the tools this page reaches are not those the run recorded, and the run still awaits approval: "+strings.TrimPrefix(err.Error(), "durable: "))
	case err != nil:
		h.problem(w, r, http.StatusConflict, "Approval failed: "+err.Error())
	default:
		h.done(w, r, approvedOutcome(r.Context(), d, before, answer))
	}
}

// approvedOutcome names what an approval led to: the replay's answer,
// and for a run that ended rejected, whether the approved actions (those
// pending before) ran or a reject that won against the replay stopped them.
func approvedOutcome(ctx context.Context, d *durable.Handle, before *store.Execution, answer codetool.Answer) string {
	if len(pendingOf(d, before.Log)) == 1 && pendingOf(d, before.Log)[0].Program != nil {
		switch answer.Status {
		case codetool.StatusCompleted:
			return "program-completed"
		case codetool.StatusPaused:
			return "program-paused"
		}
		return "program-error"
	}
	switch answer.Status {
	case codetool.StatusCompleted:
		return "approved-completed"
	case codetool.StatusPaused:
		return "approved-paused"
	}
	after, err := d.Execution(ctx, before.ID)
	if err != nil || after.Status != store.StatusRejected {
		return "approved-error"
	}
	state := map[uint64]store.EntryState{}
	for _, l := range after.Log {
		state[l.Seq] = l.State
	}
	for _, l := range before.Log {
		if l.State == store.EntryPending && state[l.Seq] != store.EntryApplied {
			return "approved-rejected"
		}
	}
	return "approved-error"
}

func (h *Handler) reject(w http.ResponseWriter, r *http.Request) {
	seq, err := strconv.ParseUint(r.PostForm.Get("seq"), 10, 64)
	if err != nil {
		h.problem(w, r, http.StatusBadRequest, "Reject needs the action's seq (a number): "+err.Error())
		return
	}
	d, _, err := h.find(r.Context(), r.PathValue("id"))
	if err != nil {
		h.problem(w, r, http.StatusNotFound, err.Error())
		return
	}
	ok, err := d.Reject(r.Context(), r.PathValue("id"), seq)
	if err != nil {
		h.problem(w, r, http.StatusInternalServerError, "Reject failed: "+err.Error())
		return
	}
	if !ok {
		h.problem(w, r, http.StatusConflict, fmt.Sprintf("Not rejected: action %d no longer awaits approval (someone else approved or rejected it, or it expired); its state is below.", seq))
		return
	}
	h.done(w, r, "rejected")
}

// happened answers an uncertain action (its host died between running it
// and recording it) "it happened" (durable.Handle.Resolve): what the
// person says it returned is recorded as its result, which the program
// receives, and it does not run again.
func (h *Handler) happened(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	seq, err := strconv.ParseUint(r.PostForm.Get("seq"), 10, 64)
	if err != nil {
		h.problem(w, r, http.StatusBadRequest, "Not recorded: the form does not say which action (its seq, a number): "+err.Error())
		return
	}
	d, _, err := h.find(r.Context(), id)
	if err != nil {
		h.problem(w, r, http.StatusNotFound, err.Error())
		return
	}
	result := strings.TrimSpace(r.PostForm.Get("result"))
	if result != "" && !json.Valid([]byte(result)) {
		h.problem(w, r, http.StatusBadRequest, fmt.Sprintf(`Not recorded: what action %d returned must be JSON (for example {"id": 42}, "a quoted string" or null); nothing changed.`, seq))
		return
	}
	ctx, cancel := h.actionContext(r)
	defer cancel()
	answer, err := d.Resolve(ctx, id, seq, json.RawMessage(result))
	var invalid *contract.ValidationError
	switch {
	case errors.As(err, &invalid):
		h.problem(w, r, http.StatusBadRequest, fmt.Sprintf("Not recorded: the program would receive what you give as action %d's result, and the tool could not return that (empty means null); give what it returned, as JSON. %s", seq, strings.TrimPrefix(err.Error(), "durable: ")))
	case errors.Is(err, durable.ErrNotPaused):
		h.problem(w, r, http.StatusConflict, "Not recorded: the run no longer awaits an answer (someone else decided it meanwhile); its state is below.")
	case errors.Is(err, durable.ErrConfigurationChanged):
		h.problem(w, r, http.StatusConflict, "Not recorded: the tools this page reaches are not those the run recorded, and the run still awaits an answer: "+strings.TrimPrefix(err.Error(), "durable: "))
	case err != nil:
		h.problem(w, r, http.StatusConflict, "Not recorded: "+strings.TrimPrefix(err.Error(), "durable: "))
	default:
		h.done(w, r, happenedOutcome(answer.Status))
	}
}

// happenedOutcome names what the answer "it happened" led to: the run
// completed, paused again (at another action, or awaiting an answer about
// another uncertain one), or failed.
func happenedOutcome(status codetool.Status) string {
	switch status {
	case codetool.StatusCompleted:
		return "happened-completed"
	case codetool.StatusPaused:
		return "happened-paused"
	}
	return "happened-error"
}

func (h *Handler) rollback(w http.ResponseWriter, r *http.Request) {
	d, e, err := h.find(r.Context(), r.PathValue("id"))
	if err != nil {
		h.problem(w, r, http.StatusNotFound, err.Error())
		return
	}
	if !e.Status.Terminal() {
		h.problem(w, r, http.StatusConflict, fmt.Sprintf("Rollback is for ended executions; this one is %s (reject its pending actions first).", e.Status))
		return
	}
	ctx, cancel := h.actionContext(r)
	defer cancel()
	if err := d.Rollback(ctx, e.ID); errors.Is(err, durable.ErrConfigurationChanged) {
		h.problem(w, r, http.StatusConflict, "Not rolled back: the tools this page reaches are not those the run recorded, so the reverts would go elsewhere; nothing was undone. "+err.Error())
		return
	} else if err != nil {
		h.problem(w, r, http.StatusConflict, "Rollback failed: "+err.Error())
		return
	}
	h.done(w, r, "rolledback")
}

// events streams "change" events (server-sent events) to a live page: it
// reads the journal every PollInterval and sends the new version whenever
// what the page shows (one execution, or the list) changed from the
// version the page was rendered with ("since"). The stream ends with the
// request or with Close.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("execution")
	last := r.URL.Query().Get("since")
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n: connected\n\n"); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(h.opts.PollInterval)
	defer tick.Stop()
	idle := 0
	for {
		v, err := h.currentVersion(r.Context(), id)
		switch {
		case err != nil:
			if r.Context().Err() == nil {
				h.log.Warn("journalui: polling the journal", "err", err)
			}
		case v != last:
			last = v
			idle = 0
			if _, err := fmt.Fprintf(w, "event: change\ndata: %s\n\n", v); err != nil || rc.Flush() != nil {
				return
			}
		default:
			// A comment now and then finds connections the browser closed.
			if idle++; time.Duration(idle)*h.opts.PollInterval >= 15*time.Second {
				idle = 0
				if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
					return
				}
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case <-tick.C:
		}
	}
}

func (h *Handler) currentVersion(ctx context.Context, id string) (string, error) {
	if id == "" {
		all, _, err := h.snapshot(ctx)
		if err != nil {
			return "", err
		}
		return version(all), nil
	}
	_, e, err := h.find(ctx, id)
	if err != nil {
		return "", err
	}
	return version([]*store.Execution{e}), nil
}
