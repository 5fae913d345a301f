package durablemcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultToolName is the name of the tool that reads an execution's
// current outcome (Handle.Output).
const ResultToolName = "code_result"

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Name and Version identify the server in the MCP handshake; defaults
	// "codemode" and "0.1.0".
	Name, Version string
	// Description, when set, is the code tool's description, with the
	// placeholders {{types}} (the handle's declarations) and {{namespaces}}
	// (its connector names); empty uses Handle.ToolDescription with
	// Declarations and ConnectorHints.
	Description string
	// Declarations chooses whether the default description holds every
	// declaration (durable.DeclarationsFull) or only the namespaces and the
	// codemode SDK that finds and describes methods
	// (durable.DeclarationsDiscover); the zero value is full when the
	// declarations fit in durable.FullDeclarationsTokens.
	Declarations durable.DeclarationsMode
	// ConnectorHints are one-line hints by connector name for the default
	// description.
	ConnectorHints map[string]string
	// Instructions are sent in the handshake.
	Instructions string
	// Timeout, when positive, bounds each request's pass through its
	// context (the journal records a pass cut short as an error).
	Timeout time.Duration
	// MaxTokens bounds the answer's text, in estimated tokens of 4
	// characters; default mcpserver.DefaultMaxTokens.
	MaxTokens int
	// Logger, when not nil, receives one record per request; nil means
	// quiet.
	Logger *slog.Logger
	// Checker, when not nil, type-checks each program (Handle.ValidateCode)
	// before it runs: a program that does not type-check is answered with
	// the report and starts no execution. A checker that fails is logged
	// and the program runs unchecked.
	Checker *typecheck.Checker
	// NoElicitation turns off asking the person through the client. By
	// default, when the connected client declared the elicitation
	// capability, a pause sends one elicitation listing every pending
	// action: accept approves them and replays within the same code call
	// (a further pause asks again), decline rejects the execution, and
	// cancel, a timeout or a failed request leave it paused.
	NoElicitation bool
	// ElicitTimeout bounds each elicitation; default 10 minutes.
	ElicitTimeout time.Duration
	// MaxExecutions, MaxQueued and MaxExecutionsPerSession bound the passes
	// (a program's first pass, or the replay after an approval) the server
	// runs at once, as mcpserver.Options does (mcpserver.Turns); zero
	// fields take mcpserver's defaults. A person's decision being awaited
	// holds no turn.
	MaxExecutions, MaxQueued, MaxExecutionsPerSession int
}

// NewServer returns an MCP server whose code tool runs each program as a
// durable execution of h (Handle.Execute) and answers with its output:
// completed, paused with the pending actions (and a line telling the agent
// that they wait for a person and must not be retried), or error (an
// isError answer). Approvals happen outside the agent's reach: this server
// offers no tool to approve. When the client declared the elicitation
// capability, the person is asked through the client at each pause (see
// ServerOptions.NoElicitation). A second tool, code_result
// (ResultToolName), returns an execution's current output (Handle.Output).
func NewServer(h *durable.Handle, opts ServerOptions) *mcp.Server {
	opts = withDefaults(opts)
	names := h.ConnectorNames()
	list := strings.Join(names, ", ")
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	desc := h.ToolDescription(durable.DescriptionOptions{Declarations: opts.Declarations, ConnectorHints: opts.ConnectorHints, ResultTool: ResultToolName, SeparateContent: true})
	if opts.Description != "" {
		desc = strings.NewReplacer("{{types}}", strings.TrimRight(h.TypeDefinitions(), "\n"), "{{namespaces}}", list).Replace(opts.Description)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	srvState := &server{h: h, opts: opts, key: key, turns: newTurns(opts)}
	srv := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{Instructions: opts.Instructions})
	srv.AddTool(&mcp.Tool{
		Name:        mcpserver.ToolName,
		Description: desc,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"code": {"type": "string", "description": "The TypeScript program: an async arrow function, or statements with top-level await whose last expression is the answer."}}, "required": ["code"], "additionalProperties": false}`),
		Annotations: &mcp.ToolAnnotations{Title: "Run a durable TypeScript program over the connectors"},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return srvState.answer(ctx, req)
	})
	srv.AddTool(&mcp.Tool{
		Name:        ResultToolName,
		Description: "Returns the current outcome of a durable execution the code tool started, by its executionId: completed with the result, still paused (with the pending actions), or error (failed, rejected, expired or rolled back). It runs nothing; use it after a person decided on a paused execution.",
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"executionId": {"type": "string", "description": "The executionId of a code answer."}}, "required": ["executionId"], "additionalProperties": false}`),
		Annotations: &mcp.ToolAnnotations{Title: "Outcome of a durable execution", ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return resultAnswer(ctx, h, opts, req)
	})
	return srv
}

