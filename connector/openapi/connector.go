package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/credhttp"
	"github.com/codemode-go/codemode/internal/jsonpointer"
	"github.com/codemode-go/codemode/internal/toolname"
	"github.com/codemode-go/codemode/internal/typegen"
	"github.com/getkin/kin-openapi/openapi3"
)

// ErrBaseURL is wrapped by Load and Parse when Options.BaseURL is not an
// absolute http(s) URL ("localhost:8080", one with a space), or when it is
// empty and the document's first server is none (absent, relative, or not
// http or https, such as Kubernetes' "//kubernetes.local"): Options.BaseURL
// sets one. The error is a *BaseURLError.
var ErrBaseURL = errors.New("no usable base URL")

// BaseURLError is the error of Load and Parse when there is no usable base
// URL; it wraps ErrBaseURL. Its message ends with how a Go caller sets one
// (Options.BaseURL); a program that takes the base URL otherwise (a
// command line's flag) says so itself, after Reason.
//
//	var be *openapi.BaseURLError
//	if errors.As(err, &be) {
//		return fmt.Errorf("no usable base URL: %s; give --base-url URL", be.Reason)
//	}
type BaseURLError struct {
	// URL is the base URL that cannot be used: Options.BaseURL, or when
	// that is empty the document's first server, its variables filled in;
	// "" when the document lists no servers.
	URL string
	// Reason says what is wrong with URL, naming it
	// (`"localhost:8080" is not an absolute http(s) URL, such as
	// "http://localhost:8080"`, "the document lists no servers"), and not
	// how to set another.
	Reason string
}

func (e *BaseURLError) Error() string {
	return ErrBaseURL.Error() + ": " + e.Reason + " (Options.BaseURL sets one)"
}

// Unwrap returns ErrBaseURL.
func (e *BaseURLError) Unwrap() error { return ErrBaseURL }

// Defaults of Options.
const (
	// defaultTimeout bounds one HTTP request, response body included.
	defaultTimeout = 30 * time.Second
	// defaultMaxResponseBytes bounds one response body: 4 MiB.
	defaultMaxResponseBytes = 4 << 20
	// maxErrorBody bounds the part of a non-2xx body an HTTPError carries.
	maxErrorBody = 2 << 10
)

// Options configure a connector.
type Options struct {
	// Name is the namespace programs call the API through
	// (`await petstore.listPets()`): a JavaScript identifier. Empty means
	// codemode.
	Name string
	// BaseURL is the URL operation paths are appended to, such as
	// "https://api.example.com/v1". Empty takes the document's first server
	// URL (with its variables' defaults), which must then be absolute.
	BaseURL string
	// Headers are added to every request to the base URL's origin (its
	// scheme, host and port), replacing any header of the same name that
	// a program passes: credentials such as Authorization belong here.
	// They are bound to that origin hop by hop: a redirect to another
	// allowed host carries neither them nor a header of their names, and
	// the program's own Authorization, Cookie and Referer stop there too.
	// Programs never see them: the host asks for gzip itself (a program's
	// Accept-Encoding is dropped), decodes the body, and replaces each
	// value, JSON-escaped, percent-encoded or in base64, by "[redacted]" in
	// the response; a Range header on a request that carries them is
	// refused. A server that transforms a value in another way defeats the
	// search; values shorter than 8 bytes are not searched for.
	Headers http.Header
	// AllowedHosts are further hosts (host or host:port, as in a URL)
	// requests may go to, redirects included; the base URL's host is
	// always allowed.
	AllowedHosts []string
	// Client sends the requests; nil uses a client without a cookie jar.
	// Its CheckRedirect is replaced by one that keeps redirects on
	// AllowedHosts. With a nil Transport or http.DefaultTransport a
	// response's headers are bounded to 64 KiB; each request reserves 128
	// KiB of client.Limits.MaxInFlightBytes for them, so a Transport of
	// your own should bound MaxResponseHeaderBytes as much.
	Client *http.Client
	// Timeout bounds one request, reading the response included; zero means
	// 30 s.
	Timeout time.Duration
	// MaxResponseBytes bounds a response body; zero means
	// 4 MiB. A larger response fails the call.
	MaxResponseBytes int64
	// ExposeSpec adds the spec() method, which returns the document
	// (exposeSpec in https://developers.cloudflare.com/agents/tools/codemode/api-reference/; off by default: the document can be large).
	ExposeSpec bool
	// Logger, when set, receives a debug record per request (method, path,
	// status, duration), and a warning per response that does not match
	// its schema under ResponsesWarn; nil is quiet.
	Logger *slog.Logger
	// Responses says what an operation method does with a 2xx JSON
	// response that does not match the document's schema for its status:
	// ResponsesWarn (the default) returns it and logs a warning,
	// ResponsesError fails the call, ResponsesOff does not look.
	Responses ResponseValidation
	// Approval decides, by HTTP method ("GET", "POST", …, upper-cased; ""
	// for a request call whose method is not a string), whether a call
	// needs a person's approval (the method's contract.Policy): an
	// operation by its own method, request by each call's. Nil asks
	// approval of every method that is not safe (RFC 9110, section 9.2.1:
	// GET, HEAD, OPTIONS and TRACE change nothing on the server), an
	// unknown one included; spec never needs it.
	Approval func(method string) bool
	// ReadOnly serves reads only: operations whose method is not safe
	// (RFC 9110, section 9.2.1) are left out, and request refuses such a
	// method before sending anything.
	ReadOnly bool
}

