package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/internal/coderun"
	"github.com/codemode-go/codemode/internal/defaults"
	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/codemode-go/codemode/internal/runctx"
)

// resultToolName is the name of the tool that reads an execution's current
// answer, offered beside the code tool when its runner is a
// codetool.Approver.
const resultToolName = "code_result"

// Defaults of Options (internal/defaults, where the command line's flags
// read them too).
const (
	defaultMaxTokens     = defaults.MCPMaxTokens
	defaultMaxExecutions = defaults.MCPMaxExecutions
	defaultMaxQueued     = defaults.MCPMaxQueued
)

// Options configure the server.
type Options struct {
	// Name and Version identify the server in the MCP handshake; defaults
	// "codemode" and "0.1.0".
	Name, Version string
	// Instructions are sent in the handshake (for example the upstream
	// servers' own instructions).
	Instructions string
	// Tool shapes the code tool: its description (codetool.Tool's, unless
	// Tool.Description replaces it), hints, declarations mode and checker. ResultTool and SeparateContent are set
	// by the server.
	Tool codetool.Options
	// Timeout, when positive, bounds each call of the code tool: its wait
	// for a turn, its type check and its run. The program's own deadline is
	// the runner's (client.Limits.Timeout), which should be shorter, so that
	// the answer is the program's TimeoutError; a call Timeout ends first is
	// answered with status "error" and a TimeoutError naming Timeout (a
	// durable execution cut short is recorded as an error).
	Timeout time.Duration
	// MaxTokens bounds the answer's text, in estimated tokens (4 characters
	// each); default 6,000. JSON is cut structurally: it stays valid JSON,
	// and a marker says what was left out ("… 3 more items", "…": "1 more
	// key: logs").
	MaxTokens int
	// Logger, when not nil, receives one record per request: progress and
	// failures for an operator (codemode mcp serve writes them to stderr).
	// Nil means quiet.
	Logger *slog.Logger
	// MaxExecutions caps the programs running at once (each QuickJS
	// execution may hold its memory limit); default 8.
	MaxExecutions int
	// MaxQueued caps the programs waiting for one of MaxExecutions; past it
	// a program is answered at once that the server is busy, and so is one
	// that waited Timeout (or, without Timeout, until its request ended)
	// without a turn. Default 64.
	MaxQueued int
	// MaxExecutionsPerSession caps the programs one MCP session runs at
	// once, so that one client cannot take every slot while another's
	// program waits: its further programs wait in the queue (counted in
	// MaxQueued) for one of its own to end. Default MaxExecutions/2, at
	// least 1; set it to MaxExecutions for a server with one client (stdio).
	MaxExecutionsPerSession int
	// MaxInFlightBytes caps the bytes the server's programs hold in tool
	// calls all together, as client.Limits.MaxInFlightBytes caps one
	// program's (reserved as the memory is taken): without it,
	// MaxExecutions programs could each hold their own bound. A call that
	// would pass it fails with a RangeError naming it. Default 256 MiB, as
	// for one program.
	MaxInFlightBytes int64
	// NoElicitation turns off asking the person through the client. By
	// default, when the client declared the elicitation capability, the
	// person decides approvals there: for a codetool.Approver, a pause sends
	// one elicitation listing every pending action (accept approves them
	// and continues within the same call, and a further pause asks again;
	// decline rejects the execution; cancel, a timeout or a failed request
	// leave it paused); for another runner, each call that needs approval is
	// asked about before it runs.
	NoElicitation bool
	// ElicitTimeout bounds each elicitation; default 10 minutes.
	ElicitTimeout time.Duration
	// ApprovePrograms shows each program whole to the person, through the
	// client, before it runs (before its type check too) (a saved program
	// offered as a tool: its code and the arguments); it runs only if they
	// accept. Calls whose tools need approval are still decided one by one,
	// as their policy says. A client that did not declare elicitation, or
	// a program longer than 20,000 characters, is refused: nothing runs.
	ApprovePrograms bool
	// SnippetsAsTools lists each saved snippet the runner can run (its
	// namespaces are all there) as an MCP tool of its own, beside the code
	// tool: named as the snippet, described by its description, taking its
	// input schema (any object when it has none). A call checks its
	// arguments against that schema and runs codemode.run(name, arguments)
	// in a new execution, answered as the code tool's are (a pause for
	// approval included). The list is read again on every tools/list, so
	// snippets saved or deleted while the server runs show. A snippet named
	// like another tool of the server is left out. It needs a runner that
	// keeps snippets (a *durable.Handle); New returns an error otherwise.
	SnippetsAsTools bool
	// MeterProvider, when set, records the server's OpenTelemetry gauges:
	// codemode.mcp.programs.running and codemode.mcp.programs.queued. (The
	// programs' own metrics are the runner's: client.RunOptions.MeterProvider.)
	MeterProvider metric.MeterProvider
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "codemode"
	}
	if o.Version == "" {
		o.Version = "0.1.0"
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = defaultMaxTokens
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxExecutions <= 0 {
		o.MaxExecutions = defaultMaxExecutions
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = defaultMaxQueued
	}
	if o.ElicitTimeout <= 0 {
		o.ElicitTimeout = defaults.MCPElicitTimeout
	}
	return o
}