// withDefaults fills the zero fields of opts.
func withDefaults(opts ServerOptions) ServerOptions {
	if opts.Name == "" {
		opts.Name = "codemode"
	}
	if opts.Version == "" {
		opts.Version = "0.1.0"
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = mcpserver.DefaultMaxTokens
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ElicitTimeout <= 0 {
		opts.ElicitTimeout = 10 * time.Minute
	}
	return opts
}

// CodeHandler returns the code tool's handler of NewServer, for a server
// with its own tools, such as `codemode openapi serve --journal`'s execute:
// each call's {"code"} runs as one durable execution of h, answered as the
// code tool answers (pauses, elicitation and all).
func CodeHandler(h *durable.Handle, opts ServerOptions) mcp.ToolHandler {
	opts = withDefaults(opts)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	s := &server{h: h, opts: opts, key: key, turns: newTurns(opts)}
	return s.answer
}

// server is one NewServer's state: the handle, its options and the key that
// signs the request state of an approval asked in a result (SEP-2322).
type server struct {
	h     *durable.Handle
	opts  ServerOptions
	key   []byte
	turns *mcpserver.Turns
}

func newTurns(opts ServerOptions) *mcpserver.Turns {
	return mcpserver.NewTurns(mcpserver.TurnsOptions{MaxExecutions: opts.MaxExecutions, MaxQueued: opts.MaxQueued, MaxExecutionsPerSession: opts.MaxExecutionsPerSession})
}

// turn waits for a turn to run a pass for req's session; busy is the
// answer when there is none.
func (s *server) turn(ctx context.Context, req *mcp.CallToolRequest) (release func(), busy *mcp.CallToolResult) {
	var session any
	if req != nil && req.Session != nil {
		session = req.Session
	}
	release, msg := s.turns.Acquire(ctx, session, s.opts.Timeout)
	if msg != "" {
		s.opts.Logger.Warn("program refused", "reason", msg)
		return nil, textResult(true, msg)
	}
	return release, nil
}

// passCtx bounds one pass by ServerOptions.Timeout.
func (s *server) passCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.Timeout > 0 {
		return context.WithTimeout(ctx, s.opts.Timeout)
	}
	return context.WithCancel(ctx)
}

func (s *server) answer(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Params.RequestState != "" || req.Params.InputResponses != nil {
		return s.resume(ctx, req) // the person's answer to a pause asked in a result
	}
	var in struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Code) == "" {
		return textResult(true, `the code tool takes {"code": "<TypeScript program>"} with a non-empty program`), nil
	}
	h, opts := s.h, s.opts
	release, busy := s.turn(ctx, req)
	if busy != nil {
		return busy, nil
	}
	out, answered := s.run(ctx, h, opts, in.Code)
	release() // a person's decision, awaited in finish, holds no turn
	if answered != nil {
		return answered, nil
	}
	return s.finish(ctx, req, out, "")
}