// ResponseValidation is how operation methods check responses against the
// document (Options.Responses).
type ResponseValidation int

const (
	// ResponsesWarn validates and, on a mismatch, returns the response
	// anyway and logs a warning naming the operation, the status and each
	// JSON pointer where the response breaks its schema (the first ten,
	// and how many more). It is the default because published descriptions often
	// lag their APIs (a new field, a null where the schema says string):
	// refusing such a response would block a program on data it can use.
	ResponsesWarn ResponseValidation = iota
	// ResponsesError fails the call with a *contract.ValidationError
	// (Phase "output"), which programs see as a ToolValidationError whose
	// lines name the method, the status, and each JSON pointer (the first
	// ten, and how many more) with its reason.
	ResponsesError
	// ResponsesOff does not validate responses.
	ResponsesOff
)

// maxValidatedResponseBytes bounds response validation's cost: a larger
// response is returned without validation (and, under ResponsesWarn, a
// debug record says so). Validation is linear in the response's size.
const maxValidatedResponseBytes = 1 << 20

// Connector is one OpenAPI document bound to a base URL and credentials. It
// is immutable and safe for concurrent use.
type Connector struct {
	name        string
	doc         *openapi3.T
	base        *url.URL
	headers     http.Header
	creds       *credhttp.Policy // headers, bound to the base URL's origin
	allowed     map[string]bool
	client      *http.Client
	timeout     time.Duration
	maxResponse int64
	exposeSpec  bool
	responses   ResponseValidation
	approval    func(method string) bool
	readOnly    bool
	// source is the document's JSON text as read (OpenAPI 3), or nil for
	// a converted Swagger 2.0 document.
	source json.RawMessage
	// schemaPlaces are where source's components/schemas members are,
	// when decodeDocument found them.
	schemaPlaces schemaPlaces
	logger       *slog.Logger
	ops          []*operation
	typeNames    map[string]string // "#/components/schemas/X" -> type name
}

// operation is one method of the namespace.
type operation struct {
	name     string
	method   string
	path     string
	op       *openapi3.Operation
	params   []*openapi3.Parameter // path, query and header
	body     *openapi3.SchemaRef   // request body schema, or nil
	bodyReq  bool
	bodyType string // the media type sent: JSON, or formType
	// encoding is a form body's Encoding Objects, by property (formType).
	encoding map[string]*openapi3.Encoding
	output   *openapi3.SchemaRef // 2xx JSON response schema, or nil
}

// Reserved method names (the low-level request and spec, as OpenApiConnector reserves
// them: https://developers.cloudflare.com/agents/tools/codemode/api-reference/).
const (
	requestMethod = "request"
	specMethod    = "spec"
)

// methodOrder is the order in which a path's operations are named, so that
// which of two clashing operations is skipped does not depend on map order.
var methodOrder = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "CONNECT"}

