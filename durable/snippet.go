package durable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
)

// Snippet is a saved program (Cloudflare Code Mode's Snippet): the code of
// an execution, kept under a name, that programs find with codemode.search,
// read with codemode.describe and run with codemode.run(name, input).
type Snippet struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Code        string          `json:"code"`
	SavedAt     int64           `json:"savedAt"`               // Unix milliseconds
	InputSchema json.RawMessage `json:"inputSchema,omitempty"` // JSON Schema of run's input, or nil
	// Connectors are every connector configured when the source execution
	// started; running the snippet needs all of them.
	Connectors []string `json:"connectors,omitempty"`
}

// SaveSnippetOptions say what SaveSnippet saves.
type SaveSnippetOptions struct {
	// ExecutionID is the execution whose code is saved. Any status is
	// accepted: check that it completed before saving.
	ExecutionID string
	// Description says what the snippet does (search ranks it, describe
	// shows it).
	Description string
	// InputSchema, optional, is the JSON Schema of the input codemode.run
	// passes (describe prints it as TypeScript).
	InputSchema json.RawMessage
}

// ErrNoSnippet is wrapped by errors about a snippet that does not exist.
var ErrNoSnippet = errors.New("durable: snippet not found")

var snippetName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// CheckSnippetName reports whether name can name a snippet: 1 to 128
// letters, digits, '_', '-' and '.', not starting with '-' or '.'.
func CheckSnippetName(name string) error {
	if !snippetName.MatchString(name) {
		return fmt.Errorf("durable: snippet name %q: use 1 to 128 letters, digits, '_', '-' or '.', starting with a letter, digit or '_'", name)
	}
	return nil
}

// SaveSnippet saves the code of opts.ExecutionID as the snippet name,
// replacing a snippet of that name, with the execution's connector list.
// It returns an error for an invalid name, an input schema that is not a
// JSON object, an unknown execution (wrapping ErrNotFound) or a store
// failure.
//
//	runs, _ := h.Executions(ctx, 1)
//	s, err := h.SaveSnippet(ctx, "list-open-prs", durable.SaveSnippetOptions{ExecutionID: runs[0].ID, Description: "List open pull requests."})
func (h *Handle) SaveSnippet(ctx context.Context, name string, opts SaveSnippetOptions) (*Snippet, error) {
	if err := CheckSnippetName(name); err != nil {
		return nil, err
	}
	if s := bytes.TrimSpace(opts.InputSchema); len(s) > 0 {
		var obj map[string]any
		if err := json.Unmarshal(s, &obj); err != nil {
			return nil, fmt.Errorf("durable: snippet %s: the input schema is not a JSON object: %w", name, err)
		}
	}
	e, err := h.store.Execution(ctx, h.name, opts.ExecutionID)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	s := &Snippet{Name: name, Description: opts.Description, Code: e.Code, SavedAt: now(), InputSchema: bytes.TrimSpace(opts.InputSchema), Connectors: e.Connectors}
	if len(s.InputSchema) == 0 {
		s.InputSchema = nil
	}
	if err := h.store.SaveSnippet(ctx, h.name, s); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	return s, nil
}

// Snippets returns the saved snippets by name.
func (h *Handle) Snippets(ctx context.Context) ([]Snippet, error) {
	s, err := h.store.Snippets(ctx, h.name)
	return s, wrapStore(err)
}

// DeleteSnippet removes a snippet and reports whether it existed.
func (h *Handle) DeleteSnippet(ctx context.Context, name string) (bool, error) {
	ok, err := h.store.DeleteSnippet(ctx, h.name, name)
	return ok, wrapStore(err)
}

// Search ranks the connectors' methods and the saved snippets for query
// (Catalog.Search), as codemode.search does in programs.
//
//	out, err := h.Search(ctx, "create a pull request")
//	// out.Results[0].Path == "github.create_pull_request"
func (h *Handle) Search(ctx context.Context, query string) (SearchOutput, error) {
	snippets, err := h.store.Snippets(ctx, h.name)
	if err != nil {
		return SearchOutput{}, fmt.Errorf("durable: %w", err)
	}
	return h.catalog.Search(query, snippets), nil
}

// Describe returns the TypeScript declarations of a snippet, a connector
// or a connector.method, in that order of precedence (Catalog.Describe),
// as codemode.describe does in programs. An unknown target is an error
// wrapping ErrUnknownTarget.
func (h *Handle) Describe(ctx context.Context, target string) (DescribeOutput, error) {
	snippets, err := h.store.Snippets(ctx, h.name)
	if err != nil {
		return DescribeOutput{}, fmt.Errorf("durable: %w", err)
	}
	return h.catalog.Describe(target, snippets)
}

// Catalog returns the handle's discovery catalog.
func (h *Handle) Catalog() *Catalog { return h.catalog }