// run type-checks code (with a Checker) and runs its first pass; answered
// is the answer when it does not type-check or the journal failed.
func (s *server) run(ctx context.Context, h *durable.Handle, opts ServerOptions, code string) (out durable.Output, answered *mcp.CallToolResult) {
	if opts.Checker != nil {
		cctx, cancel := s.passCtx(ctx)
		res, err := h.ValidateCode(cctx, opts.Checker, code)
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return out, textResult(true, "cancelled before the program ran: "+err.Error())
		case err != nil:
			opts.Logger.Warn("type check skipped", "err", err)
		case !res.Valid:
			opts.Logger.Info("program rejected by the type check", "diagnostics", len(res.Diagnostics))
			return out, textResult(true, "The program does not type-check, so nothing ran (no execution was started). Fix these errors and send it again:\n\n"+
				mcpserver.Truncate(res.Report, opts.MaxTokens*4))
		}
	}
	pctx, cancel := s.passCtx(ctx)
	out, err := h.Execute(pctx, code)
	cancel()
	if err != nil {
		opts.Logger.Warn("durable execution failed", "err", err)
		if out.ExecutionID != "" {
			return out, textResult(true, fmt.Sprintf("The execution %s did not finish: %v", out.ExecutionID, err))
		}
		return out, textResult(true, "The journal failed; nothing ran: "+err.Error())
	}
	return out, nil
}

// finish answers out. While it is paused and the client takes elicitation,
// the person decides within this call: asked in the result (input
// requests, protocol 2026-07-28 and later: the client retries the call
// with the answer, see resume) or by an elicitation request (older
// protocols). The model never sees the question.
func (s *server) finish(ctx context.Context, req *mcp.CallToolRequest, out durable.Output, note string) (*mcp.CallToolResult, error) {
	for out.Status == durable.OutputPaused && s.elicits(req) {
		question, whole := approvalQuestion(out, s.opts.MaxTokens*2)
		if !whole {
			// The person would approve arguments they cannot see: leave
			// the decision to the journal page or the CLI, which show all.
			s.opts.Logger.Info("approval not asked: the arguments do not fit the question", "execution", out.ExecutionID)
			note = "The pending actions' arguments are too long to show the person in full in this client, so they were not asked here; a person reviews them with `codemode pending` or the journal page."
			break
		}
		params := &mcp.ElicitParams{Message: question, RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
		if multiRoundTrip(req) {
			s.opts.Logger.Info("approval asked", "execution", out.ExecutionID)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalInput: params}, RequestState: s.sign(req, out)}, nil
		}
		ectx, cancel := context.WithTimeout(ctx, s.opts.ElicitTimeout)
		res, err := req.Session.Elicit(ectx, params)
		cancel()
		action := "cancel"
		if err == nil {
			action = res.Action
		} else {
			s.opts.Logger.Info("approval not answered", "execution", out.ExecutionID, "err", err)
		}
		var stop bool
		if out, note, stop = s.decide(ctx, req, out, action); stop {
			break
		}
	}
	res, err := render(out, s.opts)
	if err == nil && note != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: note})
	}
	return res, err
}

// approvalInput is the input request's ID for an approval.
const approvalInput = "approve"

