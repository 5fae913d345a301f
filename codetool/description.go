package codetool

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/errname"
	"github.com/codemode-go/codemode/typecheck"
)

// Options shape the code tool: its description and whether programs are
// type-checked before they run.
type Options struct {
	// Description, when not empty, replaces the generated description
	// whole; {{types}} in it becomes the declarations and {{namespaces}}
	// the namespaces' names ("github and memory").
	Description string
	// Hints add one line each, under the namespace named by the key, to
	// the generated description: what the namespace is for, as the agent
	// should read it ("issues and pull requests of acme/*"). Without one a
	// namespace is described by the first line of its instructions, or by
	// its first tools' names. A key that names no namespace is an error; a
	// hint is one line.
	Hints map[string]string
	// Declarations chooses whether the description holds every declaration
	// (DeclarationsFull) or only the namespaces and the SDK that finds and
	// describes tools (DeclarationsDiscover); the zero value is full when
	// the declarations fit in 2,000 estimated tokens.
	Declarations Declarations
	// Checker, when not nil, type-checks each program before it runs: one
	// that does not type-check is answered with the compiler's report and
	// nothing runs (see Tool.Call).
	Checker *typecheck.Checker
	// ResultTool, when not empty, names a tool beside the code tool that
	// returns an execution's current answer by its executionId (the MCP
	// server's code_result): the description tells the agent to use it
	// for a paused execution.
	ResultTool string
	// SeparateContent says the answer carries what the program appended
	// with result.appendText and result.appendImage as items after the
	// JSON (as the MCP server sends it), not in the JSON's "content".
	SeparateContent bool
	// ApproveProgram, when set, is shown each program whole after its type
	// check and before it runs (Tool.Call): nil lets it run, an error
	// refuses it (the answer is an error saying it was not approved, and
	// nothing ran). Calls whose tools need approval are still decided one
	// by one, as their policy says. Peers' users ask for this: one
	// decision for a trusted script instead of one per call.
	ApproveProgram func(ctx context.Context, code string) error
	// Sessions says the tool's programs continue a session (WithSession,
	// or a client.Session in the client's defaults): the description
	// tells the agent that top-level declarations stay defined for its
	// next programs.
	Sessions bool
	// MaxTokens bounds the answer Tool.Call returns, in estimated tokens (4
	// characters each): 0 selects 6,000, the budget of Cloudflare's
	// truncateResult and of the MCP server (mcpserver.Options.MaxTokens); a
	// negative value leaves answers whole.
	MaxTokens int
}

// Declarations says whether the code tool's description holds the
// declarations.
type Declarations string

// The declarations modes.
const (
	// DeclarationsAuto is DeclarationsFull when the declarations fit in
	// 2,000 estimated tokens, DeclarationsDiscover
	// otherwise.
	DeclarationsAuto Declarations = ""
	// DeclarationsFull puts every declaration in the description (small
	// catalogues: the agent needs no discovery step).
	DeclarationsFull Declarations = "full"
	// DeclarationsDiscover lists only the namespaces with a one-line hint;
	// the agent finds tools with codemode.search and reads their
	// declarations with codemode.describe.
	DeclarationsDiscover Declarations = "discover"
)

// fullDeclarationsTokens is the size, in estimated tokens of 4 characters,
// up to which DeclarationsAuto includes the declarations.
const fullDeclarationsTokens = 2000

// checkHints returns an error for a hint whose key names none of
// namespaces, or that holds a newline.
func (o Options) checkHints(namespaces []string) error {
	known := map[string]bool{}
	for _, n := range namespaces {
		known[n] = true
	}
	keys := make([]string, 0, len(o.Hints))
	for k := range o.Hints {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			return fmt.Errorf("codetool: Hints[%q]: no namespace is named %s (namespaces: %s)", k, k, strings.Join(namespaces, ", "))
		}
		if strings.ContainsAny(o.Hints[k], "\r\n") {
			return fmt.Errorf("codetool: Hints[%q]: a hint is one line", k)
		}
	}
	switch o.Declarations {
	case DeclarationsAuto, DeclarationsFull, DeclarationsDiscover:
	default:
		return fmt.Errorf("codetool: Declarations %q: use %q, %q or the zero value (full when the declarations fit in %d tokens)", o.Declarations, DeclarationsFull, DeclarationsDiscover, fullDeclarationsTokens)
	}
	return nil
}

