package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/internal/answercut"
	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/internal/termtext"
)

// approvalInput is the input request's ID for an approval asked in a
// result.
const approvalInput = "approve"

// newKey is a fresh key for signing request states.
func newKey() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return key
}

// elicits reports whether approvals are put to the person through the
// client: the client declared the elicitation capability and the server
// allows it.
func (s *server) elicits(req *mcp.CallToolRequest) bool {
	if s.opts.NoElicitation || req == nil || req.Session == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// multiRoundTrip reports whether the client's protocol asks for input in
// results (2026-07-28 and later, SEP-2322) rather than by requests sent
// while a call is served.
func multiRoundTrip(req *mcp.CallToolRequest) bool {
	p := req.Session.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// cannotAsk says why a plain run (its runner cannot pause) cannot put a
// call that needs approval to the person through req's client, for the
// runner's refusal to say; "" when req has no session.
func (s *server) cannotAsk(req *mcp.CallToolRequest) string {
	switch {
	case req == nil || req.Session == nil:
		return ""
	case s.opts.NoElicitation:
		return "this server was told not to ask its clients (mcp serve --no-elicitation, Options.NoElicitation)"
	case !s.elicits(req):
		return "the MCP client did not declare elicitation, so the server cannot ask it"
	}
	return fmt.Sprintf("the MCP client negotiated protocol version %s, in which a server cannot ask the client while a call runs (from 2026-07-28 it asks in a call's result, SEP-2322, which a run without a journal cannot wait for)",
		req.Session.InitializeParams().ProtocolVersion)
}

// askApproval returns the approver of a runner that cannot pause: it asks
// the person, by an elicitation request, about one call that needs
// approval, before it runs. A call whose input does not fit the question
// whole is refused, not asked: a person must never approve what they were
// not shown.
func (s *server) askApproval(req *mcp.CallToolRequest) runctx.Approve {
	return func(ctx context.Context, namespace, tool string, input json.RawMessage) error {
		what := namespace + "." + tool
		args := termtext.EscapeJSON(string(input))
		if limit := min(s.opts.MaxTokens*2, 4000); len(args) > limit {
			return fmt.Errorf("%s needs a person's approval, and its input (%d bytes) is too long to show them whole in this client; nothing ran", what, len(args))
		}
		msg := fmt.Sprintf("A program wants to run %s with %s.\n\nAccept to let it run; decline to refuse it (the program sees an error).", what, args)
		ectx, cancel := context.WithTimeout(ctx, s.opts.ElicitTimeout)
		defer cancel()
		res, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: msg, RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
		switch {
		case err != nil:
			s.opts.Logger.Info("approval not answered", "call", what, "err", err)
			return fmt.Errorf("%s needs a person's approval, and they were not reached (%v); nothing ran", what, err)
		case res.Action != "accept":
			s.opts.Logger.Info("approval refused", "call", what, "action", res.Action)
			return fmt.Errorf("%s needs a person's approval, and they refused it (%s); nothing ran", what, res.Action)
		}
		s.opts.Logger.Info("approval accepted", "call", what)
		return nil
	}
}

// asker forwards a question from a tool's server (an upstream MCP
// server's elicitation) to the person through req's client, within
// ElicitTimeout.
func (s *server) asker(req *mcp.CallToolRequest) *runctx.Asker {
	return &runctx.Asker{Ask: func(ctx context.Context, message string, schema json.RawMessage) (string, map[string]any, error) {
		ectx, cancel := context.WithTimeout(ctx, s.opts.ElicitTimeout)
		defer cancel()
		res, err := req.Session.Elicit(ectx, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
		if err != nil {
			return "", nil, fmt.Errorf("asking the person: %w", err)
		}
		s.opts.Logger.Info("a tool's question answered", "action", res.Action)
		return res.Action, res.Content, nil
	}}
}

// finish answers an Approver's answer. While it is paused and the client
// takes elicitation, the person decides within this call: asked in the
// result (input requests, protocol 2026-07-28 and later: the client
// retries the call with the answer, see resume) or by an elicitation
// request (older protocols). The model never sees the question.
func (s *server) finish(ctx context.Context, a codetool.Approver, req *mcp.CallToolRequest, answer codetool.Answer, note string) (*mcp.CallToolResult, error) {
	for answer.Status == codetool.StatusPaused && s.elicits(req) {
		question, whole := approvalQuestion(answer, s.opts.MaxTokens*2)
		if !whole {
			// The person would approve arguments they cannot see: leave
			// the decision to the journal page or the CLI, which show all.
			s.opts.Logger.Info("approval not asked: the arguments do not fit the question", "execution", answer.ExecutionID)
			note = "The pending actions' arguments are too long to show the person in full in this client, so they were not asked here; a person reviews them with `codemode pending` or the journal page."
			break
		}
		params := &mcp.ElicitParams{Message: question, RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
		if len(answer.Pending) > 0 {
			pending := answer.Pending[0]
			progressOf(ctx).paused(ctx, pending.Connector+"."+pending.Method)
		}
		if multiRoundTrip(req) {
			s.opts.Logger.Info("approval asked", "execution", answer.ExecutionID)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalInput: params}, RequestState: s.sign(req, answer)}, nil
		}
		ectx, cancel := context.WithTimeout(ctx, s.opts.ElicitTimeout)
		res, err := req.Session.Elicit(ectx, params)
		cancel()
		action := "cancel"
		if err == nil {
			action = res.Action
		} else {
			s.opts.Logger.Info("approval not answered", "execution", answer.ExecutionID, "err", err)
		}
		var stop bool
		if answer, note, stop = s.decide(ctx, a, req, answer, action); stop {
			break
		}
	}
	res, err := s.render(answer)
	if err == nil && note != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: note})
	}
	return res, err
}

