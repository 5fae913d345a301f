package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names of the OpenAPI server (see NewOpenAPI).
const (
	searchToolName  = "search"
	executeToolName = "execute"
)

// specSetup is the scope setup (client.Extension.Setup) of the
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

// NewOpenAPI returns an MCP server over one OpenAPI document with two code
// tools, as Cloudflare's API MCP server: search, a program over the
// document (codemode.spec()), and execute, a program that may also call the
// API (codemode.request(options)). Search programs run on a client of ex;
// execute programs run on execute: nil runs them on a client of ex too, and
// a *durable.Handle over OpenAPIContract(conn) journals them (its calls
// needing approval by HTTP method, with code_result beside). The connector
// holds the base URL, the credentials and the allow-list of hosts;
// programs see neither. opts.Tool.Description, when set, replaces the
// execute tool's description; opts.Name defaults to "codemode-openapi".
// It fails when the document cannot be encoded or a contract cannot be
// built.
func NewOpenAPI(ex client.Executor, conn *openapi.Connector, execute codetool.Runner, opts Options) (*mcp.Server, error) {
	if opts.Name == "" {
		opts.Name = "codemode-openapi"
	}
	opts = opts.withDefaults()
	spec, request, err := openAPITools(conn)
	if err != nil {
		return nil, err
	}
	searchK, err := toolsContract(spec)
	if err != nil {
		return nil, err
	}
	search := client.New(ex, searchK).Extend(client.Extension{Setup: specSetup})
	if execute == nil {
		executeK, err := toolsContract(spec, request)
		if err != nil {
			return nil, err
		}
		execute = client.New(ex, executeK).Extend(client.Extension{Setup: specSetup})
	}
	fill := openAPIFiller(conn, opts, ex.Description())
	srv := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{Instructions: opts.Instructions})
	s := newServer(opts)
	if err := s.observeTurns(opts.MeterProvider); err != nil {
		return nil, err
	}
	yes, no := true, false
	searchOpts := opts.Tool
	searchOpts.Description = fill(searchDescription, search.TypeDefinitions())
	if _, err := s.addCodeTool(srv, codeTool{name: searchToolName, runner: search, title: "Search the API description with a TypeScript program", options: searchOpts,
		annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}}); err != nil {
		return nil, err
	}
	executeOpts := opts.Tool
	if executeOpts.Description == "" {
		executeOpts.Description = fill(executeDescription, execute.TypeDefinitions())
	}
	if _, err := s.addCodeTool(srv, codeTool{name: executeToolName, runner: execute, title: "Call the API with a TypeScript program", options: executeOpts,
		annotations: &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}}); err != nil {
		return nil, err
	}
	return srv, nil
}

// OpenAPIContract returns the contract of NewOpenAPI's execute programs:
// codemode.spec() and codemode.request(options) over conn, request needing
// approval by each call's HTTP method (conn's policy). A durable handle
// over it journals the execute tool's programs.
func OpenAPIContract(conn *openapi.Connector) (*contract.Contract, error) {
	spec, request, err := openAPITools(conn)
	if err != nil {
		return nil, err
	}
	return toolsContract(spec, request)
}

// toolsContract is the contract of the OpenAPI tools (spec alone for
// search; spec and request for execute).
func toolsContract(tools ...*contract.Tool) (*contract.Contract, error) {
	c, err := contract.New(tools...)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: the OpenAPI contract: %w", err)
	}
	return c, nil
}

// openAPIFiller fills a description template with the document's title and
// size, the answer budget, the runtime and the declarations.
func openAPIFiller(conn *openapi.Connector, opts Options, runtime string) func(template, types string) string {
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
	return func(template, types string) string {
		return strings.NewReplacer("{{title}}", title, "{{operations}}", fmt.Sprint(operations), "{{chars}}", fmt.Sprint(opts.MaxTokens*4),
			"{{types}}", strings.TrimRight(types, "\n"), "{{runtime}}", runtime).Replace(template)
	}
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
	ns, err := conn.Namespace()
	if err != nil {
		return nil, nil, fmt.Errorf("mcpserver: %w", err)
	}
	for _, t := range ns.Tools {
		if t.Name() == "request" && t.Policy().ApprovalFor != nil {
			return spec, t, nil
		}
	}
	return nil, nil, fmt.Errorf("mcpserver: the connector has no request method")
}