// codeSchema is the code tool's input schema.
var codeSchema = json.RawMessage(codetool.InputSchema)

// New returns an MCP server whose code tool (codetool.Name) runs each
// program with r and answers with its codetool.Answer: the answer's JSON,
// then what the program appended with result.appendText and
// result.appendImage as MCP text and image content, within the token
// budget; an error answer is an isError result. When r is a
// codetool.Approver, a paused answer also tells the agent not to retry,
// the person is asked through the client (see Options.NoElicitation), and
// a second tool, code_result (resultToolName), returns an execution's
// current answer. Approvals happen outside the agent's reach: no tool
// approves. A runner with a Changed() <-chan struct{} method has a
// contract that can grow (an MCP server joined): after each value on it,
// the code tool is described again and clients are told
// (notifications/tools/list_changed) until the channel is closed. It
// returns an error for bad Tool options (a hint naming no namespace).
//
//	srv, err := mcpserver.New(cl, mcpserver.Options{})
//	err = srv.Run(ctx, &mcp.StdioTransport{})
func New(r codetool.Runner, opts Options) (*mcp.Server, error) {
	opts = opts.withDefaults()
	srv := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{Instructions: opts.Instructions})
	s := newServer(opts)
	if err := s.observeTurns(opts.MeterProvider); err != nil {
		return nil, err
	}
	h, err := s.addCodeTool(srv, codeTool{name: codetool.Name, runner: r, title: "Run a TypeScript program over the tools", options: opts.Tool})
	if err != nil {
		return nil, err
	}
	if opts.SnippetsAsTools {
		if err := s.addSnippetTools(srv, h); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

// growing is a Runner whose contract can grow while it serves (codemode
// mcp serve's, when an MCP server that was down comes up): a value on
// Changed means Contract and TypeDefinitions answer anew, and the code
// tool is described again; the runner closes the channel when it is done.
type growing interface {
	codetool.Runner
	Changed() <-chan struct{}
}

// codeTool is one code tool of a server: its name, runner, title,
// annotations and options (options.Description, when set, is its whole
// description).
type codeTool struct {
	name, title string
	runner      codetool.Runner
	annotations *mcp.ToolAnnotations
	options     codetool.Options
}

// server is one MCP server's state: its options, the turns its code tools
// share, and the key that signs the request state of an approval asked in
// a result (SEP-2322).
type server struct {
	opts  Options
	turns *turns
	key   []byte
	// inFlight is Options.MaxInFlightBytes, shared by every code tool of
	// the server (NewOpenAPI's search and execute draw on the same).
	inFlight *membudget.Budget
}

func newServer(opts Options) *server {
	limit := opts.MaxInFlightBytes
	if limit <= 0 {
		limit = membudget.DefaultLimit
	}
	return &server{opts: opts, key: newKey(),
		turns:    newTurns(turnsOptions{MaxExecutions: opts.MaxExecutions, MaxQueued: opts.MaxQueued, MaxExecutionsPerSession: opts.MaxExecutionsPerSession}),
		inFlight: membudget.New(limit, "mcpserver.Options.MaxInFlightBytes", nil)}
}

// describe is the code tool's description over r with opts
// (codetool.Tool.Description).
func describe(r codetool.Runner, opts codetool.Options) (string, error) {
	tool, err := codetool.New(r, opts)
	if err != nil {
		return "", err
	}
	return tool.Description, nil
}

// addCodeTool adds t (and code_result when its runner is an Approver),
// returning the handler of its calls.
func (s *server) addCodeTool(srv *mcp.Server, t codeTool) (*codeHandler, error) {
	topts := t.options
	a, approves := t.runner.(codetool.Approver)
	if approves {
		topts.ResultTool = resultToolName
	}
	topts.SeparateContent = true
	if topts.Sessions && approves {
		return nil, errors.New("mcpserver: Tool.Sessions needs a runner whose executions do not pause (a *client.Client): a durable run replays its program from the start on every pass, and bindings carried in from outside its journal would make the replays differ")
	}
	desc, err := describe(t.runner, topts)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	annotations := t.annotations
	if annotations == nil {
		annotations = &mcp.ToolAnnotations{}
	}
	annotations.Title = t.title
	h := &codeHandler{s: s, r: t.runner, tool: topts, srv: srv}
	srv.AddTool(&mcp.Tool{Name: t.name, Description: desc, InputSchema: codeSchema, Annotations: annotations}, h.call)
	s.addDirectTools(srv, t.runner)
	if g, ok := t.runner.(growing); ok {
		// Owned by the runner: the loop ends when it closes the channel.
		go func() {
			for range g.Changed() {
				desc, err := describe(t.runner, topts)
				if err != nil {
					s.opts.Logger.Warn("the code tool was not described again", "err", err)
					continue
				}
				// Replacing the tool tells every session
				// (notifications/tools/list_changed).
				srv.AddTool(&mcp.Tool{Name: t.name, Description: desc, InputSchema: codeSchema, Annotations: annotations}, h.call)
				s.addDirectTools(srv, t.runner)
			}
		}()
	}
	if approves {
		srv.AddTool(&mcp.Tool{
			Name:        resultToolName,
			Description: "Returns the current outcome of an execution the code tool started, by its executionId: completed with the value, still paused (with the pending actions), or error (failed, rejected, expired or rolled back). It runs nothing; use it after a person decided on a paused execution.",
			InputSchema: json.RawMessage(`{"type": "object", "properties": {"executionId": {"type": "string", "description": "The executionId of a code answer."}}, "required": ["executionId"], "additionalProperties": false}`),
			Annotations: &mcp.ToolAnnotations{Title: "Outcome of an execution", ReadOnlyHint: true},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.resultAnswer(ctx, a, req)
		})
	}
	return h, nil
}

// codeHandler answers one code tool's calls.
type codeHandler struct {
	s    *server
	r    codetool.Runner
	tool codetool.Options
	srv  *mcp.Server // whose open sessions key the code tool's sessions
}

func (h *codeHandler) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s := h.s
	if a, ok := h.r.(codetool.Approver); ok && (req.Params.RequestState != "" || req.Params.InputResponses != nil) && !s.programAnswer(req) {
		return s.resume(ctx, a, req) // the person's answer to a pause asked in a result
	}
	code, reason := coderun.Code(req.Params.Arguments)
	if reason != "" {
		return textResult(true, (&codetool.ArgumentsError{Reason: reason}).Error()), nil
	}
	return h.answer(ctx, req, code, code)
}