// decide applies the person's answer to a pause: accept approves and
// continues (stop false: the new answer may pause again), decline rejects
// the first pending action (the execution ends), anything else leaves it
// paused. note is a line for the agent.
func (s *server) decide(ctx context.Context, a codetool.Approver, req *mcp.CallToolRequest, answer codetool.Answer, action string) (_ codetool.Answer, note string, stop bool) {
	id := answer.ExecutionID
	switch action {
	case "accept":
		return s.approve(ctx, a, req, answer)
	case "decline":
		s.opts.Logger.Info("approval declined", "execution", id)
		if _, err := a.Reject(ctx, id, answer.Pending[0].Seq); err != nil {
			return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: fmt.Sprintf("the person declined, but rejecting the execution failed: %v", err)}, "", true
		}
		now, err := a.Answer(ctx, id)
		if err != nil {
			now = codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: "Action rejected by the person"}
		}
		return now, "The person declined the action, so the execution was rejected. Do not retry it.", true
	}
	s.opts.Logger.Info("approval not decided", "execution", id, "action", action)
	return answer, "The person was asked to approve and did not decide; the execution stays paused.", true
}

// approve approves exactly the actions the person was shown, and
// continues the execution within a turn.
func (s *server) approve(ctx context.Context, a codetool.Approver, req *mcp.CallToolRequest, answer codetool.Answer) (_ codetool.Answer, note string, stop bool) {
	id := answer.ExecutionID
	s.opts.Logger.Info("approval accepted", "execution", id)
	release, busy := s.turn(ctx, req)
	if busy != nil {
		return answer, "The person approved, but the server is too busy to continue the execution now; it stays paused: " + textOf(busy), true
	}
	defer release()
	if s.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
		defer cancel()
	}
	next, err := a.ApprovePending(ctx, id, seqs(answer.Pending))
	if err == nil {
		return next, "", false
	}
	now, rerr := a.Answer(context.WithoutCancel(ctx), id)
	if rerr == nil && (now.Status != codetool.StatusPaused || !slices.Equal(seqs(now.Pending), seqs(answer.Pending))) {
		s.opts.Logger.Info("approval overtaken", "execution", id, "err", err)
		return answer, "The person approved, but the execution had moved on meanwhile (approved or ended elsewhere); " + resultToolName + " gives its current state.", true
	}
	s.opts.Logger.Warn("approval failed", "execution", id, "err", err)
	return codetool.Answer{Status: codetool.StatusError, ExecutionID: id, Error: fmt.Sprintf("the person approved, but the execution did not continue: %v", err)}, "", true
}

// seqs are the pending actions' seqs, in order.
func seqs(p []codetool.Pending) []uint64 {
	out := make([]uint64, len(p))
	for i, a := range p {
		out[i] = a.Seq
	}
	return out
}

// approvalState is what the request state of an approval asked in a
// result carries: the execution, the pending actions shown (by seq) and
// the session, signed with the server's key so a client cannot make up an
// approval of another execution.
type approvalState struct {
	ExecutionID string   `json:"e,omitempty"`
	Seqs        []uint64 `json:"p,omitempty"`
	Session     string   `json:"s"`
	// Program, for a program's own approval (Options.ApprovePrograms), is
	// the digest of the program shown.
	Program string `json:"c,omitempty"`
}