func build(doc *openapi3.T, opts Options) (*Connector, []string, error) {
	c := &Connector{
		name:        opts.Name,
		doc:         doc,
		headers:     opts.Headers.Clone(),
		client:      opts.Client,
		timeout:     opts.Timeout,
		maxResponse: opts.MaxResponseBytes,
		exposeSpec:  opts.ExposeSpec,
		logger:      opts.Logger,
		responses:   opts.Responses,
		approval:    opts.Approval,
		readOnly:    opts.ReadOnly,
	}
	if c.name == "" {
		c.name = contract.DefaultNamespace
	}
	if c.timeout <= 0 {
		c.timeout = defaultTimeout
	}
	if c.maxResponse <= 0 {
		c.maxResponse = defaultMaxResponseBytes
	}
	base, err := baseURL(doc, opts.BaseURL)
	if err != nil {
		return nil, nil, err
	}
	c.base = base
	c.allowed = map[string]bool{strings.ToLower(base.Host): true}
	for _, h := range opts.AllowedHosts {
		c.allowed[strings.ToLower(h)] = true
	}
	origin := credhttp.Origin(base)
	c.creds = credhttp.New(func(u *url.URL) string {
		if credhttp.Origin(u) == origin {
			return origin
		}
		return ""
	}, map[string]http.Header{origin: c.headers})
	c.client = &http.Client{}
	if opts.Client != nil {
		client := *opts.Client
		c.client = &client
	}
	c.typeNames = componentTypeNames(doc)

	var warnings opWarnings
	seen := map[string]string{requestMethod: "the low-level request method", specMethod: "the low-level spec method"}
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	slices.Sort(keys)
	for _, path := range keys {
		item := paths[path]
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		slices.SortFunc(methods, func(a, b string) int {
			ia, ib := slices.Index(methodOrder, a), slices.Index(methodOrder, b)
			if ia < 0 {
				ia = len(methodOrder)
			}
			if ib < 0 {
				ib = len(methodOrder)
			}
			if ia != ib {
				return ia - ib
			}
			return strings.Compare(a, b)
		})
		for _, method := range methods {
			o := ops[method]
			where := describeOperation(method, path, o)
			name := operationName(method, path, o.OperationID)
			if other, dup := seen[name]; dup {
				warnings.add(where, fmt.Sprintf(" skipped: its method name %s is already taken by %s", name, other))
				continue
			}
			op, err := newOperation(name, method, path, item, o, &warnings)
			if err != nil {
				warnings.add(where, fmt.Sprintf(" skipped: %v", err))
				continue
			}
			seen[name] = where
			c.ops = append(c.ops, op)
		}
	}
	return c, warnings.lines(), nil
}

// opWarning is what a document's operation loses: where names the
// operation (describeOperation), what follows it (": a cookie parameter
// is left out...", " skipped: ...").
type opWarning struct{ where, what string }

// opWarnings are the warnings of a document's operations, in order.
type opWarnings []opWarning

func (ws *opWarnings) add(where, what string) { *ws = append(*ws, opWarning{where, what}) }

// foldAt is how many operations may share one warning before they are
// folded into one line: a large description (Stripe's, whose every
// operation declares a form-encoded body) otherwise prints hundreds of
// lines that say the same.
const foldAt = 3

// lines renders the warnings, one line per operation ("operation GET /pets
// (operationId listPets): ..."), except that a what shared by more than
// foldAt operations is one line, at its first place: the number of
// operations, what, and the first foldAt of them ("452 operations: request
// body media types ... are left out: ... (operation GET /v1/account
// (operationId GetAccount); ..., and 449 more)").
func (ws opWarnings) lines() []string {
	byWhat := map[string][]string{}
	for _, w := range ws {
		byWhat[w.what] = append(byWhat[w.what], w.where)
	}
	var out []string
	for _, w := range ws {
		where := byWhat[w.what]
		switch {
		case len(where) == 0: // folded already
		case len(where) > foldAt:
			out = append(out, fmt.Sprintf("%d operations%s (%s; and %d more)", len(where), w.what, strings.Join(where[:foldAt], "; "), len(where)-foldAt))
			delete(byWhat, w.what)
		default:
			out = append(out, w.where+w.what)
		}
	}
	return out
}

// describeOperation names an operation in warnings: "GET /pets (listPets)".
func describeOperation(method, path string, o *openapi3.Operation) string {
	s := strings.ToUpper(method) + " " + path
	if o.OperationID != "" {
		s += " (operationId " + o.OperationID + ")"
	}
	return "operation " + s
}