// decide applies the person's answer to a pause: accept approves and
// replays (stop false: the new output may pause again), decline rejects
// the first pending action (the execution ends), anything else leaves it
// paused. note is a line for the agent.
func (s *server) decide(ctx context.Context, req *mcp.CallToolRequest, out durable.Output, action string) (_ durable.Output, note string, stop bool) {
	id := out.ExecutionID
	switch action {
	case "accept":
		s.opts.Logger.Info("approval accepted", "execution", id)
		release, busy := s.turn(ctx, req)
		if busy != nil {
			return out, "The person approved, but the server is too busy to replay the execution now; it stays paused: " + textOf(busy), true
		}
		defer release()
		pctx, cancel := s.passCtx(ctx)
		defer cancel()
		// The actions the person was asked about, and only those: another
		// approval may have moved the execution on meanwhile.
		seqs := make([]uint64, len(out.Pending))
		for i, p := range out.Pending {
			seqs[i] = p.Seq
		}
		next, err := s.h.ApprovePending(pctx, id, seqs)
		if errors.Is(err, durable.ErrPendingChanged) || errors.Is(err, durable.ErrNotPaused) {
			s.opts.Logger.Info("durable approval overtaken", "execution", id, "err", err)
			return out, "The person approved, but the execution had moved on meanwhile (approved or ended elsewhere); code_result gives its current state.", true
		}
		if err != nil {
			s.opts.Logger.Warn("durable approval failed", "execution", id, "err", err)
			return durable.Output{Status: durable.OutputError, ExecutionID: id, Error: fmt.Sprintf("the person approved, but the replay did not finish: %v", err)}, "", true
		}
		return next, "", false
	case "decline":
		s.opts.Logger.Info("approval declined", "execution", id)
		if _, err := s.h.Reject(ctx, id, out.Pending[0].Seq); err != nil {
			return durable.Output{Status: durable.OutputError, ExecutionID: id, Error: fmt.Sprintf("the person declined, but rejecting the execution failed: %v", err)}, "", true
		}
		now, err := s.h.Output(ctx, id)
		if err != nil {
			now = durable.Output{Status: durable.OutputError, ExecutionID: id, Error: "Action rejected by the person"}
		}
		return now, "The person declined the action, so the execution was rejected. Do not retry it.", true
	}
	s.opts.Logger.Info("approval not decided", "execution", id, "action", action)
	return out, "The person was asked to approve and did not decide; the execution stays paused.", true
}

// elicits reports whether pauses are put to the person through the client:
// the client declared the elicitation capability and the server allows it.
func (s *server) elicits(req *mcp.CallToolRequest) bool {
	if s.opts.NoElicitation || req.Session == nil {
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

// approvalState is what the request state of an approval asked in a
// result carries: the execution, the pending actions shown (by seq) and
// the session, signed with the server's key so a client cannot make up an
// approval of another execution.
type approvalState struct {
	ExecutionID string   `json:"e"`
	Seqs        []uint64 `json:"p"`
	Session     string   `json:"s"`
}

func (s *server) sign(req *mcp.CallToolRequest, out durable.Output) string {
	st := approvalState{ExecutionID: out.ExecutionID, Session: req.Session.ID()}
	for _, p := range out.Pending {
		st.Seqs = append(st.Seqs, p.Seq)
	}
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
func (s *server) resume(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	st, ok := s.verify(req, req.Params.RequestState)
	if !ok {
		return textResult(true, "The approval answer's request state does not verify (it was not issued by this server for this session); nothing was decided."), nil
	}
	out, err := s.h.Output(ctx, st.ExecutionID)
	if err != nil {
		return textResult(true, fmt.Sprintf("Reading execution %s failed: %v", st.ExecutionID, err)), nil
	}
	var seqs []uint64
	for _, p := range out.Pending {
		seqs = append(seqs, p.Seq)
	}
	if out.Status != durable.OutputPaused || !slices.Equal(seqs, st.Seqs) {
		// Decided elsewhere meanwhile (the CLI, the journal page).
		return s.finish(ctx, req, out, "The execution was decided elsewhere while the person was asked.")
	}
	action := "cancel"
	if r, ok := req.Params.InputResponses[approvalInput].(*mcp.ElicitResult); ok {
		action = r.Action
	}
	out, note, stop := s.decide(ctx, req, out, action)
	if stop {
		res, err := render(out, s.opts)
		if err == nil && note != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: note})
		}
		return res, err
	}
	return s.finish(ctx, req, out, "")
}

