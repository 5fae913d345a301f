package durable

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable/store"
)

// ProgramSeq is the seq of the action that stands for the program itself
// when the handle approves programs before they run
// (Options.ApprovePrograms): calls are numbered from 1, so seq 0 is never
// a call. The action is codemode.program, its arguments {"code": CODE}.
const ProgramSeq = 0

// programMethod is the method of the program's own action, on the
// journal's codemode namespace (as codemode.step is).
const programMethod = "program"

// awaitProgram pauses the new execution e (running, its lease held, no
// pass run) with its program as its one pending action, and answers so.
func (h *Handle) awaitProgram(ctx context.Context, e *store.Execution) (codetool.Answer, error) {
	args, err := json.Marshal(struct {
		Code string `json:"code"`
	}{e.Code})
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	entry := &store.Entry{Seq: ProgramSeq, Connector: stepConnector, Method: programMethod, Args: args, Upstream: h.programUpstream(e.Code),
		RequiresApproval: true, State: store.EntryPending, UpdatedAt: now()}
	if ok, err := h.store.InsertEntry(ctx, h.name, e.ID, entry); err != nil || !ok {
		return codetool.Answer{}, fmt.Errorf("durable: recording the program of %s for approval: %v, %w", e.ID, ok, err)
	}
	if _, err := h.store.TransitionExecution(ctx, h.name, e.ID, []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{At: now(), Lease: &store.Lease{}}); err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	h.log.Debug("durable: the program awaits approval", "execution", e.ID)
	return codetool.Answer{Status: codetool.StatusPaused, ExecutionID: e.ID,
		Pending: []codetool.Pending{{Seq: ProgramSeq, Connector: stepConnector, Method: programMethod, Args: args}}}, nil
}

// startApprovedProgram records the approval of e's program, when its own
// action is pending, before the approval's pass runs it for the first
// time.
func (h *Handle) startApprovedProgram(ctx context.Context, e *store.Execution) error {
	for _, l := range e.Log {
		if !isProgram(l) || l.State != store.EntryPending {
			continue
		}
		ok, err := h.store.TransitionEntry(ctx, h.name, e.ID, ProgramSeq, []store.EntryState{store.EntryPending}, store.EntryApplied,
			store.EntryUpdate{At: now(), Result: json.RawMessage("null")})
		if err != nil || ok {
			return wrapStore(err)
		}
		// A reject of the program won: it never runs.
		cur, err := h.store.Execution(ctx, h.name, e.ID)
		if err != nil {
			return wrapStore(err)
		}
		return &notPausedError{id: e.ID, status: cur.Status}
	}
	return nil
}

// isProgram reports whether l is the program's own action.
func isProgram(l store.Entry) bool {
	return l.Seq == ProgramSeq && l.Connector == stepConnector && l.Method == programMethod
}

// unapprovedOrphan ends the takeover of e, a running execution whose host
// died before its program was approved (no pass started): it never runs
// unapproved. With its program pending it is paused for approval, without
// it (the host died before recording it) it ends as an error.
func (h *Handle) unapprovedOrphan(ctx context.Context, e *store.Execution) (codetool.Answer, error) {
	to, msg := store.StatusError, "the program was never approved: its host died before asking"
	for _, l := range e.Log {
		if isProgram(l) && l.State == store.EntryPending {
			to, msg = store.StatusPaused, ""
		}
	}
	u := store.ExecutionUpdate{At: now(), Lease: &store.Lease{}}
	if to == store.StatusError {
		u.Error = &msg
	}
	ok, err := h.store.TransitionExecution(ctx, h.name, e.ID, []store.Status{store.StatusRunning}, to, u)
	if err != nil {
		return codetool.Answer{}, fmt.Errorf("durable: %w", err)
	}
	if !ok {
		return codetool.Answer{}, h.notOrphaned(ctx, e.ID)
	}
	return h.Answer(ctx, e.ID)
}

// programUpstream is the store.Entry.Upstream of the program's own action:
// the upstream tool (contract.Tool.Upstream) of each of the handle's tools
// the program's code names, as a JSON object from "namespace.tool" to it
// (`{"files.get_file":"MCP tool get-file"}`), or "" when it names none
// that has one. The person approves a program that calls tools by their
// names in programs, as they mean when it is shown: programMoved refuses
// to run it once one of those names calls another upstream tool. A tool
// is named when its name is a word of the code (codeWords), called or
// not; a name the code computes ("get" + "_file") is not seen, and
// neither is it by the person reading the code.
func (h *Handle) programUpstream(code string) string {
	words := codeWords(code)
	named := map[string]string{}
	for ns, tools := range h.tools {
		for name, t := range tools {
			if up := t.Upstream(); up != "" && words[name] {
				named[ns+"."+name] = up
			}
		}
	}
	if len(named) == 0 {
		return ""
	}
	b, err := json.Marshal(named) // keys sorted
	if err != nil {
		return ""
	}
	return string(b)
}

// programMoved describes each tool the program's own action l recorded
// (programUpstream) that now calls another upstream tool, or none, in
// name order and separated by "; " (`files.get_file as MCP tool get-file
// (named by the program, action 0), now MCP tool get_file`), or is ""
// when none does. A record it cannot read counts as moved: nothing runs
// that its approval may not have meant.
func (h *Handle) programMoved(l store.Entry) string {
	var named map[string]string
	if err := json.Unmarshal([]byte(l.Upstream), &named); err != nil {
		return fmt.Sprintf("the tools the program named (action %d) as %s, unreadable: %v", l.Seq, strconv.Quote(truncate(l.Upstream, 200)), err)
	}
	var out []string
	for _, key := range slices.Sorted(maps.Keys(named)) {
		ns, name, _ := strings.Cut(key, ".")
		if now, ok := h.toolNow(ns, name, named[key]); ok {
			out = append(out, fmt.Sprintf("%s as %s (named by the program, action %d), now %s", key, named[key], l.Seq, now))
		}
	}
	return strings.Join(out, "; ")
}

// jsEscape matches the escapes JavaScript reads as one character in an
// identifier or a string: \u{1F600}, \u005f and \x5f.
var jsEscape = regexp.MustCompile(`\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})|\\x([0-9A-Fa-f]{2})`)

// codeWords are the words of code, as a set: its runs of ASCII letters,
// digits, "_" and "$" (the characters of a tool's name), read after
// JavaScript's escapes, so that files.get\u005ffile and
// files["get\x5ffile"] name get_file as the engine reads them.
func codeWords(code string) map[string]bool {
	if strings.Contains(code, `\`) {
		code = jsEscape.ReplaceAllStringFunc(code, func(m string) string {
			hex := strings.Trim(m[2:], "{}")
			n, err := strconv.ParseUint(hex, 16, 32)
			if err != nil {
				return m
			}
			return string(rune(n))
		})
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(code, func(r rune) bool {
		return !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		words[w] = true
	}
	return words
}