// description is the code tool's description for r (Tool.Description): it
// returns an error for a bad hint (see Options.Hints) or Declarations
// mode.
func description(r Runner, opts Options) (string, error) {
	c := r.Contract()
	names := namespaceNames(c)
	if err := opts.checkHints(names); err != nil {
		return "", err
	}
	decls := r.TypeDefinitions()
	if opts.Description != "" {
		return strings.NewReplacer("{{types}}", strings.TrimRight(decls, "\n"), "{{namespaces}}", list(names)).Replace(opts.Description), nil
	}
	mode := opts.Declarations
	if mode == DeclarationsAuto {
		mode = DeclarationsDiscover
		if len(decls) <= 4*fullDeclarationsTokens {
			mode = DeclarationsFull
		}
	}
	_, approves := r.(Approver)
	var b strings.Builder
	b.WriteString("Run a TypeScript program that calls the tools below, and answer with its result. Use it to do in one step what would otherwise take many tool calls: call several tools, loop, filter and combine their results, and return only what matters.")
	if approves {
		b.WriteString(" Each program is one recorded execution: every tool call is kept in a journal, with its input and output.")
	}
	b.WriteString("\n\nWrite plain statements with top-level await (the last expression, or a returned value, is the answer), or an async arrow function. The namespaces below, console and result are in scope; result.appendText(text) and result.appendImage({data, mimeType}) add content to the answer, and console output comes back in \"logs\". A failed tool call throws an Error whose name says why (" + errname.ToolCallText() + "). Where the program runs: " + r.Environment() + "\n\n")
	if opts.Sessions {
		b.WriteString(sessionText + "\n\n")
	}
	b.WriteString("Namespaces:\n")
	for _, ns := range programNamespaces(c) {
		fmt.Fprintf(&b, "- %s: %s (%d tool%s)\n", ns.Name, namespaceHint(ns, opts.Hints[ns.Name]), len(ns.Tools), plural(len(ns.Tools)))
	}
	b.WriteString("\nThe codemode SDK:\n")
	b.WriteString("- codemode.search(query): tools ranked for the words of query, at most 50: {results: [{path, description?, requiresApproval?, kind, score}], total, truncated}\n")
	b.WriteString("- codemode.describe(target): the exact TypeScript of a namespace or a \"namespace.tool\": {path, types, description?, requiresApproval?, kind}\n")
	b.WriteString("- codemode.step(name, fn): runs fn and returns its value; wrap Date.now(), Math.random() and other work that is not a tool call")
	if approves {
		b.WriteString(" (its value is recorded, and a replay returns it without running fn)\n")
		b.WriteString("- codemode.run(name, input?): runs a saved program inside this execution; resolves to {error} when it cannot run\n")
	} else {
		b.WriteString("\n")
	}
	if mode == DeclarationsDiscover {
		b.WriteString("\nThe tools' declarations are not listed here. Find and read them first, then call them, in the same program or the next:\n")
		b.WriteString("```ts\n" + discoverExample(c) + "```\n")
	} else {
		b.WriteString("\nExample:\n```ts\n" + callExample(c) + "\n```\n")
	}
	if approves {
		b.WriteString("\n" + pauseText(opts.ResultTool) + "\n")
	}
	b.WriteString("\n" + answerShape{paused: approves, separate: opts.SeparateContent}.String())
	if mode == DeclarationsFull {
		b.WriteString("\n\nDeclarations:\n```ts\n" + strings.TrimRight(decls, "\n") + "\n```")
	}
	return b.String(), nil
}

// sessionText tells the agent what a session keeps.
const sessionText = "Programs continue one session: the top-level let, const, var and function declarations of a program that completes stay defined for your next programs (classes are not: declare them again where you use them): to change one, assign to it (counter += 1); declaring it again makes a new binding that starts without the old value (var n = (n ?? 0) + 1 reads the new, undefined n). Values are kept as JSON (a Map, a Date or a BigInt is not kept; the logs say so), functions by their source. A program that throws changes nothing. A session ends after a long idle time or many programs; the next answer then says what was lost."

// pauseText says what a pause is and what the agent should do.
func pauseText(resultTool string) string {
	s := "Some actions need a person's approval (requiresApproval). When the program reaches one, the execution pauses: the person may be asked at once (the answer is then the outcome), or the answer has \"status\": \"paused\" with the pending actions and nothing more runs until a person approves or rejects them outside this conversation."
	if resultTool != "" {
		s += fmt.Sprintf(" %s({executionId}) returns the outcome later.", resultTool)
	}
	return s + " Do not call this tool again to retry a paused action (it would start a second execution and pause again); tell the user what waits for approval, with the executionId. After approval the program continues from where it paused; calls already made are not repeated."
}

// answerShape is what the answer's JSON may hold: a paused status (the
// runner approves), and content appended as separate items.
type answerShape struct{ paused, separate bool }

