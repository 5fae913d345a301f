package durablemcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDescription is the durable code tool's description; {{types}}
// becomes the handle's declarations, {{namespaces}} its connectors.
const DefaultDescription = `Run a TypeScript program that calls the connectors declared below, as one durable execution: every connector call is recorded in a journal, with its arguments and result.

Write an async arrow function, or plain statements with top-level await whose value (or a returned value) is the answer. In scope: {{namespaces}} (the connectors, as declared below), codemode and console. Use codemode.step(name, fn) around non-deterministic work that is not a connector call.

Some actions need a person's approval. When the program reaches one, the execution pauses and the answer has "status": "paused" with the pending actions: nothing more runs until a person approves or rejects them outside this conversation. Do not call this tool again to retry a paused action (it would start a second execution and pause again); tell the user what waits for approval, with the executionId. After approval the same program continues from where it paused; calls already made are not repeated.

The answer is JSON: {"status": "completed", "executionId", "result", "logs"?} (followed by what the program appended with result.appendText/appendImage, as separate items) | {"status": "paused", "executionId", "pending": [{"seq", "connector", "method", "args"}]} | {"status": "error", "executionId", "error", "logs"?}.

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
	// Checker, when not nil, type-checks each program (Handle.ValidateCode)
	// before it runs: a program that does not type-check is answered with
	// the report and starts no execution. A checker that fails is logged
	// and the program runs unchecked.
	Checker *typecheck.Checker
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
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	if opts.Checker != nil {
		res, err := h.ValidateCode(ctx, opts.Checker, in.Code)
		switch {
		case err != nil && ctx.Err() != nil:
			return textResult(true, "cancelled before the program ran: "+err.Error()), nil
		case err != nil:
			opts.Logger.Warn("type check skipped", "err", err)
		case !res.Valid:
			opts.Logger.Info("program rejected by the type check", "diagnostics", len(res.Diagnostics))
			return textResult(true, "The program does not type-check, so nothing ran (no execution was started). Fix these errors and send it again:\n\n"+
				mcpserver.Truncate(res.Report, opts.MaxTokens*4)), nil
		}
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
	head := out
	head.Content = nil // sent as items of their own after the JSON
	text, err := json.Marshal(head)
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
