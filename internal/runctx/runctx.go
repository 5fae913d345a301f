// Package runctx carries what a front end (the MCP server) gives one run
// through its context, for a runner (the client) to use: who decides the
// calls that need approval when the run cannot pause, and who hears of its
// progress. The runner reads them; nothing else needs them, so they are
// not part of any public API.
package runctx

import (
	"context"
	"encoding/json"
	"time"
)

// Approve decides a call that needs a person's approval, for a run that
// cannot pause: nil lets the call run, an error refuses it (the program
// sees the error). It may block while the person is asked.
type Approve func(ctx context.Context, namespace, tool string, input json.RawMessage) error

// Progress is how far a run has come: the tool calls it started, the last
// one's "namespace.tool", and the time since it started.
type Progress struct {
	Calls   int
	Last    string
	Elapsed time.Duration
}

type approveKey struct{}
type progressKey struct{}

// WithApprove returns ctx carrying approve.
func WithApprove(ctx context.Context, approve Approve) context.Context {
	return context.WithValue(ctx, approveKey{}, approve)
}

// ApproveFrom returns the Approve ctx carries, or nil.
func ApproveFrom(ctx context.Context) Approve {
	a, _ := ctx.Value(approveKey{}).(Approve)
	return a
}

type cannotAskKey struct{}

// WithCannotAsk returns ctx carrying why the front end cannot ask a person
// about this run's calls that need approval ("the MCP client did not
// declare elicitation"), for the runner's refusal to say.
func WithCannotAsk(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, cannotAskKey{}, why)
}

// CannotAskFrom returns why the front end cannot ask a person during the
// run, or "" when ctx does not say.
func CannotAskFrom(ctx context.Context) string {
	why, _ := ctx.Value(cannotAskKey{}).(string)
	return why
}

// WithProgress returns ctx carrying report, which a run calls as its tool
// calls start (one call at a time).
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ProgressFrom returns the progress report ctx carries, or nil.
func ProgressFrom(ctx context.Context) func(Progress) {
	p, _ := ctx.Value(progressKey{}).(func(Progress))
	return p
}

// Asker puts a question from a tool's server to the person the run
// belongs to (an MCP elicitation: message and the JSON Schema of the
// answer's fields). It returns "accept" with the answer's fields,
// "decline" or "cancel". One Asker stands for one run: the connector
// tells runs apart by its address.
type Asker struct {
	Ask func(ctx context.Context, message string, schema json.RawMessage) (action string, content map[string]any, err error)
}

type askerKey struct{}

// WithAsker returns ctx carrying a.
func WithAsker(ctx context.Context, a *Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerFrom returns the Asker ctx carries, or nil.
func AskerFrom(ctx context.Context) *Asker {
	a, _ := ctx.Value(askerKey{}).(*Asker)
	return a
}

// ProgramApprover decides whether a program runs, shown whole before it
// starts: nil lets it run, an error refuses it.
type ProgramApprover func(ctx context.Context, code string) error

type programKey struct{}

// WithProgramApprover returns ctx carrying approve.
func WithProgramApprover(ctx context.Context, approve ProgramApprover) context.Context {
	return context.WithValue(ctx, programKey{}, approve)
}

// ProgramApproverFrom returns the ProgramApprover ctx carries, or nil.
func ProgramApproverFrom(ctx context.Context) ProgramApprover {
	a, _ := ctx.Value(programKey{}).(ProgramApprover)
	return a
}

type sessionKey struct{}

// WithSession returns ctx carrying the key of the session a code tool's
// program continues (codetool.WithSession).
func WithSession(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, sessionKey{}, key)
}

// SessionFrom returns the session key ctx carries, or "".
func SessionFrom(ctx context.Context) string {
	k, _ := ctx.Value(sessionKey{}).(string)
	return k
}

type sessionLiveKey struct{}

// WithLiveSessions returns ctx carrying live, which reports whether a
// session key still belongs to someone (an open MCP session): the owner of
// the sessions drops those it does not.
func WithLiveSessions(ctx context.Context, live func(key string) bool) context.Context {
	return context.WithValue(ctx, sessionLiveKey{}, live)
}

// LiveSessionsFrom returns the predicate ctx carries, or nil.
func LiveSessionsFrom(ctx context.Context) func(key string) bool {
	l, _ := ctx.Value(sessionLiveKey{}).(func(string) bool)
	return l
}

type snippetKey struct{}

// shownSnippet is a saved program's code as a person was shown it.
type shownSnippet struct{ name, code string }

// WithSnippetShown returns ctx carrying the code of the saved program name
// as a person was shown it before approving the run: the run's lookup of
// name (codemode.run) must find that code, or refuse to run it.
func WithSnippetShown(ctx context.Context, name, code string) context.Context {
	return context.WithValue(ctx, snippetKey{}, shownSnippet{name, code})
}

// SnippetShownFrom returns the code of the saved program name that ctx
// carries as shown (WithSnippetShown); ok is false when ctx carries none
// for name.
func SnippetShownFrom(ctx context.Context, name string) (code string, ok bool) {
	s, found := ctx.Value(snippetKey{}).(shownSnippet)
	if !found || s.name != name {
		return "", false
	}
	return s.code, true
}
