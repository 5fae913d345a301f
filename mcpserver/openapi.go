package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names of the OpenAPI server (see NewOpenAPI).
const (
	SearchToolName  = "search"
	ExecuteToolName = "execute"
)

// specSetup is the scope setup (client.Client.WithScopeSetup) of the
// OpenAPI tools: codemode.spec() returns the document with its local
// references ("#/components/schemas/Pet") resolved lazily, when a program
// reads them, through a Proxy; a reference back to a schema already being
// followed on the current path reads as {"$circular": "#/…"}, so walking or
// JSON.stringify ends. Nothing is copied, so a document whose references
// would inline to many times its size (Cloudflare's issue 1466: 778 KiB to
// 71 MiB) stays its size. The document is fetched once per program.
const specSetup = `(s: any): any => {
const ns = s.codemode;
const own = Object.prototype.hasOwnProperty;
const at = (root: any, ref: string): any => {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let v = root;
  for (const raw of ref.slice(2).split("/")) {
    let t: string;
    try { t = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~"); } catch { return undefined; }
    if (v === null || typeof v !== "object" || !own.call(v, t)) return undefined;
    v = v[t];
  }
  return v;
};
const wrap = (root: any, v: any, path: string[]): any => {
  if (v === null || typeof v !== "object") return v;
  return new Proxy(v, { get(t: any, k: any): any {
    const x = t[k];
    if (typeof k !== "string" || x === null || typeof x !== "object") return x;
    const ref = x.$ref;
    if (typeof ref === "string") {
      if (path.includes(ref)) return { $circular: ref };
      const target = at(root, ref);
      return target === undefined ? x : wrap(root, target, [...path, ref]);
    }
    return wrap(root, x, path);
  } });
};
let doc: any;
const spec = async (): Promise<any> => {
  if (doc === undefined) { const raw = await ns.spec(); doc = wrap(raw, raw, []); }
  return doc;
};
return { ...s, codemode: Object.freeze({ ...ns, spec }) };
}`

// searchDescription and executeDescription are the tools' descriptions;
// {{title}} is the API's title, {{operations}} its number of operations,
// {{types}} the declarations of the tool's scope, {{runtime}} the runtime.
const searchDescription = `Search the OpenAPI description of {{title}} ({{operations}} operations) by running a TypeScript program over it. codemode.spec() returns the document; its local $ref references are resolved when you read them, and a reference back into a schema already being followed reads as {"$circular": "#/..."}. Filter and return only what you need (paths, methods, parameters, request body and response schemas): the answer is cut to about {{chars}} characters.

Write plain statements with top-level await; the last expression is the answer (a string as it is, anything else as JSON). Where the program runs: {{runtime}}.

Example:
` + "```ts" + `
const spec = await codemode.spec();
const hits = [];
for (const [path, item] of Object.entries(spec.paths ?? {})) {
  for (const [method, op] of Object.entries(item as any)) {
    if ((op as any)?.operationId && JSON.stringify([path, (op as any).summary ?? ""]).toLowerCase().includes("pet")) hits.push({ method: method.toUpperCase(), path, summary: (op as any).summary });
  }
}
hits
` + "```" + `

Declarations:
` + "```ts\n{{types}}\n```"

const executeDescription = `Call the {{title}} API by running a TypeScript program. codemode.request({ method, path, params, body, headers }) sends one request (the base URL and credentials are added by the host; you never see them) and returns the response: JSON parsed, other text as a string. A status outside 2xx throws an HTTPError whose message has the status and the start of the body. codemode.spec() returns the OpenAPI description, as for the search tool; use search first to find the operation. Make several requests in one program, combine and filter their results, and return only what matters: the answer is cut to about {{chars}} characters.

Write plain statements with top-level await; the last expression is the answer. Where the program runs: {{runtime}}.

Example:
` + "```ts" + `
const items = await codemode.request({ method: "GET", path: "/pets", params: { limit: 5 } });
items
` + "```" + `

Declarations:
` + "```ts\n{{types}}\n```"

// OpenAPI is an MCP server over one OpenAPI description with two tools, as
// Cloudflare's API MCP server: search, a program over the document
// (codemode.spec()), and execute, a program that may also call the API
// (codemode.request(options)). Build it with NewOpenAPI.
type OpenAPI struct {
	// Server is the MCP server; serve it over stdio (Server.Run) or
	// streamable HTTP (NewHTTPHandler).
	Server *mcp.Server
	// Search and Execute are the clients the tools run programs with;
	// their contracts hold codemode.spec and, for Execute,
	// codemode.request.
	Search, Execute *client.Client
}

// OpenAPIOptions configure NewOpenAPI.
type OpenAPIOptions struct {
	// Options are those of the code tool: Name, Version, Instructions,
	// Checker, Timeout, MaxTokens, Logger, MaxExecutions, MaxQueued and
	// MaxExecutionsPerSession apply to both tools (one pool of execution
	// slots); Description and Fetch are not used.
	Options
	// Execute, when not nil, answers the execute tool instead of running
	// the program on the Execute client: a durable runtime sets it to run
	// each program as a durable execution (durablemcp.CodeHandler). The
	// scope setup of codemode.spec() is not applied there.
	Execute mcp.ToolHandler
	// ExecuteDescription, when not empty, replaces the execute tool's
	// description template ({{title}}, {{operations}}, {{chars}},
	// {{runtime}} and {{types}} are filled in), and ExecuteTypes, when not
	// empty, the declarations put in {{types}}: for an Execute hook whose
	// programs see another scope.
	ExecuteDescription, ExecuteTypes string
}