func (s *server) sign(req *mcp.CallToolRequest, answer codetool.Answer) string {
	return s.signState(req, approvalState{ExecutionID: answer.ExecutionID, Seqs: seqs(answer.Pending)})
}

// signState signs st for req's session.
func (s *server) signState(req *mcp.CallToolRequest, st approvalState) string {
	st.Session = req.Session.ID()
	body, _ := json.Marshal(st)
	m := hmac.New(sha256.New, s.key)
	m.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *server) verify(req *mcp.CallToolRequest, state string) (*approvalState, bool) {
	b64, sig, ok := strings.Cut(state, ".")
	if !ok {
		return nil, false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	m := hmac.New(sha256.New, s.key)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), mac) {
		return nil, false
	}
	var st approvalState
	if json.Unmarshal(body, &st) != nil || st.Session != req.Session.ID() {
		return nil, false
	}
	return &st, true
}

// resume takes the person's answer to an approval asked in a result.
func (s *server) resume(ctx context.Context, a codetool.Approver, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	st, ok := s.verify(req, req.Params.RequestState)
	if !ok {
		return textResult(true, "The approval answer's request state does not verify (it was not issued by this server for this session); nothing was decided."), nil
	}
	answer, err := a.Answer(ctx, st.ExecutionID)
	if err != nil {
		return textResult(true, fmt.Sprintf("Reading execution %s failed: %v", st.ExecutionID, err)), nil
	}
	if answer.Status != codetool.StatusPaused || !slices.Equal(seqs(answer.Pending), st.Seqs) {
		// Decided elsewhere meanwhile (the CLI, the journal page).
		return s.finish(ctx, a, req, answer, "The execution was decided elsewhere while the person was asked.")
	}
	action := "cancel"
	if r, ok := req.Params.InputResponses[approvalInput].(*mcp.ElicitResult); ok {
		action = r.Action
	}
	answer, note, stop := s.decide(ctx, a, req, answer, action)
	if stop {
		res, err := s.render(answer)
		if err == nil && note != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: note})
		}
		return res, err
	}
	return s.finish(ctx, a, req, answer, "")
}

// approvalQuestion is the elicitation message for a pause: every pending
// action with its arguments (their characters that hide or reorder text
// escaped, as the journal page and the CLI show them), within budget
// characters. whole is false when
// an action's arguments do not fit their share (at most 2,000 characters
// each): a cut could hide the argument that matters (an adversarial review
// hid "to": "mallory" after 400 padding keys), so such a pause is not
// asked in the client at all.
func approvalQuestion(answer codetool.Answer, budget int) (question string, whole bool) {
	if code, ok := programPending(answer.Pending); ok {
		code = programText(code)
		q := fmt.Sprintf("A program (execution %s) waits for your approval before it runs anything:\n\n%s\n\nAccept to run it (calls that need approval are still asked about one by one); decline to refuse it (nothing runs).", answer.ExecutionID, code)
		return q, len(code) <= min(budget, maxProgramShown)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A program (execution %s) wants to run %d action(s) that need your approval:\n", answer.ExecutionID, len(answer.Pending))
	per := min(budget/max(len(answer.Pending), 1), 2000)
	whole = true
	for _, p := range answer.Pending {
		args := termtext.EscapeJSON(string(p.Args))
		if len(args) > per {
			whole = false
			args = answercut.Cut(args, per)
		}
		fmt.Fprintf(&b, "\n- %s.%s with %s", p.Connector, p.Method, args)
		if p.Uncertain {
			b.WriteString(" (UNCERTAIN: it may have run already, its host died before recording it; accept runs it again, decline fails the run; if it did happen, cancel and answer with `codemode happened` or on the journal page)")
		}
	}
	b.WriteString("\n\nAccept to approve all of them and continue the program; decline to reject it (actions already done stay done).")
	return b.String(), whole
}

// programPending returns the program of a pause that awaits the approval
// of the program itself before it runs (a durable runner's
// ApprovePrograms: its one pending action is codemode.program at seq 0,
// with the arguments {"code": CODE}).
func programPending(pending []codetool.Pending) (string, bool) {
	if len(pending) != 1 || pending[0].Seq != 0 || pending[0].Connector != "codemode" || pending[0].Method != "program" {
		return "", false
	}
	var a struct {
		Code *string `json:"code"`
	}
	if json.Unmarshal(pending[0].Args, &a) != nil || a.Code == nil {
		return "", false
	}
	return *a.Code, true
}