// RunMethod is the tool log method of a codemode.run entry (connector
// StepConnector): its arguments are {"name": …} and its result the
// snippet as the program ran it (or the error it resolved to), so that a
// replay runs the same code even when the snippet changed meanwhile.
const RunMethod = "run"

// snippetAnswer is what the prelude's codemode.run receives: the code as a
// function expression, or the error run resolves to.
type snippetAnswer struct {
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}

// discover answers codemode.search and codemode.describe (not journaled:
// they read the catalog and the snippets; a replay asks again).
func (p *pass) discover(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
	var in struct {
		Query  string `json:"query"`
		Target string `json:"target"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, fmt.Errorf("codemode.%s: %w", call.Tool, err)
	}
	if call.Tool == "search" {
		out, err := p.h.Search(ctx, in.Query)
		if err != nil {
			return p.fail(err)
		}
		return json.Marshal(out)
	}
	out, err := p.h.Describe(ctx, in.Target)
	if errors.Is(err, ErrUnknownTarget) {
		return nil, errors.New(strings.TrimPrefix(err.Error(), ErrUnknownTarget.Error()+": "))
	}
	if err != nil {
		return p.fail(err)
	}
	return json.Marshal(out)
}

// snippet answers codemode.run's lookup and records it at its seq; a
// replay answers from the record.
func (p *pass) snippet(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, fmt.Errorf("codemode.run: %w", err)
	}
	args, _ := json.Marshal(map[string]string{"name": in.Name})
	if _, taken := p.replayed[call.Seq]; taken {
		return p.replayDivergence(ctx, call.Seq, fmt.Sprintf("codemode.run(%s)", args))
	}
	e, found := p.applied[call.Seq]
	if !found {
		var err error
		if e, found, err = p.store().Entry(ctx, p.h.name, p.id, call.Seq); err != nil {
			return p.fail(err)
		}
	}
	if found {
		if e.Connector != StepConnector || e.Method != RunMethod || !bytes.Equal(e.Args, args) {
			return halt(&divergenceError{msg: fmt.Sprintf("replay divergence at step %d: expected %s.%s(%s), got codemode.run(%s)",
				call.Seq, e.Connector, e.Method, e.Args, args)})
		}
		return e.Result, nil
	}
	answer, err := json.Marshal(p.h.loadSnippet(ctx, in.Name))
	if err != nil {
		return nil, err
	}
	if err := checkDurable(fmt.Sprintf("code of snippet %q", in.Name), answer); err != nil {
		return halt(&endError{msg: err.Error()})
	}
	entry := &ToolLogEntry{Seq: call.Seq, Connector: StepConnector, Method: RunMethod, Args: args, Result: answer, State: EntryApplied, UpdatedAt: now()}
	ok, err := p.insert(ctx, entry)
	if err != nil {
		return p.fail(err)
	}
	if !ok {
		return p.notRunning(ctx, fmt.Sprintf("codemode.run(%q)", in.Name))
	}
	return answer, nil
}

// loadSnippet finds the snippet and compiles its code for the program, or
// says why it cannot run.
func (h *Handle) loadSnippet(ctx context.Context, name string) snippetAnswer {
	s, found, err := h.store.Snippet(ctx, h.name, name)
	switch {
	case err != nil:
		return snippetAnswer{Error: fmt.Sprintf("snippet %q could not be read: %v", name, err)}
	case !found:
		return snippetAnswer{Error: fmt.Sprintf("no snippet named %q; codemode.search finds saved snippets", name)}
	}
	if missing := h.missing(s.Connectors); len(missing) > 0 {
		return snippetAnswer{Error: fmt.Sprintf("snippet %q needs connector(s) %s, which are not configured", name, strings.Join(missing, ", "))}
	}
	names := append(append([]string{}, s.Connectors...), "input", "console", "result", "codemode")
	js, err := client.ProgramFunction(s.Code, names)
	if err != nil {
		return snippetAnswer{Error: fmt.Sprintf("snippet %q: %v", name, err)}
	}
	return snippetAnswer{Code: js}
}

// discoveryTools are the host halves of codemode.search, codemode.describe
// and codemode.run's lookup; the pass answers them.
func discoveryTools(refuse func(context.Context, json.RawMessage) (json.RawMessage, error)) ([]*contract.Tool, error) {
	var tools []*contract.Tool
	for _, t := range []struct{ name, desc, schema string }{
		{"search", "codemode.search: ranked methods and snippets.", `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`},
		{"describe", "codemode.describe: declarations of a target.", `{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}`},
		{"snippet", "codemode.run: a snippet's code, recorded.", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
	} {
		ct, err := contract.NewForeignTool(t.name, t.desc, json.RawMessage(t.schema), nil, refuse)
		if err != nil {
			return nil, err
		}
		tools = append(tools, ct)
	}
	return tools, nil
}
