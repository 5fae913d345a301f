package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/jsonpointer"
	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/getkin/kin-openapi/openapi3"
)

// method is one method of the namespace, before it is a contract tool.
type method struct {
	// Name is the method name programs call.
	Name string
	// Description is the method's documentation: the operation's summary
	// and description, then its method and path.
	Description string
	// Method and Path are the operation's ("GET", "/pets/{petId}"); empty
	// for request and spec.
	Method, Path string
	// ReadOnly is set for GET and HEAD operations and spec: they change
	// nothing on the server (RFC 9110 §9.2.1, safe methods). Namespace
	// marks them with the read-only annotation; approval policies read it.
	ReadOnly bool
	// InputSchema and OutputSchema are the declaration schemas: their
	// "#/components/schemas/…" references point into the document (see
	// Namespace, which declares them once). OutputSchema is {} when the
	// operation has no 2xx JSON response, and nil (declared any) for
	// request.
	InputSchema, OutputSchema json.RawMessage
	// Call validates the input against the document and sends the request.
	Call contract.Handler
}

// methods returns the namespace's methods: one per operation (with
// Options.ReadOnly, per safe operation), then request and, with
// Options.ExposeSpec, spec.
func (c *Connector) methods() ([]method, error) {
	var out []method
	for _, op := range c.ops {
		if c.readOnly && unsafeMethod(op.method) {
			continue
		}
		in, err := op.inputSchema()
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", op.name, err)
		}
		outSchema := json.RawMessage(`{}`)
		if op.output != nil {
			if outSchema, err = json.Marshal(op.output); err != nil {
				return nil, fmt.Errorf("openapi: %s output schema: %w", op.name, err)
			}
		}
		out = append(out, method{
			Name: op.name, Description: op.description(), Method: op.method, Path: op.path,
			ReadOnly:    op.method == http.MethodGet || op.method == http.MethodHead,
			InputSchema: in, OutputSchema: outSchema,
			Call: func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
				return c.callOperation(ctx, op, input)
			},
		})
	}
	out = append(out, method{
		Name:        requestMethod,
		Description: "Sends one HTTP request to the API (base URL and credentials are added by the host) and returns the response: JSON parsed, other text as a string, empty as null. A status outside 2xx throws an HTTPError. Use it for what the other methods do not cover.",
		InputSchema: json.RawMessage(requestInputSchema),
		// No schema: declared any, as an MCP tool without one, so that a
		// program reads the response without casts.
		OutputSchema: nil,
		Call: func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
			var o requestOptions
			if err := json.Unmarshal(input, &o); err != nil {
				return nil, &contract.ValidationError{Tool: requestMethod, Phase: "input", Lines: []string{"/: " + err.Error()}}
			}
			return c.request(ctx, o)
		},
	})
	if c.exposeSpec {
		var once sync.Once
		var spec json.RawMessage
		var specErr error
		out = append(out, method{
			Name: specMethod, Description: "Returns the API's OpenAPI document.", ReadOnly: true,
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`), OutputSchema: json.RawMessage(`{"type":"object"}`),
			Call: func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
				once.Do(func() { spec, specErr = c.DocumentJSON() })
				return spec, specErr
			},
		})
	}
	return out, nil
}

const requestInputSchema = `{"type":"object","required":["path"],"additionalProperties":false,"properties":{
"path":{"type":"string","description":"Path below the base URL, starting with /, e.g. /pets/7."},
"method":{"type":"string","description":"HTTP method; GET when absent."},
"params":{"type":"object","description":"Query parameters; arrays repeat the name."},
"body":{"description":"JSON request body."},
"headers":{"type":"object","additionalProperties":{"type":"string"},"description":"Extra request headers."}}}`

// Namespace returns the contract namespace: every Tool as a contract tool
// declared from the document (components declared once, by name; see
// typegen.Definitions), validated by Call, annotated read-only when
// Tool.ReadOnly is set, and for an operation with the method and path it
// calls as its contract.Tool.Upstream (operationUpstream).
func (c *Connector) Namespace() (contract.Namespace, error) {
	tools, err := c.methods()
	if err != nil {
		return contract.Namespace{}, err
	}
	defs, err := c.definitions()
	if err != nil {
		return contract.Namespace{}, fmt.Errorf("openapi: %w", err)
	}
	ns := contract.Namespace{Name: c.name, Definitions: defs, Instructions: c.instructions()}
	for _, t := range tools {
		ct, err := contract.NewDeclaredTool(t.Name, t.Description, t.InputSchema, t.OutputSchema, t.Call)
		if err != nil {
			return contract.Namespace{}, fmt.Errorf("openapi: %w", err)
		}
		if t.Method != "" {
			// A document that changes may give an operation's name to
			// another: a journal records which operation a call named.
			ct = ct.WithUpstream(operationUpstream(t.Method, t.Path))
		}
		if t.ReadOnly {
			yes := true
			ct = ct.WithAnnotations(contract.Annotations{ReadOnly: &yes})
		}
		if ct, err = ct.WithPolicy(c.policy(t)); err != nil {
			return contract.Namespace{}, fmt.Errorf("openapi: %w", err)
		}
		ns.Tools = append(ns.Tools, ct)
	}
	return ns, nil
}

// operationUpstream is the contract.Tool.Upstream of the operation
// method path: "operation GET /pets/{petId}", the path as the document
// writes it. Journals compare it with what they recorded, so its form
// never changes.
func operationUpstream(method, path string) string { return "operation " + method + " " + path }

// policy is a method's contract.Policy: an operation needs approval by its
// HTTP method (Options.Approval), request by the method of each call, and
// spec never; a call's response is answered from the record on replay,
// but spec reads the document again rather than copying it into a record.
func (c *Connector) policy(t method) contract.Policy {
	approve := c.approval
	if approve == nil {
		approve = unsafeMethod
	}
	switch {
	case t.Method != "":
		return contract.Policy{RequiresApproval: approve(t.Method)}
	case t.ReadOnly: // spec
		return contract.Policy{Replay: contract.ReplayReexecute}
	}
	return contract.Policy{ApprovalFor: func(input json.RawMessage) bool { return approve(callMethod(input)) }}
}

// unsafeMethod reports whether method may change something on the server:
// every method but GET, HEAD, OPTIONS and TRACE (RFC 9110, section 9.2.1),
// an unknown one ("") included.
func unsafeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// callMethod is the upper-cased method of a request call's input: GET
// when absent or blank, "" when it is not a string.
func callMethod(input json.RawMessage) string {
	var in struct {
		Method any `json:"method"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	switch m := in.Method.(type) {
	case nil:
		return http.MethodGet
	case string:
		if strings.TrimSpace(m) == "" {
			return http.MethodGet
		}
		return strings.ToUpper(strings.TrimSpace(m))
	}
	return ""
}

// instructions is the namespace's summary for an agent: the document's
// title and the first paragraph of its description.
func (c *Connector) instructions() string {
	info := c.doc.Info
	if info == nil {
		return ""
	}
	parts := []string{strings.TrimSpace(info.Title)}
	if d := strings.TrimSpace(info.Description); d != "" {
		if i := strings.Index(d, "\n\n"); i >= 0 {
			d = d[:i]
		}
		parts = append(parts, d)
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// description is the operation's summary and description, then its method
// and path.
func (op *operation) description() string {
	var parts []string
	for _, s := range []string{op.op.Summary, op.op.Description} {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	line := op.method + " " + op.path
	if op.op.Deprecated {
		line += " (deprecated)"
	}
	return strings.Join(append(parts, line), "\n\n")
}

// paramSchema is a parameter's schema: its schema, else the schema of its
// JSON content.
func paramSchema(p *openapi3.Parameter) *openapi3.SchemaRef {
	if p.Schema != nil {
		return p.Schema
	}
	if _, s, _ := jsonContent(p.Content); s != nil {
		return s
	}
	return nil
}

// inputSchema is the method's input: one property per parameter, and body.
func (op *operation) inputSchema() (json.RawMessage, error) {
	props := map[string]json.RawMessage{}
	var order, required []string
	add := func(name string, s *openapi3.SchemaRef, desc string, req bool) error {
		var raw json.RawMessage = json.RawMessage(`{}`)
		if s != nil {
			var err error
			if raw, err = json.Marshal(s); err != nil {
				return fmt.Errorf("schema of %s: %w", name, err)
			}
		}
		if desc = strings.TrimSpace(desc); desc != "" {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err == nil && m != nil {
				m["description"], _ = json.Marshal(desc)
				raw, _ = json.Marshal(m)
			}
		}
		props[name] = raw
		order = append(order, name)
		if req {
			required = append(required, name)
		}
		return nil
	}
	for _, p := range op.params {
		desc := p.Description
		if p.In != openapi3.ParameterInQuery {
			desc = strings.TrimSpace(desc + "\n\n(" + p.In + " parameter)")
		}
		if err := add(p.Name, paramSchema(p), desc, p.Required || p.In == openapi3.ParameterInPath); err != nil {
			return nil, err
		}
	}
	if op.body != nil {
		desc := "JSON request body (" + op.bodyType + ")."
		if op.bodyType == formType {
			desc = "Request body, sent form-encoded (" + formType + ")."
		}
		if op.op.RequestBody.Value.Description != "" {
			desc = op.op.RequestBody.Value.Description
		}
		if err := add("body", op.body, desc, op.bodyReq); err != nil {
			return nil, err
		}
	}
	// Properties in parameter order (encoding/json would sort a map).
	var b strings.Builder
	b.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	for i, name := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(props[name])
	}
	b.WriteString("}")
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteString("}")
	return json.RawMessage(b.String()), nil
}

// callOperation validates the input against the document and sends the
// request.
func (c *Connector) callOperation(ctx context.Context, op *operation, input json.RawMessage) (json.RawMessage, error) {
	var in map[string]any
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		return nil, &contract.ValidationError{Tool: op.name, Phase: "input", Lines: []string{"/: the input must be an object"}}
	}
	var lines []string
	known := map[string]bool{}
	for _, p := range op.params {
		known[p.Name] = true
		v, ok := in[p.Name]
		if !ok {
			if p.Required || p.In == openapi3.ParameterInPath {
				lines = append(lines, fmt.Sprintf("/%s: required (%s parameter)", jsonpointer.Escape(p.Name), p.In))
			}
			continue
		}
		if s := paramSchema(p); s != nil && s.Value != nil {
			lines = append(lines, faultsAt("/"+jsonpointer.Escape(p.Name), s.Value, v)...)
		}
	}
	body, hasBody := in["body"]
	if op.body != nil {
		known["body"] = true
		switch {
		case !hasBody && op.bodyReq:
			lines = append(lines, "/body: required (the JSON request body)")
		case hasBody && op.body.Value != nil:
			lines = append(lines, faultsAt("/body", op.body.Value, body)...)
		}
	}
	var extra []string
	for k := range in {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		lines = append(lines, "/"+jsonpointer.Escape(k)+": not a parameter of "+op.method+" "+op.path)
	}
	if len(lines) > 0 {
		return nil, &contract.ValidationError{Tool: op.name, Phase: "input", Lines: lines}
	}

	pathValues := map[string]string{}
	var query []string
	h := http.Header{}
	for _, p := range op.params {
		v, ok := in[p.Name]
		if !ok {
			continue
		}
		explode := p.Explode != nil && *p.Explode
		if p.Schema == nil && paramSchema(p) != nil {
			// A parameter described by content is sent JSON-encoded.
			b, _ := json.Marshal(v)
			v = string(b)
		}
		switch p.In {
		case openapi3.ParameterInPath:
			pathValues[p.Name] = serializePath(p.Name, p.Style, explode, v)
		case openapi3.ParameterInQuery:
			if p.Explode == nil {
				explode = p.Style == "" || p.Style == "form"
			}
			query = serializeQuery(query, p.Name, p.Style, explode, p.AllowReserved, v)
		case openapi3.ParameterInHeader:
			h.Set(p.Name, serializeHeader(explode, v))
		}
	}
	path, err := op.expandPath(pathValues)
	if err != nil {
		return nil, err
	}
	var payload []byte
	if op.body != nil && hasBody {
		if payload, err = op.encodeBody(body); err != nil {
			return nil, err
		}
	}
	r, err := c.do(ctx, op.method, path, strings.Join(query, "&"), h, payload, op.bodyType)
	if err != nil {
		return nil, err
	}
	if err := c.checkResponse(ctx, op, r); err != nil {
		return nil, err
	}
	return r.value, nil
}

// expandPath substitutes the path parameters' serialised values into the
// path, segment by segment. A segment that would hold a dot segment once
// percent-decoded (hasDotSegment) is refused as a ValidationError naming
// its first parameter: a server or proxy that decodes before it resolves
// dot segments (RFC 3986 §5.2.4) would take the request to another path
// of the API, which a program may not choose by a parameter's value.
func (op *operation) expandPath(values map[string]string) (string, error) {
	segs := strings.Split(op.path, "/")
	for i, seg := range segs {
		names := pathParams(seg)
		if len(names) == 0 {
			continue
		}
		for _, n := range names {
			segs[i] = strings.ReplaceAll(segs[i], "{"+n+"}", values[n])
		}
		if hasDotSegment(segs[i]) {
			line := fmt.Sprintf("/%s: refused: with this value the path segment %s of %s %s would be or hold a . or .. segment once percent-decoded, "+
				"which a server may resolve to another path of the API (RFC 3986 §5.2.4)", jsonpointer.Escape(names[0]), seg, op.method, op.path)
			return "", &contract.ValidationError{Tool: op.name, Phase: "input", Lines: []string{line}}
		}
	}
	return strings.Join(segs, "/"), nil
}

// encodeBody is the request body's bytes: JSON, or a form (encodeForm).
func (op *operation) encodeBody(body any) ([]byte, error) {
	if op.bodyType == formType {
		s, err := encodeForm(body, op.encoding)
		if err != nil {
			return nil, &contract.ValidationError{Tool: op.name, Phase: "input", Lines: []string{"/body: " + err.Error()}}
		}
		return []byte(s), nil
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the body: %w", err)
	}
	return b, nil
}

// checkResponse validates a JSON response against the document's schema
// for its status (the exact code, else its range such as "2XX"), as
// Options.Responses says; a response with no JSON schema, not JSON, or
// larger than 1 MiB is not checked.
func (c *Connector) checkResponse(ctx context.Context, op *operation, r *response) error {
	if c.responses == ResponsesOff || !r.json || op.op.Responses == nil {
		return nil
	}
	ref := op.op.Responses.Status(r.status)
	if ref == nil {
		ref = op.op.Responses.Value(fmt.Sprintf("%dXX", r.status/100))
	}
	if ref == nil || ref.Value == nil {
		return nil
	}
	_, schema, _ := jsonContent(ref.Value.Content)
	if schema == nil || schema.Value == nil {
		return nil
	}
	if r.size > maxValidatedResponseBytes {
		if c.logger != nil {
			c.logger.DebugContext(ctx, "openapi response not validated: too large", "namespace", c.name, "method", op.name, "bytes", r.size)
		}
		return nil
	}
	// Decoded for validation, a JSON text takes several times its size
	// (maps, interfaces, float64s): reserved like the body it came from.
	if err := membudget.AccountFrom(ctx).Take(decodedCost * int64(r.size)); err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(r.value, &v); err != nil {
		return nil
	}
	lines := mismatchLines(schema.Value.VisitJSON(v, openapi3.VisitAsResponse(), openapi3.MultiErrors()))
	if len(lines) == 0 {
		return nil
	}
	what := fmt.Sprintf(" (the %d response of %s %s does not match the document)", r.status, op.method, op.path)
	if c.responses == ResponsesError {
		for i, l := range lines {
			if strings.HasPrefix(l, "/") {
				lines[i] += what
			}
		}
		return &contract.ValidationError{Tool: op.name, Phase: "output", Lines: lines}
	}
	if c.logger != nil {
		c.logger.WarnContext(ctx, "openapi response does not match the document", "namespace", c.name, "method", op.name, "mismatch", strings.Join(lines, "; ")+what)
	}
	return nil
}

// maxMismatchLines bounds the places a response's mismatch names.
const maxMismatchLines = 10

// mismatchLines lists the places where a value breaks its schema, one
// "JSON-pointer: reason" line each, from err, the error of validating it
// with openapi3.MultiErrors (nil: none): at most maxMismatchLines, and a
// last line saying how many more. A oneOf's ambiguity is not a mismatch
// (oneOfAmbiguity).
func mismatchLines(err error) []string {
	var lines []string
	var walk func(err error)
	walk = func(err error) {
		// A MultiError lists failures that each hold; a SchemaError's own
		// (a oneOf's branches) are alternatives, and it is one failure.
		multi, ok := err.(openapi3.MultiError)
		switch {
		case ok:
			for _, e := range multi {
				walk(e)
			}
		case err == nil, oneOfAmbiguity(err):
		default:
			line := schemaMessage(err)
			if !strings.HasPrefix(line, "/") {
				line = "/: " + line
			}
			if !slices.Contains(lines, line) {
				lines = append(lines, line)
			}
		}
	}
	walk(err)
	if n := len(lines) - maxMismatchLines; n > 0 {
		lines = append(lines[:maxMismatchLines], fmt.Sprintf("… and %d more", n))
	}
	return lines
}

// faultsAt lists every place where v, the input's member at pointer at (a
// parameter, or the body), breaks schema, one "JSON-pointer: reason" line
// each with the pointer from the input's root ("/body/name: ..."), as
// mismatchLines bounds them: a program learns of all its faults in one
// call, not one per call.
func faultsAt(at string, schema *openapi3.Schema, v any) []string {
	lines := mismatchLines(schema.VisitJSON(v, append(requestValidation(), openapi3.MultiErrors())...))
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "/: "):
			lines[i] = at + l[1:]
		case strings.HasPrefix(l, "/"):
			lines[i] = at + l
		}
	}
	return lines
}

