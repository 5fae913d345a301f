package durablemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDescription is the durable code tool's description; {{types}}
// becomes the handle's declarations, {{namespaces}} its connectors.
const DefaultDescription = `Run a TypeScript program that calls the connectors declared below, as one durable execution: every connector call is recorded in a journal, with its arguments and result.

Write an async arrow function, or plain statements with top-level await whose value (or a returned value) is the answer. In scope: {{namespaces}} (the connectors, as declared below), codemode and console. Use codemode.step(name, fn) around non-deterministic work that is not a connector call.

Some actions need a person's approval. When the program reaches one, the execution pauses and the answer has "status": "paused" with the pending actions: nothing more runs until a person approves or rejects them outside this conversation. Do not call this tool again to retry a paused action (it would start a second execution and pause again); tell the user what waits for approval, with the executionId. After approval the same program continues from where it paused; calls already made are not repeated.

The answer is JSON: {"status": "completed", "executionId", "result", "logs"?} | {"status": "paused", "executionId", "pending": [{"seq", "connector", "method", "args"}]} | {"status": "error", "executionId", "error", "logs"?}.

Declarations:
` + "```ts\n{{types}}\n```"

// ServerOptions configure NewServer.
type ServerOptions struct {
	// Name and Version identify the server in the MCP handshake; defaults
	// "codemode" and "0.1.0".
	Name, Version string
	// Description is the code tool's description with the {{types}} and
	// {{namespaces}} placeholders; default DefaultDescription.
	Description string
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
}

// NewServer returns an MCP server whose code tool runs each program as a
// durable execution of h (Handle.Execute) and answers with its output:
// completed, paused with the pending actions (and a line telling the agent
// that they wait for a person and must not be retried), or error (an
// isError answer). Approvals happen outside the agent's reach: this server
// offers no tool to approve.
func NewServer(h *durable.Handle, opts ServerOptions) *mcp.Server {
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
	if opts.Description == "" {
		opts.Description = DefaultDescription
	}
	names := h.ConnectorNames()
	list := strings.Join(names, ", ")
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	desc := strings.NewReplacer("{{types}}", strings.TrimRight(h.TypeDefinitions(), "\n"), "{{namespaces}}", list).Replace(opts.Description)
	srv := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{Instructions: opts.Instructions})
	srv.AddTool(&mcp.Tool{
		Name:        mcpserver.ToolName,
		Description: desc,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"code": {"type": "string", "description": "The TypeScript program: an async arrow function, or statements with top-level await whose last expression is the answer."}}, "required": ["code"], "additionalProperties": false}`),
		Annotations: &mcp.ToolAnnotations{Title: "Run a durable TypeScript program over the connectors"},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer(ctx, h, opts, req)
	})
	return srv
}

func answer(ctx context.Context, h *durable.Handle, opts ServerOptions, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || strings.TrimSpace(in.Code) == "" {
		return textResult(true, `the code tool takes {"code": "<TypeScript program>"} with a non-empty program`), nil
	}
	return Answer(ctx, h, opts, in.Code)
}

// Answer runs code as one durable execution of h and answers as the code
// tool of NewServer does (opts' Timeout, MaxTokens and Logger apply), for
// servers with their own tools, such as `codemode openapi serve
// --journal`'s execute. The error is non-nil only when the answer cannot be
// encoded.
func Answer(ctx context.Context, h *durable.Handle, opts ServerOptions, code string) (*mcp.CallToolResult, error) {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = mcpserver.DefaultMaxTokens
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	in := struct{ Code string }{code}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	out, err := h.Execute(ctx, in.Code)
	if err != nil {
		opts.Logger.Warn("durable execution failed", "err", err)
		if out.ExecutionID != "" {
			return textResult(true, fmt.Sprintf("The execution %s did not finish: %v", out.ExecutionID, err)), nil
		}
		return textResult(true, "The journal failed; nothing ran: "+err.Error()), nil
	}
	budget := opts.MaxTokens * 4
	text, err := json.Marshal(out)
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
			"The execution %s is paused: %s wait(s) for a person's approval. Do not retry it or send the program again; tell the user what is pending. When a person approves, the execution continues from here without repeating earlier calls; if they reject it, it ends.",
			out.ExecutionID, strings.Join(actions, ", "))})
	case durable.OutputError:
		opts.Logger.Info("execution ended with an error", "execution", out.ExecutionID)
		res.IsError = true
	default:
		opts.Logger.Info("execution completed", "execution", out.ExecutionID)
	}
	return res, nil
}

func textResult(isError bool, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
