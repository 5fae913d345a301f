package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/runctx"
	"github.com/codemode-go/codemode/internal/termtext"
)

// snippetRunner is a runner with saved snippets (a *durable.Handle): what
// Options.SnippetsAsTools needs.
type snippetRunner interface {
	codetool.Runner
	Snippets(ctx context.Context) ([]store.Snippet, error)
}

// errNoSnippets is New's error for SnippetsAsTools on a runner that keeps
// no snippets.
var errNoSnippets = errors.New("mcpserver: Options.SnippetsAsTools needs a runner that keeps saved snippets (a *durable.Handle)")

// snippetTools keeps the server's list of snippet tools in step with the
// runner's saved snippets: each snippet whose namespaces the runner has is
// an MCP tool of its own name, whose call runs
// codemode.run(name, arguments) as a program of the code tool would.
type snippetTools struct {
	srv      *mcp.Server
	runner   snippetRunner
	code     *codeHandler
	reserved func(name string) bool // names taken by the server's other tools

	warn    func(string) // logs a snippet left out
	mu      sync.Mutex
	listed  map[string][]byte // name → what it was listed from (description, schema, time)
	refused map[string][]byte // name → the version already warned about
}

// sync lists the snippets saved now and removes those deleted or no longer
// runnable; a snippet that did not change keeps its tool (no
// notifications/tools/list_changed).
func (st *snippetTools) sync(ctx context.Context) error {
	snippets, err := st.runner.Snippets(ctx)
	if err != nil {
		return fmt.Errorf("mcpserver: listing snippets: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	seen := map[string]bool{}
	for _, s := range snippets {
		if st.reserved(s.Name) || !st.runnable(s) {
			continue
		}
		key, _ := json.Marshal([]any{s.Description, s.InputSchema, s.SavedAt})
		if bytes.Equal(st.listed[s.Name], key) {
			seen[s.Name] = true
			continue
		}
		tool, err := snippetTool(s)
		if err != nil {
			if !bytes.Equal(st.refused[s.Name], key) {
				st.refused[s.Name] = key
				st.warn(fmt.Sprintf("the saved program %s is not listed as a tool: %v", s.Name, err))
			}
			continue
		}
		seen[s.Name] = true
		st.listed[s.Name] = key
		st.srv.AddTool(tool, st.call(s.Name))
	}
	for name := range st.listed {
		if !seen[name] {
			delete(st.listed, name)
			st.srv.RemoveTools(name)
		}
	}
	return nil
}

// runnable reports whether the runner has every namespace s was saved
// with.
func (st *snippetTools) runnable(s store.Snippet) bool {
	have := []string{}
	for _, ns := range st.runner.Contract().Namespaces() {
		have = append(have, ns.Name)
	}
	for _, c := range s.Connectors {
		if !slices.Contains(have, c) {
			return false
		}
	}
	return true
}

// snippetTool is s as an MCP tool: its name and description, and its input
// schema (any object when it was saved without one).
func snippetTool(s store.Snippet) (*mcp.Tool, error) {
	schema, err := objectSchema(s.InputSchema)
	if err != nil {
		return nil, err
	}
	desc := s.Description
	if desc == "" {
		desc = fmt.Sprintf("Runs the saved program %q.", s.Name)
	}
	return &mcp.Tool{Name: s.Name, Description: desc + " (A saved program: each call runs it in a new execution, like the code tool.)",
		InputSchema: schema, Annotations: &mcp.ToolAnnotations{Title: "Saved program " + s.Name}}, nil
}

// call runs the snippet name with the call's arguments, checked against
// its input schema first, and answers as the code tool does (a pause for
// approval included). The snippet is read when the call comes, not when
// it was listed: the code a person approving the run is shown
// (Options.ApprovePrograms), the schema the arguments are checked against
// and the code that runs are one version, which the run's lookup must
// still find (runctx.WithSnippetShown). The listed copy showed the code
// of the last tools/list while codemode.run ran the code saved when it
// ran (an adversarial review, December 2026).
func (st *snippetTools) call(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s, found, err := st.current(ctx, name)
		switch {
		case err != nil:
			return textResult(true, fmt.Sprintf("The saved program %s could not be read; nothing ran: %v", name, err)), nil
		case !found:
			return textResult(true, fmt.Sprintf("The saved program %s was deleted; nothing ran (the tool list has changed).", name)), nil
		}
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		if len(s.InputSchema) > 0 {
			schema, err := contract.NewSchema(s.InputSchema)
			if err != nil {
				return textResult(true, fmt.Sprintf("The saved program %q has an input schema that cannot be used: %v", s.Name, err)), nil
			}
			if err := schema.Validate(args); err != nil {
				return textResult(true, fmt.Sprintf("The arguments of %s do not fit its input schema: %v", s.Name, err)), nil
			}
		}
		var input bytes.Buffer
		if err := json.Compact(&input, args); err != nil {
			return textResult(true, fmt.Sprintf("The arguments of %s are not JSON: %v", s.Name, err)), nil
		}
		quoted, _ := json.Marshal(s.Name)
		// JSON.parse, not a literal: a "__proto__" key stays a key.
		text, _ := json.Marshal(input.String())
		code := fmt.Sprintf("await codemode.run(%s, JSON.parse(%s))", quoted, text)
		ctx = runctx.WithSnippetShown(ctx, s.Name, s.Code)
		return st.code.answer(ctx, req, code, fmt.Sprintf("the saved program %s with the arguments %s:\n\n%s", s.Name, termtext.EscapeJSON(input.String()), s.Code))
	}
}

// addSnippetTools lists the runner's snippets as tools now, and again
// before every tools/list the server answers (Options.SnippetsAsTools).
func (s *server) addSnippetTools(srv *mcp.Server, h *codeHandler) error {
	r, ok := h.r.(snippetRunner)
	if !ok {
		return errNoSnippets
	}
	st := &snippetTools{srv: srv, runner: r, code: h, listed: map[string][]byte{}, refused: map[string][]byte{},
		warn: func(msg string) { s.opts.Logger.Warn(msg) }, reserved: func(name string) bool {
			return name == codetool.Name || name == resultToolName || slices.Contains(directNames(r), name)
		}}
	if err := st.sync(context.Background()); err != nil {
		return err
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				if err := st.sync(ctx); err != nil {
					s.opts.Logger.Warn("snippets not listed again", "err", err)
				}
			}
			return next(ctx, method, req)
		}
	})
	return nil
}

// current reads the snippet name as it is saved now.
func (st *snippetTools) current(ctx context.Context, name string) (store.Snippet, bool, error) {
	snippets, err := st.runner.Snippets(ctx)
	if err != nil {
		return store.Snippet{}, false, err
	}
	for _, s := range snippets {
		if s.Name == name {
			return s, true, nil
		}
	}
	return store.Snippet{}, false, nil
}
