package durable

import (
	"fmt"
	"strings"
)

// DeclarationsMode says whether the code tool's description holds the
// connectors' declarations.
type DeclarationsMode string

// The declarations modes.
const (
	// DeclarationsAuto is DeclarationsFull when the declarations fit in
	// FullDeclarationsTokens estimated tokens, DeclarationsDiscover
	// otherwise.
	DeclarationsAuto DeclarationsMode = ""
	// DeclarationsFull puts every declaration in the description (small
	// setups: the agent needs no discovery step).
	DeclarationsFull DeclarationsMode = "full"
	// DeclarationsDiscover lists only the namespaces with a one-line hint;
	// the agent finds methods with codemode.search and reads their
	// declarations with codemode.describe.
	DeclarationsDiscover DeclarationsMode = "discover"
)

// FullDeclarationsTokens is the size, in estimated tokens of 4 characters,
// up to which DeclarationsAuto includes the declarations.
const FullDeclarationsTokens = 2000

// ParseDeclarationsMode parses "full", "discover" or "" (auto), for flags.
func ParseDeclarationsMode(s string) (DeclarationsMode, error) {
	switch m := DeclarationsMode(s); m {
	case DeclarationsAuto, DeclarationsFull, DeclarationsDiscover:
		return m, nil
	}
	return "", fmt.Errorf("durable: declarations %q: use full, discover, or nothing (full when the declarations fit in %d tokens)", s, FullDeclarationsTokens)
}

// DescriptionOptions shape Handle.ToolDescription.
type DescriptionOptions struct {
	// Declarations chooses full declarations or discovery (default: full
	// when they fit in FullDeclarationsTokens).
	Declarations DeclarationsMode
	// ConnectorHints are one-line hints by connector name; a connector
	// without one is described by the first line of its Instructions, or
	// by its first method names.
	ConnectorHints map[string]string
	// ResultTool, when not empty, names a tool of the same server that
	// returns an execution's current outcome by executionId (the MCP
	// server's code_result); the description tells the model to use it
	// for a paused execution.
	ResultTool string
	// SeparateContent says the answer carries what the program appended
	// with result.appendText/appendImage as items after the JSON (as the
	// MCP server does), rather than in the JSON's "content".
	SeparateContent bool
}

// ToolDescription returns the description of the durable code tool for a
// model (Catalog.ToolDescription of the handle's connectors).
func (h *Handle) ToolDescription(opts DescriptionOptions) string {
	return h.catalog.ToolDescription(opts)
}

