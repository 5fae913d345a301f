package durable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/discovery"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/runctx"
)

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

var snippetName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// checkSnippetName reports whether name can name a snippet: 1 to 128
// letters, digits, '_', '-' and '.', not starting with '-' or '.'.
func checkSnippetName(name string) error {
	if !snippetName.MatchString(name) {
		return fmt.Errorf("durable: snippet name %q: use 1 to 128 letters, digits, '_', '-' or '.', starting with a letter, digit or '_'", name)
	}
	return nil
}

// SaveSnippet saves the code of opts.ExecutionID as the snippet name,
// replacing a snippet of that name, with the execution's connector list.
// It returns an error for an invalid name, an input schema that is not a
// JSON object, an unknown execution (wrapping store.ErrNotFound) or a store
// failure.
//
//	runs, _ := h.Executions(ctx, 1)
//	s, err := h.SaveSnippet(ctx, "list-open-prs", durable.SaveSnippetOptions{ExecutionID: runs[0].ID, Description: "List open pull requests."})
func (h *Handle) SaveSnippet(ctx context.Context, name string, opts SaveSnippetOptions) (*store.Snippet, error) {
	if err := checkSnippetName(name); err != nil {
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
	s := &store.Snippet{Name: name, Description: opts.Description, Code: e.Code, SavedAt: now(), InputSchema: bytes.TrimSpace(opts.InputSchema), Connectors: e.Connectors}
	if len(s.InputSchema) == 0 {
		s.InputSchema = nil
	}
	if err := h.store.SaveSnippet(ctx, h.name, s); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	return s, nil
}

// Snippets returns the saved snippets by name.
func (h *Handle) Snippets(ctx context.Context) ([]store.Snippet, error) {
	s, err := h.store.Snippets(ctx, h.name)
	return s, wrapStore(err)
}

// DeleteSnippet removes a snippet and reports whether it existed.
func (h *Handle) DeleteSnippet(ctx context.Context, name string) (bool, error) {
	ok, err := h.store.DeleteSnippet(ctx, h.name, name)
	return ok, wrapStore(err)
}

// saved returns the saved snippets as discovery sees them.
func (h *Handle) saved(ctx context.Context) ([]discovery.Saved, error) {
	snippets, err := h.store.Snippets(ctx, h.name)
	if err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	out := make([]discovery.Saved, len(snippets))
	for i, s := range snippets {
		out[i] = discovery.Saved{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema, Namespaces: s.Connectors, SavedAt: s.SavedAt}
	}
	return out, nil
}

// snippetAnswer is what the SDK's codemode.run receives: the code as a
// function expression, or the error run resolves to.
type snippetAnswer struct {
	Code  string `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}

// discover answers codemode.search and codemode.describe with the saved
// snippets beside the tools (not journaled: they read the contract and the
// snippets; a replay asks again).
func (p *pass) discover(ctx context.Context, call client.ToolCall) (json.RawMessage, error) {
	var arg string
	if err := json.Unmarshal(call.Input, &arg); err != nil {
		return nil, fmt.Errorf("codemode.%s: the argument must be a string", call.Tool)
	}
	saved, err := p.h.saved(ctx)
	if err != nil {
		return p.fail(err)
	}
	if call.Tool == "search" {
		return json.Marshal(p.h.catalog.Search(arg, saved))
	}
	out, err := p.h.catalog.Describe(arg, saved)
	if errors.Is(err, discovery.ErrUnknownTarget) {
		return nil, fmt.Errorf("codemode.describe: %w", err)
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
		if e.Connector != stepConnector || e.Method != runMethod || !bytes.Equal(e.Args, args) {
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
	entry := &store.Entry{Seq: call.Seq, Connector: stepConnector, Method: runMethod, Args: args, Result: answer, State: store.EntryApplied, UpdatedAt: now()}
	ok, err := p.insert(ctx, entry)
	if err != nil {
		return p.fail(err)
	}
	if !ok {
		return p.notRunning(ctx, fmt.Sprintf("codemode.run(%q)", in.Name))
	}
	return answer, nil
}

// snippetEraseLimit bounds the erasure of a snippet's code (esbuild's, for
// code blank does not read): the default execution deadline.
const snippetEraseLimit = 30 * time.Second

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
		return snippetAnswer{Error: fmt.Sprintf("snippet %q needs the namespace(s) %s, which this run does not have", name, strings.Join(missing, ", "))}
	}
	if shown, ok := runctx.SnippetShownFrom(ctx, name); ok && shown != s.Code {
		// A person approved the run having seen other code under this name
		// (it was saved again meanwhile): that approval is not this code's.
		return snippetAnswer{Error: fmt.Sprintf("snippet %q was saved again after a person approved this run with its earlier code; nothing of it ran (call it again to be asked about its code now)", name)}
	}
	names := []string{"input", "console", "result", "codemode"}
	for _, c := range s.Connectors {
		if !slices.Contains(names, c) {
			names = append(names, c)
		}
	}
	key := s.Code + "\x00" + strings.Join(names, ",")
	if js, ok := h.compiled.get(key); ok {
		return snippetAnswer{Code: js}
	}
	// The code is a program's: esbuild reads it in a process the deadline
	// kills (package esbuildchild).
	ectx, cancel := context.WithTimeout(ctx, snippetEraseLimit)
	defer cancel()
	es := esbuildchild.New(ectx, h.erasers)
	defer es.Close()
	js, err := codeform.ProgramFunction(s.Code, names, es)
	if err != nil {
		return snippetAnswer{Error: fmt.Sprintf("snippet %q: %v", name, err)}
	}
	h.compiled.put(key, js)
	return snippetAnswer{Code: js}
}

// compiledSnippets keeps the JavaScript of the snippets a handle's runs
// called most recently, by code and scope names: every call of a snippet
// otherwise started an esbuild process (about 15 ms; a program could
// call one 10,000 times, second review of 2026-12-06). At most
// maxCompiledSnippets entries, the least recently used evicted first. It
// is safe for concurrent use.
type compiledSnippets struct {
	mu    sync.Mutex
	byKey map[string]string
	order []string // least recently used first
}

// maxCompiledSnippets bounds a handle's compiled snippets.
const maxCompiledSnippets = 64

// maxCompiledSnippetBytes is the longest key and JavaScript kept, together.
const maxCompiledSnippetBytes = 256 << 10

func (c *compiledSnippets) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	js, ok := c.byKey[key]
	if ok {
		c.touch(key)
	}
	return js, ok
}

func (c *compiledSnippets) put(key, js string) {
	if len(key)+len(js) > maxCompiledSnippetBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[string]string{}
	}
	if _, ok := c.byKey[key]; !ok && len(c.order) >= maxCompiledSnippets {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.byKey[key] = js
	c.touch(key)
}

// touch makes key the most recently used. Called with c.mu held.
func (c *compiledSnippets) touch(key string) {
	if i := slices.Index(c.order, key); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
	c.order = append(c.order, key)
}