// programAnswer reports whether req answers a program's approval asked in
// a result (its request state names a program).
func (s *server) programAnswer(req *mcp.CallToolRequest) bool {
	st, ok := s.verify(req, req.Params.RequestState)
	return ok && st.Program != ""
}

// answer runs code for req, within a turn, and answers (for an Approver,
// after asking the person about a pause when the client can be asked);
// shown is what a person approving the program sees.
func (h *codeHandler) answer(ctx context.Context, req *mcp.CallToolRequest, code, shown string) (*mcp.CallToolResult, error) {
	s := h.s
	ctx, stop := s.programGate(ctx, req, code, shown)
	if stop != nil {
		return stop, nil
	}
	release, busy := s.turn(ctx, req)
	if busy != nil {
		return busy, nil
	}
	ctx = withProgress(ctx, req)
	answer, err := h.run(ctx, req, code)
	release() // a person's decision, awaited in finish, holds no turn
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		s.opts.Logger.Warn("program cut short", "execution", answer.ExecutionID, "timeout", s.opts.Timeout)
		answer.Status = codetool.StatusError
		answer.Error = fmt.Sprintf("TimeoutError: the program did not finish within the server's %v limit", s.opts.Timeout)
		return s.render(answer)
	}
	if err != nil {
		switch {
		case ctx.Err() != nil:
			// The client cancelled the request (or went away): the program
			// was stopped, not refused.
			s.opts.Logger.Info("program cancelled by the client", "execution", answer.ExecutionID, "err", err)
		case answer.ExecutionID != "":
			s.opts.Logger.Warn("program did not finish", "execution", answer.ExecutionID, "err", err)
		default:
			s.opts.Logger.Warn("program not run", "err", err)
		}
		if answer.ExecutionID != "" {
			return textResult(true, fmt.Sprintf("The execution %s did not finish: %v", answer.ExecutionID, err)), nil
		}
		return textResult(true, "The program did not run: "+err.Error()), nil
	}
	if a, ok := h.r.(codetool.Approver); ok {
		return s.finish(ctx, a, req, answer, "")
	}
	return s.render(answer)
}