// baseURL is the configured base URL, else the document's first server.
func baseURL(doc *openapi3.T, configured string) (*url.URL, error) {
	raw := configured
	if raw == "" {
		if len(doc.Servers) == 0 {
			return nil, &BaseURLError{Reason: "the document lists no servers"}
		}
		s := doc.Servers[0]
		raw = s.URL
		for name, v := range s.Variables {
			raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
		}
	}
	if strings.ContainsFunc(raw, unicode.IsSpace) {
		// url.Parse keeps a pasted trailing space in the path: every
		// request would go to "/%20/…" and answer 404.
		return nil, &BaseURLError{URL: raw, Reason: fmt.Sprintf("%q holds a space", raw)}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		hint := ""
		if !strings.Contains(raw, "//") && !strings.HasPrefix(raw, "/") {
			hint = fmt.Sprintf(", such as %q", "http://"+raw) // "localhost:8080" parses as scheme "localhost"
		}
		return nil, &BaseURLError{URL: raw, Reason: fmt.Sprintf("%q is not an absolute http(s) URL%s", raw, hint)}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, &BaseURLError{URL: raw, Reason: fmt.Sprintf("%q has a query or fragment, which a base URL cannot (operation paths and their query parameters follow it)", raw)}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// newOperation collects an operation's parameters, JSON body and 2xx JSON
// response.
// What it leaves out is added to warnings.
func newOperation(name, method, path string, item *openapi3.PathItem, o *openapi3.Operation, warnings *opWarnings) (*operation, error) {
	op := &operation{name: name, method: strings.ToUpper(method), path: path, op: o}
	where := describeOperation(method, path, o)
	// Operation parameters override path-item parameters of the same name
	// and location (OpenAPI 3.1 §4.8.9.1, "parameters").
	byKey := map[string]*openapi3.Parameter{}
	var order []string
	for _, list := range []openapi3.Parameters{item.Parameters, o.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			p := pr.Value
			key := p.In + "\x00" + p.Name
			if _, ok := byKey[key]; !ok {
				order = append(order, key)
			}
			byKey[key] = p
		}
	}
	names := map[string]string{}
	for _, key := range order {
		p := byKey[key]
		switch p.In {
		case openapi3.ParameterInPath, openapi3.ParameterInQuery, openapi3.ParameterInHeader:
		case openapi3.ParameterInCookie:
			warnings.add(where, fmt.Sprintf(": cookie parameter %s is left out: programs cannot set cookies", p.Name))
			continue
		default:
			return nil, fmt.Errorf("parameter %s is in %q, which is not path, query, header or cookie", p.Name, p.In)
		}
		if p.In == openapi3.ParameterInPath && !strings.Contains(path, "{"+p.Name+"}") {
			return nil, fmt.Errorf("path parameter %s does not appear in the path", p.Name)
		}
		if other, dup := names[p.Name]; dup {
			return nil, fmt.Errorf("parameter %s is both in %s and in %s; one input property cannot carry both", p.Name, other, p.In)
		}
		names[p.Name] = p.In
		op.params = append(op.params, p)
	}
	for _, seg := range pathParams(path) {
		if names[seg] != openapi3.ParameterInPath {
			return nil, fmt.Errorf("path parameter {%s} is not declared", seg)
		}
	}
	if rb := o.RequestBody; rb != nil && rb.Value != nil {
		if err := op.setBody(rb.Value, names, where, warnings); err != nil {
			return nil, err
		}
	}
	op.output = okSchema(o.Responses)
	return op, nil
}

// pathParams lists the {name} segments of a path template.
func pathParams(path string) []string {
	var out []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, path[i+1:i+j])
		path = path[i+j+1:]
	}
}