// approvalQuestion is the elicitation message for a pause: every pending
// action with its arguments, within budget characters. whole is false when
// an action's arguments do not fit their share (at most 2,000 characters
// each): a cut could hide the argument that matters (the adversarial review
// hid "to": "mallory" after 400 padding keys), so such a pause is not
// asked in the client at all.
func approvalQuestion(out durable.Output, budget int) (question string, whole bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "A program (execution %s) wants to run %d action(s) that need your approval:\n", out.ExecutionID, len(out.Pending))
	per := min(budget/max(len(out.Pending), 1), 2000)
	whole = true
	for _, p := range out.Pending {
		args := string(p.Args)
		if len(args) > per {
			whole = false
			args = mcpserver.Truncate(args, per)
		}
		fmt.Fprintf(&b, "\n- %s.%s with %s", p.Connector, p.Method, args)
	}
	b.WriteString("\n\nAccept to approve all of them and continue the program; decline to reject it (actions already done stay done).")
	return b.String(), whole
}

// resultAnswer is code_result: the execution's current output.
func resultAnswer(ctx context.Context, h *durable.Handle, opts ServerOptions, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		ExecutionID string `json:"executionId"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.ExecutionID == "" {
		return textResult(true, `code_result takes {"executionId": "exec_..."}, the executionId of a code answer`), nil
	}
	out, err := h.Output(ctx, in.ExecutionID)
	switch {
	case errors.Is(err, durable.ErrNotFound):
		return textResult(true, fmt.Sprintf("No execution %s in this journal (runtime %s).", in.ExecutionID, h.Name())), nil
	case errors.Is(err, durable.ErrRunning):
		return textResult(false, fmt.Sprintf(`{"status":"running","executionId":%q}`+"\nThe execution is still running (its pass has not ended); ask again later.", in.ExecutionID)), nil
	case err != nil:
		return textResult(true, "The journal failed: "+err.Error()), nil
	}
	return render(out, opts)
}

// render is the answer for an output: its JSON (without content), then,
// for completed, the appended content; for paused, a line telling the
// agent not to retry.
func render(out durable.Output, opts ServerOptions) (*mcp.CallToolResult, error) {
	budget := opts.MaxTokens * 4
	head := out
	head.Content = nil              // sent as items of their own after the JSON
	text, err := head.MarshalJSON() // not json.Marshal, which escapes "<", ">" and "&"
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: mcpserver.Truncate(string(text), budget)}}}
	switch out.Status {
	case durable.OutputPaused:
		opts.Logger.Info("execution paused", "execution", out.ExecutionID, "pending", len(out.Pending))
		var actions []string
		for _, p := range out.Pending {
			actions = append(actions, fmt.Sprintf("%s.%s (seq %d)", p.Connector, p.Method, p.Seq))
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf(
			"The execution %s is paused: %s wait(s) for a person's approval. Do not retry it or send the program again; tell the user what is pending. When a person approves, the execution continues from here without repeating earlier calls; if they reject it, it ends. Call code_result with the executionId to see the outcome later.",
			out.ExecutionID, strings.Join(actions, ", "))})
	case durable.OutputError:
		opts.Logger.Info("execution ended with an error", "execution", out.ExecutionID)
		res.IsError = true
	default:
		opts.Logger.Info("execution completed", "execution", out.ExecutionID)
		res.Content = append(res.Content, contentOf(out.Content, budget)...)
	}
	return res, nil
}

// contentOf converts what a completed program appended (result.appendText,
// result.appendImage) to MCP content after the output's JSON: text within
// budget characters, images as they are (the runtime bounds their size).
func contentOf(items []client.Content, budget int) []mcp.Content {
	var out []mcp.Content
	for _, c := range items {
		if c.Type == "image" {
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				out = append(out, &mcp.TextContent{Text: "[an image whose data is not base64]"})
				continue
			}
			out = append(out, &mcp.ImageContent{Data: data, MIMEType: c.MimeType})
			continue
		}
		out = append(out, &mcp.TextContent{Text: mcpserver.Truncate(c.Text, budget)})
	}
	return out
}

func textResult(isError bool, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// textOf is the text of an answer made by textResult.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
