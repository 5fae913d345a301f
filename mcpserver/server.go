package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"
)

// ToolName is the name of the one tool the server offers.
const ToolName = "code"

// DefaultMaxTokens is the default answer budget, in estimated tokens of 4
// characters each (TruncateOptions' 6,000 tokens, https://developers.cloudflare.com/agents/tools/codemode/api-reference/).
const DefaultMaxTokens = 6000

// DefaultDescription is the code tool's description when Options has none.
// {{types}} becomes the contract's declarations, {{example}} a call of one
// tool, {{namespaces}} the list of tool namespaces in scope, {{errors}} the
// error names a tool call rejects with (contract.ToolCallErrorsText) and
// {{runtime}} the runtime's description (a sandbox, or not).
const DefaultDescription = `Run a TypeScript program that calls the tools declared below, and answer with its result. Use it to do in one step what would otherwise take many tool calls: call several tools, loop, filter and combine their results, and return only what matters.

Write plain statements with top-level await. The value of the last expression statement (or a value you return) is the answer: a string as it is, anything else as JSON. In scope: {{namespaces}} (the tools, as declared below), console and result; result.appendText(text) and result.appendImage({data, mimeType}) add content before the answer, and console.log output is returned separately. A failed tool call throws an Error whose name says why ({{errors}}). Where the program runs: {{runtime}}.

Example:
` + "```ts\n{{example}}\n```" + `

Declarations:
` + "```ts\n{{types}}\n```"

// Options configures the server.
type Options struct {
	// Name and Version identify the server in the MCP handshake; defaults
	// "codemode" and "0.1.0".
	Name, Version string
	// Description is the code tool's description, with the {{types}},
	// {{example}}, {{namespaces}}, {{errors}} and {{runtime}} placeholders; default
	// DefaultDescription.
	Description string
	// Instructions are sent in the handshake (for example the upstream
	// servers' own instructions).
	Instructions string
	// Checker, when not nil, type-checks each program before it runs; an
	// invalid program is answered with the compiler's report.
	Checker *typecheck.Checker
	// Timeout, when positive, bounds each program: its type check, and its
	// run as client.Limits.Timeout (a TimeoutError outcome on every runtime;
	// a driver's own cap, such as the QuickJS driver's Timeout, may end it
	// sooner).
	Timeout time.Duration
	// MaxTokens bounds the answer's text, in estimated tokens (4 characters
	// each); default DefaultMaxTokens.
	MaxTokens int
	// Logger, when not nil, receives one record per request: progress and
	// failures for an operator (codemode mcp serve writes them to stderr).
	// Nil means quiet.
	Logger *slog.Logger
	// Fetch, when not nil, lets programs fetch through the host under this
	// policy (client.RunOptions.Fetch); nil leaves fetch off.
	Fetch *client.FetchPolicy
	// TracerProvider, when set, records each program's OpenTelemetry spans
	// (client.RunOptions.TracerProvider); nil records nothing.
	TracerProvider trace.TracerProvider
	// MaxExecutions caps the programs running at once (each QuickJS
	// execution may hold its memory limit); default DefaultMaxExecutions.
	MaxExecutions int
	// MaxQueued caps the programs waiting for one of MaxExecutions; past it
	// a program is answered at once that the server is busy, and so is one
	// that waited Timeout (or, without Timeout, until its request ended)
	// without a turn. Default DefaultMaxQueued.
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
	// would pass it fails with a RangeError naming it. Default
	// client.DefaultMaxInFlightBytes.
	MaxInFlightBytes int64
}

// Defaults of Options.MaxExecutions and Options.MaxQueued: eight programs of
// up to 64 MiB each run at once (a review measured 24 concurrent programs
// at 1.75 GB), and 64 more wait.
const (
	DefaultMaxExecutions = 8
	DefaultMaxQueued     = 64
)

// codeInput is the code tool's input.
type codeInput struct {
	Code string `json:"code"`
}

// inputSchema is the code tool's input schema.
const inputSchema = `{"type": "object", "properties": {"code": {"type": "string", "description": "The TypeScript program: statements with top-level await whose last expression is the answer, an async arrow function, or a module with a default export."}}, "required": ["code"], "additionalProperties": false}`