// isJSON reports whether a media type is JSON: application/json or a
// +json suffix (RFC 6839 §3.1), parameters ignored.
func isJSON(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// setBody takes the request body: JSON if the document offers it (or a
// media range JSON is in, such as */*), else a form (formType), else none, with a warning naming the media types left
// out. A form whose schema has no properties and admits none carries
// nothing (Stripe's description gives one to its GET operations) and is
// left out without a warning.
func (op *operation) setBody(rb *openapi3.RequestBody, names map[string]string, where string, warnings *opWarnings) error {
	mt, schema, others := jsonContent(rb.Content)
	if i := slices.IndexFunc(others, admitsJSON); mt == "" && i >= 0 && rb.Content[others[i]].Schema != nil {
		// Kubernetes' description declares every body */*: a JSON body
		// is one it takes. A PATCH's is a JSON merge patch (RFC 7386), the
		// JSON patch format such a server takes (Kubernetes refuses
		// application/json for a PATCH with 415).
		schema = rb.Content[others[i]].Schema
		mt, others = "application/json", slices.Delete(others, i, i+1)
		if op.method == http.MethodPatch {
			mt = mergePatchType
		}
	}
	var encoding map[string]*openapi3.Encoding
	if form := rb.Content[formType]; mt == "" && form != nil && form.Schema != nil {
		if emptyObject(form.Schema) {
			return nil
		}
		mt, schema, encoding = formType, form.Schema, form.Encoding
		others = slices.DeleteFunc(others, func(t string) bool { return t == formType })
	}
	if len(others) > 0 && mt == "" {
		warnings.add(where, fmt.Sprintf(": request body media types %s are left out: only JSON and form bodies are sent (values cross the sandbox as JSON)", strings.Join(others, ", ")))
	}
	if mt == "" {
		return nil
	}
	if _, dup := names["body"]; dup {
		return errors.New("a parameter is named body, which is the request body's property")
	}
	op.body, op.bodyReq, op.bodyType, op.encoding = schema, rb.Required, mt, encoding
	return nil
}

// mergePatchType is the media type of a JSON merge patch
// (https://www.rfc-editor.org/rfc/rfc7386).
const mergePatchType = "application/merge-patch+json"

// admitsJSON reports whether media range mt (its parameters ignored) takes
// in application/json: */* or application/* (RFC 9110, section 12.5.1).
func admitsJSON(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	return mt == "*/*" || mt == "application/*"
}

// formType is the form media type request bodies may be sent as
// (https://url.spec.whatwg.org/#application/x-www-form-urlencoded).
const formType = "application/x-www-form-urlencoded"

// emptyObject reports whether s is an object schema with no properties
// that admits no others.
func emptyObject(s *openapi3.SchemaRef) bool {
	v := s.Value
	return v != nil && v.Type.Is(openapi3.TypeObject) && len(v.Properties) == 0 &&
		v.AdditionalProperties.Has != nil && !*v.AdditionalProperties.Has && v.AdditionalProperties.Schema == nil
}

// jsonContent picks the JSON media type of a content map (application/json
// first), returning it with its schema, and the other media types sorted.
func jsonContent(content openapi3.Content) (mt string, schema *openapi3.SchemaRef, others []string) {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if isJSON(k) && (mt == "" || strings.EqualFold(k, "application/json")) {
			mt = k
		}
	}
	for _, k := range keys {
		if k != mt {
			others = append(others, k)
		}
	}
	if mt != "" {
		schema = content[mt].Schema
	}
	return mt, schema, others
}