// run type-checks and runs code within the server's Timeout; a runner
// that is not an Approver may ask the person about calls that need
// approval, through the client.
func (h *codeHandler) run(ctx context.Context, req *mcp.CallToolRequest, code string) (codetool.Answer, error) {
	s := h.s
	if s.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
		defer cancel()
	}
	switch _, pauses := h.r.(codetool.Approver); {
	case pauses: // its pauses are put to the person in finish
	case s.elicits(req) && !multiRoundTrip(req):
		// Asked while the program runs: a request sent while a call is
		// served, which protocols from 2026-07-28 on do not allow (they ask
		// in results, and a plain run cannot wait for the next call).
		ctx = runctx.WithApprove(ctx, s.askApproval(req))
	default:
		// Refused by the runner's own Approve, or its default refusal;
		// the runner may say why nobody was asked.
		ctx = runctx.WithCannotAsk(ctx, s.cannotAsk(req))
	}
	if s.elicits(req) && !multiRoundTrip(req) {
		// A tool's server may ask the person a question while a call runs
		// (an upstream MCP server's elicitation): it is forwarded here.
		ctx = runctx.WithAsker(ctx, s.asker(req))
	}
	ctx = progressOf(ctx).withRun(ctx)
	if h.tool.Sessions {
		ctx = runctx.WithLiveSessions(codetool.WithSession(ctx, sessionKey(req)), h.liveSessions())
	}
	// Every program's in-flight bytes are also the server's.
	answer, err := coderun.Run(membudget.WithShared(ctx, s.inFlight), h.r, h.tool.Checker, code, refused)
	if err == nil {
		s.opts.Logger.Info("program ended", "status", answer.Status, "execution", answer.ExecutionID)
	}
	return answer, err
}

// refused is the answer for a program the server did not start: one that
// does not type-check, or that a person did not approve (message says
// which).
func refused(message string) codetool.Answer {
	return codetool.Answer{Status: codetool.StatusError, Error: message}
}

// sessionKey is the code tool's session key of req's MCP session: its
// session ID over HTTP, one key for stdio. MCP sessions never share one.
func sessionKey(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return "mcp:"
	}
	return "mcp:" + req.Session.ID()
}

// liveSessions reports which session keys belong to MCP sessions still
// open, so that the runner drops the bindings of closed ones.
func (h *codeHandler) liveSessions() func(key string) bool {
	live := map[string]bool{}
	for ss := range h.srv.Sessions() {
		live["mcp:"+ss.ID()] = true
	}
	return func(key string) bool { return live[key] }
}

// turn waits for a turn to run a program for req's session; busy is the
// answer when there is none.
func (s *server) turn(ctx context.Context, req *mcp.CallToolRequest) (release func(), busy *mcp.CallToolResult) {
	var session any
	if req != nil && req.Session != nil {
		session = req.Session
	}
	release, msg := s.turns.acquire(ctx, session, s.opts.Timeout)
	if msg != "" {
		s.opts.Logger.Warn("program refused", "reason", msg)
		return nil, textResult(true, msg)
	}
	return release, nil
}

// resultAnswer is code_result: the execution's current answer.
func (s *server) resultAnswer(ctx context.Context, a codetool.Approver, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		ExecutionID string `json:"executionId"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.ExecutionID == "" {
		return textResult(true, `code_result takes {"executionId": "exec_..."}, the executionId of a code answer`), nil
	}
	answer, err := a.Answer(ctx, in.ExecutionID)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return textResult(true, "Cancelled: "+err.Error()), nil
		}
		return textResult(true, err.Error()), nil
	}
	return s.render(answer)
}

func textResult(isError bool, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