// New returns an MCP server whose code tool runs programs with cl (its
// contract's tools, on its runtime).
func New(cl *client.Client, opts Options) *mcp.Server {
	if opts.Name == "" {
		opts.Name = "codemode"
	}
	if opts.Version == "" {
		opts.Version = "0.1.0"
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxExecutions <= 0 {
		opts.MaxExecutions = DefaultMaxExecutions
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	desc := strings.ReplaceAll(description(cl.Contract(), opts.Description), "{{runtime}}", cl.Executor().Description())
	srv := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{Instructions: opts.Instructions})
	h := &handler{cl: cl, opts: opts, turns: NewTurns(TurnsOptions{MaxExecutions: opts.MaxExecutions, MaxQueued: opts.MaxQueued, MaxExecutionsPerSession: opts.MaxExecutionsPerSession}),
		inFlight: newInFlight(opts)}
	srv.AddTool(&mcp.Tool{
		Name:        ToolName,
		Description: desc,
		InputSchema: json.RawMessage(inputSchema),
		Annotations: &mcp.ToolAnnotations{Title: "Run a TypeScript program over the tools"},
	}, h.call)
	return srv
}

// description fills a description template (DefaultDescription when
// template is empty) with the contract's declarations ({{types}}), a call of
// one of its tools ({{example}}), its namespaces ({{namespaces}}, e.g.
// "memory and files") and the error names a tool call rejects with
// ({{errors}}).
func description(c *contract.Contract, template string) string {
	if template == "" {
		template = DefaultDescription
	}
	var names []string
	for _, ns := range c.NamespaceList() {
		names = append(names, ns.Name)
	}
	list := strings.Join(names, ", ")
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	r := strings.NewReplacer("{{types}}", strings.TrimRight(c.TypeDefinitions(), "\n"), "{{example}}", example(c), "{{namespaces}}", list, "{{errors}}", contract.ToolCallErrorsText())
	return r.Replace(template)
}

// readPrefixes mark tool names that read rather than change, which make a
// safer example for an agent to copy.
var readPrefixes = []string{"get", "list", "search", "read", "find", "query", "open", "fetch", "describe", "lookup"}

// example returns a short program calling one of the contract's tools with
// placeholder values for its required input properties: the first tool
// whose name suggests it only reads (get…, list…, search…, read…), else the
// first tool. For example
//
//	const answer = await memory.search_nodes({ query: "…" });
//	answer
func example(c *contract.Contract) string {
	var first, reader *contract.Tool
	var firstNS, readerNS string
	for _, ns := range c.NamespaceList() {
		for _, t := range ns.Tools {
			if first == nil {
				first, firstNS = t, ns.Name
			}
			lower := strings.ToLower(t.Name())
			for _, p := range readPrefixes {
				if reader == nil && strings.HasPrefix(lower, p) {
					reader, readerNS = t, ns.Name
				}
			}
		}
	}
	if reader != nil {
		first, firstNS = reader, readerNS
	}
	if first == nil {
		return `"no tools are available"`
	}
	return fmt.Sprintf("const answer = await %s.%s(%s);\nanswer", firstNS, first.Name(), exampleArgs(first.InputSchema().JSON()))
}

// exampleArgs renders placeholder arguments for a schema's required
// properties.
func exampleArgs(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Required) == 0 {
		return "{}"
	}
	var parts []string
	for _, name := range s.Required {
		p := s.Properties[name]
		value := `"…"`
		typ, _ := p.Type.(string)
		switch {
		case len(p.Enum) > 0:
			b, _ := json.Marshal(p.Enum[0])
			value = string(b)
		case typ == "number" || typ == "integer":
			value = "1"
		case typ == "boolean":
			value = "true"
		case typ == "array":
			value = "[]"
		case typ == "object":
			value = "{}"
		}
		key, _ := json.Marshal(name)
		if contract.CheckToolName(name) == nil {
			key = []byte(name)
		}
		parts = append(parts, string(key)+": "+value)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// handler answers code tool calls.
type handler struct {
	cl   *client.Client
	opts Options
	// turns are the execution slots, the queue and the sessions' shares,
	// one set for all the tools of a server (NewOpenAPI's search and
	// execute draw on the same).
	turns *Turns
	// inFlight is Options.MaxInFlightBytes, shared like turns.
	inFlight *membudget.Budget
}

// newInFlight returns the server's budget of in-flight bytes.
func newInFlight(o Options) *membudget.Budget {
	if o.MaxInFlightBytes <= 0 {
		o.MaxInFlightBytes = client.DefaultMaxInFlightBytes
	}
	return membudget.New(o.MaxInFlightBytes, "mcpserver.Options.MaxInFlightBytes", nil)
}

// TurnsOptions are the limits of a Turns; zero fields take the defaults of
// Options (DefaultMaxExecutions, DefaultMaxQueued, half the executions).
type TurnsOptions struct {
	// MaxExecutions caps the programs running at once.
	MaxExecutions int
	// MaxQueued caps the programs waiting for a turn.
	MaxQueued int
	// MaxExecutionsPerSession caps the programs one MCP session runs at
	// once; at most MaxExecutions.
	MaxExecutionsPerSession int
}

// Turns bounds the programs an MCP server runs: at most MaxExecutions at
// once, at most MaxExecutionsPerSession of them for one session (so one
// client cannot make another's program wait behind all of its own), and
// at most MaxQueued waiting; past that a program is answered at once that
// the server is busy. The servers of this package use one each;
// durablemcp's server uses one too. Safe for concurrent use.
type Turns struct {
	opts   TurnsOptions
	slots  chan struct{} // one per running program
	queued atomic.Int64  // programs waiting for a slot

	mu       sync.Mutex
	sessions map[any]*sessionSlots // by MCP session (its *mcp.ServerSession)
}

// NewTurns returns the turns of one server.
func NewTurns(o TurnsOptions) *Turns {
	if o.MaxExecutions <= 0 {
		o.MaxExecutions = DefaultMaxExecutions
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	if o.MaxExecutionsPerSession <= 0 {
		o.MaxExecutionsPerSession = max(1, o.MaxExecutions/2)
	}
	o.MaxExecutionsPerSession = min(o.MaxExecutionsPerSession, o.MaxExecutions)
	return &Turns{opts: o, slots: make(chan struct{}, o.MaxExecutions), sessions: map[any]*sessionSlots{}}
}

// sessionSlots are one session's share of the slots; refs counts the calls
// holding or waiting for one, and the entry goes when it drops to zero.
type sessionSlots struct {
	slots chan struct{}
	refs  int
}

func (t *Turns) session(id any) *sessionSlots {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil {
		s = &sessionSlots{slots: make(chan struct{}, t.opts.MaxExecutionsPerSession)}
		t.sessions[id] = s
	}
	s.refs++
	return s
}

func (t *Turns) leave(id any, s *sessionSlots) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.refs--; s.refs == 0 {
		delete(t.sessions, id)
	}
}

// Acquire waits for one of the session's slots and then for a free server
// slot: at once when both are free, else in the queue while it has room,
// for at most wait in all (0: until ctx ends). session identifies the
// caller's MCP session (the request's Session; nil for one shared share).
// It returns release, to call when the program ends, or a busy message
// for the agent when the program gets no turn.
func (t *Turns) Acquire(ctx context.Context, session any, wait time.Duration) (release func(), busy string) {
	serverBusy := fmt.Sprintf("The server is busy: %d programs are running and %d are waiting, its limits. Nothing ran; send the program again later.", t.opts.MaxExecutions, t.opts.MaxQueued)
	sessionBusy := fmt.Sprintf("This session already runs %d programs, its share of the server, and none ended in time. Nothing ran; send the program again when one has finished.", t.opts.MaxExecutionsPerSession)
	var timeout <-chan time.Time
	if wait > 0 {
		tm := time.NewTimer(wait)
		defer tm.Stop()
		timeout = tm.C
	}
	queued := false
	defer func() {
		if queued {
			t.queued.Add(-1)
		}
	}()
	// take waits for a token of slots, joining the queue if it must wait.
	take := func(slots chan struct{}, busy string) string {
		select {
		case slots <- struct{}{}:
			return ""
		default:
		}
		if !queued {
			if t.queued.Add(1) > int64(t.opts.MaxQueued) {
				t.queued.Add(-1)
				return serverBusy
			}
			queued = true
		}
		select {
		case slots <- struct{}{}:
			return ""
		case <-timeout:
			return busy
		case <-ctx.Done():
			return "Cancelled while waiting for a turn: " + context.Cause(ctx).Error()
		}
	}
	s := t.session(session)
	if busy = take(s.slots, sessionBusy); busy != "" {
		t.leave(session, s)
		return nil, busy
	}
	if busy = take(t.slots, serverBusy); busy != "" {
		<-s.slots
		t.leave(session, s)
		return nil, busy
	}
	return func() {
		<-t.slots
		<-s.slots
		t.leave(session, s)
	}, ""
}

// logShare is the console output's part of the character budget: 1/logShare.
const logShare = 4

func (h *handler) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in codeInput
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Code) == "" {
		return failure(`the code tool takes {"code": "<TypeScript program>"} with a non-empty program`), nil
	}
	budget := h.opts.MaxTokens * 4
	release, busy := h.turns.Acquire(ctx, req.Session, h.opts.Timeout)
	if busy != "" {
		h.opts.Logger.Warn("program refused", "reason", busy)
		return failure(busy), nil
	}
	defer release()
	if h.opts.Checker != nil {
		checkCtx := ctx
		if h.opts.Timeout > 0 {
			var cancel context.CancelFunc
			checkCtx, cancel = context.WithTimeout(ctx, h.opts.Timeout)
			defer cancel()
		}
		res, err := h.cl.ValidateCode(checkCtx, h.opts.Checker, in.Code)
		switch {
		case err != nil && ctx.Err() != nil:
			return failure("cancelled before the program ran: " + err.Error()), nil
		case err != nil:
			// A broken checker must not stop programs: run unchecked.
			h.opts.Logger.Warn("type check skipped", "err", err)
		case !res.Valid:
			h.opts.Logger.Info("program rejected by the type check", "diagnostics", len(res.Diagnostics))
			return failure("The program does not type-check, so nothing ran. Fix these errors and send it again:\n\n" + Truncate(res.Report, budget)), nil
		}
	}
	var mu sync.Mutex
	var logs strings.Builder
	logTotal := 0              // characters of console output, kept or not
	calls := map[uint64]bool{} // tool calls made, by seq (rejected ones too)
	opts := client.RunOptions{Fetch: h.opts.Fetch, TracerProvider: h.opts.TracerProvider, OnTelemetry: func(e client.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case client.EventProgramOutput:
			text := e.Text
			if e.Stream == "stderr" {
				text = "[stderr] " + text
			}
			logTotal += utf8.RuneCountInString(text)
			if logs.Len() < budget {
				logs.WriteString(text)
			}
		case client.EventToolCallStarted, client.EventToolCallFailed, client.EventToolCallCompleted:
			calls[e.Seq] = true
		}
	}}
	// The program's deadline is its own limit: ending it is a TimeoutError
	// outcome naming the limit on every runtime.
	opts.Limits.Timeout = h.opts.Timeout
	// Every program's in-flight bytes are also the server's.
	out, err := h.cl.RunCode(membudget.WithShared(ctx, h.inFlight), in.Code, opts)
	mu.Lock()
	logText, logChars := logs.String(), logTotal
	mu.Unlock()
	if err != nil {
		h.opts.Logger.Warn("program not run", "err", err)
		var ive *contract.InputValidationError
		if errors.As(err, &ive) || ctx.Err() != nil {
			return failure("The program did not finish: " + err.Error()), nil
		}
		return failure("The runtime failed while running the program: " + err.Error()), nil
	}
	mu.Lock()
	n := len(calls)
	mu.Unlock()
	h.opts.Logger.Info("program ended", "outcome", out.Kind, "toolCalls", n)
	res := &mcp.CallToolResult{}
	if out.Kind == client.ProgramFailed {
		res.IsError = true
		msg := fmt.Sprintf("The program failed with %s: %s", out.Error.Name, out.Error.Message)
		if stack := strings.Trim(out.Error.Stack, "\n"); strings.TrimSpace(stack) != "" {
			msg += "\n" + stack
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: Truncate(msg, budget)})
	} else {
		items := out.Content
		if text, ok := out.ValueText(); ok {
			items = append(items[:len(items):len(items)], client.Content{Type: "text", Text: text})
		}
		res.Content = contentOf(items, budget)
	}
	if logText != "" {
		dropped := logChars > utf8.RuneCountInString(logText)
		logText = strings.TrimRight(logText, "\n")
		if limit := budget / logShare; dropped || utf8.RuneCountInString(logText) > limit {
			logText = cutText(logText, limit, logChars)
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: "Console output:\n" + logText})
	}
	return res, nil
}

