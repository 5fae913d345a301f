// Package openapi makes a REST API described by an OpenAPI document a
// code-mode namespace (OpenApiConnector in Cloudflare's Code Mode API
// reference, https://developers.cloudflare.com/agents/tools/codemode/api-reference/): one method per
// operation, declared from the document's schemas and called through a
// host-side request function that holds the base URL, the credentials and
// an allow-list of hosts. Programs never see the credentials.
//
//	c, warnings, err := openapi.Load(ctx, "petstore.json", openapi.Options{
//		Name:    "petstore",
//		BaseURL: "https://petstore.example.com/v1",
//		Headers: http.Header{"Authorization": {"Bearer " + token}},
//	})
//	ns, err := c.Namespace()
//	k, err := contract.NewNamespaced(ns)
//	// a program: await petstore.showPetById({ petId: "7" })
//
// Documents are OpenAPI 3.0 or 3.1, JSON or YAML, parsed, resolved and
// validated by github.com/getkin/kin-openapi; Swagger 2.0 documents are
// converted to 3.0 first (openapi2conv). External references (other files
// or URLs) are refused: a document must be self-contained.
//
// # Methods
//
// Each operation becomes a method named by its operationId, sanitised into
// a JavaScript identifier as Cloudflare's sanitizeToolName does (the
// separators "-", ".", "/", ":" and spaces become "_", other characters
// that cannot be in an identifier are dropped, a leading digit gets a "_"
// prefix and a reserved word a "_" suffix), or, without one, by its HTTP
// method and path ("get_pets_petId"). An operation whose name repeats an earlier one,
// or is request or spec (reserved for the low-level methods below), is
// skipped, with a warning naming it. A method's input is an object with one
// property per path, query and header parameter (cookie parameters are
// skipped: a program cannot set cookies) and body, the request body: JSON
// (also where the document declares only a media range JSON is in, */* or
// application/*, as Kubernetes' description does; a PATCH's then goes as a
// JSON merge patch, application/merge-patch+json, RFC 7386), or, where the
// document offers no JSON, a form
// (application/x-www-form-urlencoded, as Stripe's API takes), which the
// program gives as an object and the host encodes by the document's
// Encoding Objects (nested values with brackets, a[b][0]=v). Request bodies
// of other media types (multipart/form-data, application/octet-stream,
// text/*) are skipped with a warning: values cross the sandbox boundary as
// JSON. A method's result is declared from
// its first 2xx response with a JSON schema, else unknown.
//
// Every connector also has request({path, method, params, body, headers}),
// for what the operations do not cover, and spec() when Options.ExposeSpec
// is set, which returns the document.
//
// # Declarations without blow-up
//
// Components (components/schemas) are declared once each, as named types in
// a TypeScript namespace (PetstoreTypes.Pet), and methods refer to them by
// name (see typegen.Definitions): the declarations grow with the document,
// not with the number of times a component is used, and a circular
// component is a recursive type.
//
// # Calls
//
// The host validates a method's parameters and body against the document
// (kin-openapi's schema validator) before sending anything, substitutes
// path parameters (percent-escaped, "/" as %2F; a value that would make a
// "." or ".." segment once decoded is refused, since a server may resolve it
// to another path), serialises query and header parameters
// by their style and explode settings, and adds the configured headers. A
// JSON response is parsed; any other is returned as text; an empty one is
// null. A non-2xx status is thrown in the program as an HTTPError whose
// message carries the status and the start of the body, and whose status,
// method, path and body are properties (e.status === 404). Responses are
// bounded in size and requests in time (Options), and a JSON response is
// checked against the document's schema for its status (Options.Responses:
// a warning by default, or an error, or off).
//
// # Policy
//
// Every method carries its contract.Policy, in plain and durable runs
// alike: an operation whose HTTP method is not safe needs a person's
// approval (Options.Approval), request asks by each call's method, and spec
// never does. The MCP server (package mcpserver) can also serve one
// document with search and execute tools.
package openapi