// okSchema is the JSON schema of the first 2xx response (200 before 201,
// then 2XX), or nil.
func okSchema(responses *openapi3.Responses) *openapi3.SchemaRef {
	m := responses.Map()
	keys := make([]string, 0, len(m))
	for k := range m {
		if strings.HasPrefix(k, "2") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // "200" < "201" < "2XX"
	for _, k := range keys {
		r := m[k]
		if r == nil || r.Value == nil {
			continue
		}
		if mt, schema, _ := jsonContent(r.Value.Content); mt != "" && schema != nil {
			return schema
		}
	}
	return nil
}

// operationName is OpenApiConnector's rule (https://developers.cloudflare.com/agents/tools/codemode/api-reference/): the sanitised operationId, else a name
// from the method and the path ("get_pets_petId").
func operationName(method, path, operationID string) string {
	if strings.TrimSpace(operationID) != "" {
		return toolname.Sanitize(operationID)
	}
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(path, "/") {
		seg = strings.Trim(seg, "{}")
		if seg == "" {
			continue
		}
		b.WriteByte('_')
		b.WriteString(seg)
	}
	return toolname.Sanitize(b.String())
}

// reservedTypeNames are names a component's type must not take (see
// typegen.Definitions): TypeScript's predefined types and the globals the
// declarations use.
var reservedTypeNames = map[string]bool{
	"any": true, "unknown": true, "never": true, "void": true, "undefined": true, "null": true,
	"string": true, "number": true, "boolean": true, "bigint": true, "symbol": true, "object": true,
	"true": true, "false": true, "Record": true, "Promise": true, "Array": true, "ReadonlyArray": true,
}

// componentTypeNames names every schema component: sanitised as tool names
// are, a predefined TypeScript name suffixed with "_", and a name that two
// components sanitise to suffixed "_2", "_3", … in sorted order.
func componentTypeNames(doc *openapi3.T) map[string]string {
	out := map[string]string{}
	if doc.Components == nil {
		return out
	}
	keys := make([]string, 0, len(doc.Components.Schemas))
	for k := range doc.Components.Schemas {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	used := map[string]bool{}
	for _, k := range keys {
		name := toolname.Sanitize(k)
		if reservedTypeNames[name] {
			name += "_"
		}
		if used[name] {
			for i := 2; ; i++ {
				if n := fmt.Sprintf("%s_%d", name, i); !used[n] {
					name = n
					break
				}
			}
		}
		used[name] = true
		out[componentRef(k)] = name
	}
	return out
}

// componentRef is the fragment reference of the component schema named
// name: the name escaped as a JSON pointer token (RFC 6901) with "%"
// percent-encoded, since a fragment is percent-decoded before it is read
// as a pointer (RFC 3986; typegen and kin-openapi read it so): the
// schema "a%20b" is "#/components/schemas/a%2520b", and
// "#/components/schemas/a%20b" names the schema "a b".
func componentRef(name string) string {
	return "#/components/schemas/" + strings.ReplaceAll(jsonpointer.Escape(name), "%", "%25")
}

// Name returns the namespace.
func (c *Connector) Name() string { return c.name }

// BaseURL returns the URL operation paths are appended to: Options.BaseURL,
// or the document's first server URL with its variables' defaults.
func (c *Connector) BaseURL() string { return c.base.String() }

// Document returns the parsed document. Callers must not modify it. Its
// named examples (components/examples) have the value {}: DocumentJSON
// has them.
func (c *Connector) Document() *openapi3.T { return c.doc }

// DocumentJSON returns the document as JSON text: as it was read (YAML
// converted to JSON), or, for a Swagger 2.0 document, its OpenAPI 3.0
// conversion. Callers must not modify it.
func (c *Connector) DocumentJSON() (json.RawMessage, error) {
	if c.source != nil {
		return c.source, nil
	}
	b, err := json.Marshal(c.doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: encoding the document: %w", err)
	}
	return b, nil
}

// definitionPlaces are where the schemas of components are in the
// definitions' document made of source[at:end] (definitions), by
// reference; nil when decodeDocument did not find them.
func (c *Connector) definitionPlaces(at, end int) map[string][2]int {
	if c.schemaPlaces == nil {
		return nil
	}
	shift := len(`{"components":{"schemas":`) - at
	places := make(map[string][2]int, len(c.schemaPlaces))
	for name, p := range c.schemaPlaces {
		if p[0] >= at && p[1] <= end {
			places[componentRef(name)] = [2]int{p[0] + shift, p[1] + shift}
		}
	}
	return places
}

// definitions is the document's components as typegen definitions.
func (c *Connector) definitions() (*typegen.Definitions, error) {
	// The source's own text of components/schemas, when it has one, is
	// the same JSON without encoding the parsed schemas again.
	if top, ok := memberValue(c.source, skipSpace(c.source, 0), "components"); ok {
		if at, ok := memberValue(c.source, top, "schemas"); ok {
			if end, ok := valueEnd(c.source, at); ok {
				raw := make([]byte, 0, end-at+32)
				raw = append(raw, `{"components":{"schemas":`...)
				raw = append(raw, c.source[at:end]...)
				raw = append(raw, "}}"...)
				return &typegen.Definitions{Document: raw, Names: c.typeNames, Places: c.definitionPlaces(at, end)}, nil
			}
		}
	}
	schemas := openapi3.Schemas{}
	if c.doc.Components != nil {
		schemas = c.doc.Components.Schemas
	}
	raw, err := json.Marshal(map[string]any{"components": map[string]any{"schemas": schemas}})
	if err != nil {
		return nil, fmt.Errorf("encoding the components: %w", err)
	}
	return &typegen.Definitions{Document: raw, Names: c.typeNames}, nil
}