// ToolDescription returns the description of the durable code tool for a
// model: what the tool does, the namespaces with a one-line hint each, the
// codemode SDK (search, describe, step, run), one example, what a pause
// means and the answer's shape; and, in DeclarationsFull mode, every
// declaration (TypeDefinitions). In discover mode the declarations are
// only a codemode.describe away, so a catalogue of thousands of methods
// costs a few hundred tokens here.
//
//	desc := h.ToolDescription(durable.DescriptionOptions{Declarations: durable.DeclarationsDiscover})
func (cat *Catalog) ToolDescription(opts DescriptionOptions) string {
	decls := cat.decl.TypeDefinitions() + "\n" + sdkDeclaration
	mode := opts.Declarations
	if mode == DeclarationsAuto {
		mode = DeclarationsDiscover
		if len(decls) <= 4*FullDeclarationsTokens {
			mode = DeclarationsFull
		}
	}
	var b strings.Builder
	b.WriteString("Run a TypeScript program that calls the connectors below, as one durable execution: every connector call is recorded in a journal, with its arguments and result. Write an async arrow function, or statements with top-level await whose last expression (or a returned value) is the answer.\n\n")
	b.WriteString("Namespaces (globals in the program):\n")
	for _, c := range cat.connectors {
		fmt.Fprintf(&b, "- %s: %s (%d method%s)\n", c.Name, connectorHint(c, opts.ConnectorHints[c.Name]), len(c.Tools), plural(len(c.Tools)))
	}
	b.WriteString("\nThe codemode SDK:\n")
	b.WriteString("- codemode.search(query): methods and saved snippets ranked for the words of query, at most 50: {results: [{path, description?, requiresApproval?, kind, score}], total, truncated}\n")
	b.WriteString("- codemode.describe(target): the exact TypeScript of a connector, a \"connector.method\" or a snippet: {path, types, description?, requiresApproval?, kind}\n")
	b.WriteString("- codemode.step(name, fn): runs fn once and records its value; wrap Date.now(), Math.random() and other work that is not a connector call\n")
	b.WriteString("- codemode.run(name, input?): runs a saved snippet inside this execution; resolves to {error} when it cannot run\n\n")
	if mode == DeclarationsDiscover {
		b.WriteString("The methods' declarations are not listed here. Find and read them first, then call them, in the same program or the next:\n")
	} else {
		b.WriteString("Example:\n")
	}
	b.WriteString("```ts\n")
	b.WriteString(cat.example())
	b.WriteString("```\n\n")
	b.WriteString("Some actions need a person's approval (requiresApproval). When the program reaches one, the execution pauses: the person may be asked at once (the answer is then the outcome), or the answer has \"status\": \"paused\" with the pending actions and nothing more runs until a person approves or rejects them outside this conversation.")
	if opts.ResultTool != "" {
		fmt.Fprintf(&b, " %s({executionId}) returns the outcome later.", opts.ResultTool)
	}
	b.WriteString(" Do not call this tool again to retry a paused action (it would start a second execution and pause again); tell the user what waits for approval, with the executionId. After approval the program continues from where it paused; calls already made are not repeated.\n\n")
	if opts.SeparateContent {
		b.WriteString(`The answer is JSON: {"status": "completed", "executionId", "result", "logs"?} (followed by what the program appended with result.appendText/appendImage, as separate items) | {"status": "paused", "executionId", "pending": [{"seq", "connector", "method", "args"}]} | {"status": "error", "executionId", "error", "logs"?}.`)
	} else {
		b.WriteString(`The answer is JSON: {"status": "completed", "executionId", "result", "content"?, "logs"?} | {"status": "paused", "executionId", "pending": [{"seq", "connector", "method", "args"}]} | {"status": "error", "executionId", "error", "logs"?}.`)
	}
	if mode == DeclarationsFull {
		b.WriteString("\n\nDeclarations:\n```ts\n")
		b.WriteString(strings.TrimRight(decls, "\n"))
		b.WriteString("\n```")
	}
	return b.String()
}

// example is the description's one example: a search, a describe and a
// call of the first connector's first method.
func (cat *Catalog) example() string {
	query, call := "create an issue", "github.create_issue({ title: \"…\" })"
	for _, c := range cat.connectors {
		if len(c.Tools) > 0 {
			t := c.Tools[0]
			query = strings.Join(strings.Fields(strings.NewReplacer("_", " ", "-", " ").Replace(t.Name)), " ")
			call = c.Name + "." + t.Name + "({ /* as describe says */ })"
			break
		}
	}
	return fmt.Sprintf("const found = await codemode.search(%q);\nconst doc = await codemode.describe(found.results[0].path); // doc.types: its TypeScript\nconst value = await %s;\n", query, call)
}

// connectorHint is a connector's one line: the hint given, else the first
// line of its instructions, else its first method names.
func connectorHint(c Connector, hint string) string {
	if h := strings.TrimSpace(hint); h != "" {
		return firstLine(h)
	}
	if in := strings.TrimSpace(c.Instructions); in != "" {
		return firstLine(in)
	}
	var names []string
	for i, t := range c.Tools {
		if i == 5 {
			names = append(names, "…")
			break
		}
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return "no methods"
	}
	return "methods " + strings.Join(names, ", ")
}

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