// String is the description's sentence on the answer's JSON.
func (a answerShape) String() string {
	approves, separate := a.paused, a.separate
	completed := `{"status": "completed", "executionId", "value", "content"?, "logs"?}`
	if separate {
		completed = `{"status": "completed", "executionId", "value", "logs"?} (followed by what the program appended with result.appendText/appendImage, as separate items)`
	}
	paused := ""
	if approves {
		paused = ` | {"status": "paused", "executionId", "pending": [{"seq", "connector", "method", "args"}], "logs"?}`
	}
	return "The answer is JSON: " + completed + paused + ` | {"status": "error", "executionId", "error", "logs"?}.`
}

// namespaceNames are c's namespaces, in order.
func namespaceNames(c *contract.Contract) []string {
	var names []string
	for _, ns := range c.Namespaces() {
		names = append(names, ns.Name)
	}
	return names
}

// list joins names as "a, b and c".
func list(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// namespaceHint is a namespace's one line: the hint given, else the first
// line of its instructions, else its first tools' names.
func namespaceHint(ns contract.Namespace, hint string) string {
	if h := strings.TrimSpace(hint); h != "" {
		return firstLine(h)
	}
	if in := firstMeaningfulLine(ns.Instructions); in != "" {
		return in
	}
	var names []string
	for i, t := range ns.Tools {
		if i == 5 {
			names = append(names, "…")
			break
		}
		names = append(names, t.Name())
	}
	if len(names) == 0 {
		return "no tools"
	}
	return "tools " + strings.Join(names, ", ")
}

// firstMeaningfulLine is the first line of text that says something: not
// blank, not a Markdown heading or rule; a text of headings only gives its
// first heading.
func firstMeaningfulLine(text string) string {
	heading := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		isHeading := strings.HasPrefix(l, "#")
		l = strings.TrimSpace(strings.TrimLeft(l, "#>*-=_ "))
		switch {
		case len([]rune(l)) < 3:
		case isHeading && heading == "":
			heading = l
		case !isHeading:
			return firstLine(l)
		}
	}
	return firstLine(heading)
}

// firstLine is s's first line, at most 160 bytes.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		cut := 160
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return strings.TrimSpace(s)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// programNamespaces are c's namespaces with the tools programs call: a
// tool the model calls directly (contract.CallersModel) is not theirs.
func programNamespaces(c *contract.Contract) []contract.Namespace {
	var out []contract.Namespace
	for _, ns := range c.Namespaces() {
		kept := ns
		kept.Tools = nil
		for _, t := range ns.Tools {
			if t.Policy().Callers != contract.CallersModel {
				kept.Tools = append(kept.Tools, t)
			}
		}
		out = append(out, kept)
	}
	return out
}

// readPrefixes mark tool names that read rather than change, which make a
// safer example for an agent to copy.
var readPrefixes = []string{"get", "list", "search", "read", "find", "query", "open", "fetch", "describe", "lookup"}

// exampleTool is the tool an example calls: the first whose name suggests
// it only reads, else the first; ok is false without tools.
func exampleTool(c *contract.Contract) (ns string, t *contract.Tool, ok bool) {
	for _, n := range programNamespaces(c) {
		for _, tool := range n.Tools {
			lower := strings.ToLower(tool.Name())
			for _, p := range readPrefixes {
				if strings.HasPrefix(lower, p) {
					return n.Name, tool, true
				}
			}
			if !ok {
				ns, t, ok = n.Name, tool, true
			}
		}
	}
	return ns, t, ok
}

// callExample is a short program calling one tool with placeholder values
// for its required input properties, for example
//
//	const answer = await memory.search_nodes({ query: "…" });
//	answer
func callExample(c *contract.Contract) string {
	ns, t, ok := exampleTool(c)
	if !ok {
		return `const found = await codemode.search("what you need");` + "\nfound"
	}
	return fmt.Sprintf("const answer = await %s.%s(%s);\nanswer", ns, t.Name(), exampleArgs(t.InputDeclaration()))
}

// discoverExample is a search, a describe and a call of one tool.
func discoverExample(c *contract.Contract) string {
	query, call := "create an issue", "github.create_issue({ title: \"…\" })"
	if ns, t, ok := exampleTool(c); ok {
		query = strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(t.Name())), " ")
		call = ns + "." + t.Name() + "({ /* as describe says */ })"
	}
	return fmt.Sprintf("const found = await codemode.search(%q);\nconst doc = await codemode.describe(found.results[0].path); // doc.types: its TypeScript\nconst value = await %s;\n", query, call)
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