// NewOpenAPI returns an MCP server with the search and execute tools over
// conn's document, running programs on ex. The connector holds the base
// URL, the credentials and the allow-list of hosts; programs see neither.
// Answers are bounded by Options.MaxTokens, JSON cut structurally so it
// stays valid JSON (see Truncate). It fails when the document cannot be
// encoded or a contract cannot be built.
func NewOpenAPI(ex client.Executor, conn *openapi.Connector, opts OpenAPIOptions) (*OpenAPI, error) {
	o := opts.Options
	if o.Name == "" {
		o.Name = "codemode-openapi"
	}
	if o.Version == "" {
		o.Version = "0.1.0"
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxExecutions <= 0 {
		o.MaxExecutions = DefaultMaxExecutions
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	o.Fetch = nil
	spec, request, err := openAPITools(conn)
	if err != nil {
		return nil, err
	}
	searchK, err := contract.New(spec)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: the search contract: %w", err)
	}
	executeK, err := contract.New(spec, request)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: the execute contract: %w", err)
	}
	out := &OpenAPI{
		Search:  client.New(ex, searchK).WithScopeSetup(specSetup),
		Execute: client.New(ex, executeK).WithScopeSetup(specSetup),
	}
	doc := conn.Document()
	title := "the API"
	if doc.Info != nil && strings.TrimSpace(doc.Info.Title) != "" {
		title = strings.TrimSpace(doc.Info.Title)
	}
	operations := 0
	if doc.Paths != nil {
		for _, item := range doc.Paths.Map() {
			operations += len(item.Operations())
		}
	}
	fill := func(template, types string) string {
		return strings.NewReplacer("{{title}}", title, "{{operations}}", fmt.Sprint(operations), "{{chars}}", fmt.Sprint(o.MaxTokens*4),
			"{{types}}", strings.TrimRight(types, "\n"), "{{runtime}}", ex.Description()).Replace(template)
	}
	executeTemplate, executeTypes := executeDescription, executeK.TypeDefinitions()
	if opts.ExecuteDescription != "" {
		executeTemplate = opts.ExecuteDescription
	}
	if opts.ExecuteTypes != "" {
		executeTypes = opts.ExecuteTypes
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{Instructions: o.Instructions})
	turns := NewTurns(TurnsOptions{MaxExecutions: o.MaxExecutions, MaxQueued: o.MaxQueued, MaxExecutionsPerSession: o.MaxExecutionsPerSession})
	inFlight := newInFlight(o)
	search := &handler{cl: out.Search, opts: o, turns: turns, inFlight: inFlight}
	execute := &handler{cl: out.Execute, opts: o, turns: turns, inFlight: inFlight}
	yes, no := true, false
	srv.AddTool(&mcp.Tool{
		Name: SearchToolName, Description: fill(searchDescription, searchK.TypeDefinitions()), InputSchema: json.RawMessage(inputSchema),
		Annotations: &mcp.ToolAnnotations{Title: "Search the API description with a TypeScript program", ReadOnlyHint: true, OpenWorldHint: &no},
	}, search.call)
	executeCall := execute.call
	if opts.Execute != nil {
		executeCall = opts.Execute
	}
	srv.AddTool(&mcp.Tool{
		Name: ExecuteToolName, Description: fill(executeTemplate, executeTypes), InputSchema: json.RawMessage(inputSchema),
		Annotations: &mcp.ToolAnnotations{Title: "Call the API with a TypeScript program", DestructiveHint: &yes, OpenWorldHint: &yes},
	}, executeCall)
	out.Server = srv
	return out, nil
}

// openAPITools are the spec and request tools of the codemode namespace:
// spec returns the document (encoded once, on first use), request is the
// connector's.
func openAPITools(conn *openapi.Connector) (spec, request *contract.Tool, err error) {
	encode := sync.OnceValues(conn.DocumentJSON)
	spec, err = contract.NewDeclaredTool("spec", "Returns the API's OpenAPI description (local $ref references resolved as they are read; cycles read as {\"$circular\": \"#/...\"}).",
		json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), nil,
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) { return encode() })
	if err != nil {
		return nil, nil, fmt.Errorf("mcpserver: %w", err)
	}
	yes := true
	spec = spec.WithAnnotations(contract.Annotations{ReadOnly: &yes})
	tools, err := conn.Tools()
	if err != nil {
		return nil, nil, fmt.Errorf("mcpserver: %w", err)
	}
	for _, t := range tools {
		if t.Name == "request" && t.Method == "" {
			request, err = contract.NewDeclaredTool(t.Name, t.Description, t.InputSchema, nil, t.Call)
			if err != nil {
				return nil, nil, fmt.Errorf("mcpserver: %w", err)
			}
			return spec, request, nil
		}
	}
	return nil, nil, fmt.Errorf("mcpserver: the connector has no request method")
}