// contentOf converts a program's content (with its value as a last text
// item, see Outcome.ValueText) to MCP content within budget characters of
// text: text items are kept in order while they fit (a large one is cut
// with Truncate), and a last text item says how many were left out. Images
// are kept; the runtime bounds their size. A program with neither content
// nor value is answered with a line saying so.
func contentOf(items []client.Content, budget int) []mcp.Content {
	if len(items) == 0 {
		return []mcp.Content{&mcp.TextContent{Text: "The program finished and returned no value."}}
	}
	var out []mcp.Content
	left, dropped := budget, 0
	for _, c := range items {
		switch {
		case c.Type == "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				out = append(out, &mcp.TextContent{Text: "[an image whose data is not base64]"})
				continue
			}
			out = append(out, &mcp.ImageContent{Data: data, MIMEType: c.MimeType})
		case left < 200:
			dropped++
		default:
			text := Truncate(c.Text, left)
			left -= utf8.RuneCountInString(text)
			out = append(out, &mcp.TextContent{Text: text})
		}
	}
	if dropped > 0 {
		out = append(out, &mcp.TextContent{Text: fmt.Sprintf("… [%d more text items left out: the answer is limited to about %d characters]", dropped, budget)})
	}
	return out
}

// failure is an isError answer with one text item.
func failure(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