// decodedCost is what decoding a JSON text into Go values takes, per byte
// of text, at most for ordinary API responses (a short string field's map
// entry and interface, a number's float64).
const decodedCost = 8

// requestValidation validates a request value: readOnly properties are
// not required, and not refused either, because OpenAPI 3.0 says they
// "SHOULD NOT" be sent (§4.7.24.1, readOnly), and real APIs take them back
// (the petstore's updatePet sends the pet's read-only id).
func requestValidation() []openapi3.SchemaValidationOption {
	return []openapi3.SchemaValidationOption{openapi3.VisitAsRequest(), openapi3.DisableReadOnlyValidation()}
}

// oneOfAmbiguity reports whether err only says that a value matches more
// than one branch of a oneOf. Documents often write oneOf where branches
// overlap (open objects match each other's values), meaning anyOf; the
// declarations print oneOf as a union too, and the API itself still
// decides. Refusing such a value would refuse calls the API accepts.
func oneOfAmbiguity(err error) bool {
	var se *openapi3.SchemaError
	return errors.As(err, &se) && se.SchemaField == "oneOf" && strings.Contains(se.Reason, "more than one")
}

// schemaMessage is the first line of a kin-openapi validation error: its
// reason after the JSON pointer of the value at fault, when it has one.
func schemaMessage(err error) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		msg := se.Reason
		if p := se.JSONPointer(); len(p) > 0 {
			at := ""
			for _, tok := range p {
				at = jsonpointer.Append(at, tok)
			}
			msg = at + ": " + msg
		}
		return msg
	}
	return firstLine(err.Error())
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
