package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/codemode-go/codemode/internal/jsonpointer"
	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// maxDocumentBytes is the largest OpenAPI document Load and Parse accept:
// 64 MiB (GitHub's REST description, about 1,000 operations, is 13 MiB).
const maxDocumentBytes = 64 << 20

// loadTimeout bounds fetching a document from a URL when the caller's
// context allows longer.
const loadTimeout = 60 * time.Second

// Load reads an OpenAPI document from source, a file path or an http(s)
// URL, and builds a connector from it as Parse does. It returns an error
// naming source when it cannot be read (or is larger than
// 64 MiB) and Parse's errors otherwise.
func Load(ctx context.Context, source string, opts Options) (*Connector, []string, error) {
	data, err := readSource(ctx, source)
	if err != nil {
		return nil, nil, fmt.Errorf("openapi: reading %s: %w", source, err)
	}
	c, warnings, err := Parse(ctx, data, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("openapi: %s: %w", source, err)
	}
	return c, warnings, nil
}

func readSource(ctx context.Context, source string) ([]byte, error) {
	if u, err := url.Parse(source); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		ctx, cancel := context.WithTimeout(ctx, loadTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("HTTP %s", resp.Status)
		}
		return readBounded(resp.Body)
	}
	f, err := os.Open(source)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f)
}

func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDocumentBytes {
		return nil, fmt.Errorf("the document is larger than %d MiB", maxDocumentBytes>>20)
	}
	return data, nil
}

// Parse builds a connector from an OpenAPI document's text: JSON or YAML,
// OpenAPI 3.x, or Swagger 2.0 (converted with openapi2conv). References are
// resolved within the document; external ones are refused. Validation
// problems that do not stop the document from being used (an example that
// does not match its schema, a missing info field) are returned as
// warnings, with operations that were skipped and request bodies that are
// not JSON. It returns an error for text that is not a document, for an
// unsupported version, for an external or dangling reference, for a
// document past the bounds on its components and references (whose
// resolving would take time growing with their product), and for invalid
// Options. A document whose validation would take such time is used
// unvalidated, with a warning. A cancelled ctx stops it early with an
// error wrapping ctx.Err().
func Parse(ctx context.Context, data []byte, opts Options) (*Connector, []string, error) {
	if len(data) > maxDocumentBytes {
		return nil, nil, fmt.Errorf("the document is larger than %d MiB", maxDocumentBytes>>20)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	jsonText, err := asJSON(data)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var head struct {
		Swagger any `json:"swagger"`
		OpenAPI any `json:"openapi"`
	}
	if err := json.Unmarshal(jsonText, &head); err != nil {
		return nil, nil, fmt.Errorf("not an OpenAPI document (a JSON or YAML object): %w", err)
	}
	if err := checkShape(jsonText); err != nil {
		return nil, nil, err
	}
	unvalidated, err := checkReferenceWork(jsonText)
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var warnings []string
	var doc *openapi3.T
	var places schemaPlaces
	switch {
	case head.OpenAPI != nil:
		v, _ := head.OpenAPI.(string)
		if !strings.HasPrefix(v, "3.") {
			return nil, nil, fmt.Errorf("openapi version %v is not supported (3.0 and 3.1 are; Swagger 2.0 is converted)", head.OpenAPI)
		}
		// Decoded as JSON and resolved in place: the loader's LoadFromData
		// reads JSON through its YAML decoder, which takes seconds on a
		// 13 MiB document (GitHub's) where encoding/json takes a fraction.
		if doc, places, err = decodeDocument(ctx, jsonText); err != nil {
			return nil, nil, fmt.Errorf("reading the document: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("reading the document: %w", err)
		}
		loader := openapi3.NewLoader()
		loader.IsExternalRefsAllowed = false
		if err := loader.ResolveRefsIn(doc, nil); err != nil {
			return nil, nil, fmt.Errorf("resolving references: %w", err)
		}
	case head.Swagger != nil:
		if v, _ := head.Swagger.(string); v != "2.0" {
			return nil, nil, fmt.Errorf("swagger version %v is not supported (only 2.0, which is converted to OpenAPI 3.0)", head.Swagger)
		}
		var doc2 openapi2.T
		if err := json.Unmarshal(jsonText, &doc2); err != nil {
			return nil, nil, fmt.Errorf("reading the Swagger 2.0 document: %w", err)
		}
		if doc, err = openapi2conv.ToV3(&doc2); err != nil {
			return nil, nil, fmt.Errorf("converting the Swagger 2.0 document to OpenAPI 3.0: %w", err)
		}
		// The conversion leaves references unresolved; resolve them in the
		// converted document (#/definitions became #/components/schemas).
		loader := openapi3.NewLoader()
		loader.IsExternalRefsAllowed = false
		if err := loader.ResolveRefsIn(doc, nil); err != nil {
			return nil, nil, fmt.Errorf("resolving the converted Swagger 2.0 document: %w", err)
		}
		warnings = append(warnings, "the document is Swagger 2.0; it was converted to OpenAPI 3.0")
	default:
		return nil, nil, errors.New(`not an OpenAPI document: neither "openapi" nor "swagger" is set at the top level`)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("resolving references: %w", err)
	}
	if unvalidated != "" {
		warnings = append(warnings, unvalidated)
	} else if err := doc.Validate(ctx, openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation()); err != nil {
		warnings = append(warnings, "the document does not validate (used as far as it can be): "+firstLine(err.Error()))
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("validating the document: %w", err)
	}
	c, w, err := build(doc, opts)
	if err != nil {
		return nil, nil, err
	}
	if head.OpenAPI != nil {
		c.source, c.schemaPlaces = jsonText, places
	}
	return c, append(warnings, w...), nil
}

// withoutExampleValues returns the document with every named example of
// components/examples emptied ({"value": {}}, which still validates),
// keeping the names so references to them still resolve. Nothing the connector does reads examples (example
// validation is off), and decoding them into kin-openapi's values is a
// fifth of the work on GitHub's description (1.5 of its 7.3 MB). The
// document's text, examples included, is kept for spec(). Text it cannot
// take apart is returned as it is, for the decoder to report.
func withoutExampleValues(text []byte) []byte {
	top, ok := memberValue(text, skipSpace(text, 0), "components")
	if !ok {
		return text
	}
	ex, ok := memberValue(text, top, "examples")
	if !ok {
		return text
	}
	end, ok := valueEnd(text, ex)
	if !ok || !json.Valid(text[ex:end]) {
		// Only a valid value is replaced, so the text stays as valid, or
		// as invalid, as it was.
		return text
	}
	out := make([]byte, 0, len(text)-(end-ex)+64)
	out = append(out, text[:ex]...)
	out = append(out, '{')
	first := true
	ok = eachMember(text, ex, func(key []byte, _, _ int) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, key...)
		out = append(out, `:{"value":{}}`...)
	})
	if !ok {
		return text
	}
	out = append(out, '}')
	return append(out, text[end:]...)
}

// The functions below find values in JSON text in one pass, without
// decoding: enough to take apart a document the decoder then reads (and
// validates). Each reports false on text that is not as expected.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string starting at b[i] == '"'.
// It jumps from quote to quote (bytes.IndexByte is vectorised): most of a
// document's bytes are in strings.
func stringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return 0, false
		}
		j += q
		// The quote ends the string unless an odd number of backslashes
		// stands before it.
		n := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
	return 0, false
}

// valueEnd returns the index after the value starting at b[i].
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, ok := stringEnd(b, j)
				if !ok {
					return 0, false
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
			j++
		}
		return j, j > i
	}
}

// eachMember calls f with each member's raw key (quotes included) and
// its value's start and end, for the object starting at b[i] == '{'.
func eachMember(b []byte, i int, f func(key []byte, start, end int)) bool {
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		ke, ok := stringEnd(b, i)
		if !ok {
			return false
		}
		key := b[i:ke]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		start := skipSpace(b, i+1)
		end, ok := valueEnd(b, start)
		if !ok {
			return false
		}
		f(key, start, end)
		i = skipSpace(b, end)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
	return false
}

// memberValue returns the start of the value of the member named name (a
// key written without escapes) of the object starting at b[i]; the last,
// when the name repeats, as encoding/json reads it.
func memberValue(b []byte, i int, name string) (int, bool) {
	at, found := 0, false
	ok := eachMember(b, i, func(key []byte, start, _ int) {
		if string(key) == `"`+name+`"` {
			at, found = start, true
		}
	})
	return at, ok && found
}

// asJSON returns JSON text as it is and converts YAML to JSON.
func asJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return trimmed, nil
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not an OpenAPI document (neither JSON nor YAML): %w", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("converting the YAML document to JSON: %w", err)
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Bounds on a document's shape, checked before kin-openapi reads it: a
// hostile document made of 300,000 components held 1.36 GB, and a chain of
// 20,000 schemas each only a $ref to the next took kin-openapi's resolver
// 331 s (its time grows with the square of the chain). GitHub's description
// has 1,769 components and no chain longer than 2.
const (
	// maxComponents bounds the entries of components (schemas, parameters,
	// responses, examples, ...) and of Swagger 2.0's definitions,
	// parameters and responses, all together.
	maxComponents = 50_000
	// maxRefChain bounds a chain of schemas that are each a $ref to the
	// next.
	maxRefChain = 64
)

// refName is the name of the schema the reference ref names among those
// under prefix ("#/components/schemas/"), read as kin-openapi's resolver
// reads it: the fragment percent-decoded, then split at "/", its tokens
// unescaped (RFC 6901); false when ref names no such schema. A chain of
// references spelled "#/components/schemas/%53%d" escaped the bound on
// chains when they were compared as written.
func refName(ref, prefix string) (string, bool) {
	if !strings.HasPrefix(ref, "#") {
		return "", false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	token, ok := strings.CutPrefix(u.Fragment, prefix[1:])
	if !ok || strings.Contains(token, "/") {
		return "", false
	}
	return jsonpointer.Unescape(token), true
}

// checkShape refuses a document past maxComponents or maxRefChain, naming
// what is over and by how much. It reads the text with the scanner below,
// without decoding it (text it cannot take apart is left for the decoder
// to report). Top-level keys are matched as encoding/json matches field
// names, case-insensitively, so that no spelling escapes the count.
func checkShape(jsonText []byte) error {
	type member struct {
		key   []byte
		start int
	}
	// count adds up the members of the object at i (if it is one) and
	// returns them.
	n := 0
	count := func(i int) []member {
		var ms []member
		if i < len(jsonText) && jsonText[i] == '{' {
			eachMember(jsonText, i, func(key []byte, start, _ int) { ms = append(ms, member{key, start}) })
		}
		n += len(ms)
		return ms
	}
	var components, definitions []member
	eachMember(jsonText, skipSpace(jsonText, 0), func(key []byte, start, _ int) {
		name, err := keyString(key)
		if err != nil {
			return
		}
		switch {
		case strings.EqualFold(name, "components"):
			for _, group := range count(start) {
				n-- // the group itself is not a component
				if g, _ := keyString(group.key); g == "schemas" {
					components = append(components, count(group.start)...)
				} else {
					count(group.start)
				}
			}
		case strings.EqualFold(name, "definitions"):
			definitions = append(definitions, count(start)...)
		case strings.EqualFold(name, "parameters"), strings.EqualFold(name, "responses"):
			count(start)
		}
	})
	if n > maxComponents {
		return fmt.Errorf("the document has %d components, more than %d: refused (the limit bounds the memory a document can take)", n, maxComponents)
	}
	schemas, prefix := components, "#/components/schemas/"
	if definitions != nil {
		schemas, prefix = definitions, "#/definitions/"
	}
	// next maps a schema that is a $ref to the schema it names.
	next := map[string]string{}
	for _, sc := range schemas {
		name, err := keyString(sc.key)
		if err != nil {
			continue
		}
		ref := ""
		eachMember(jsonText, sc.start, func(key []byte, start, end int) {
			if k, _ := keyString(key); k == "$ref" {
				_ = json.Unmarshal(jsonText[start:end], &ref)
			}
		})
		// A $ref's siblings ({"$ref": ..., "description": ...}) do not
		// stop the resolver following it.
		if to, ok := refName(ref, prefix); ok {
			next[name] = to
		}
	}
	depth := map[string]int{} // the chain's length from a schema; -1 while being followed
	var follow func(name string) int
	follow = func(name string) int {
		if d, ok := depth[name]; ok {
			if d < 0 {
				return 0 // a cycle: the resolver marks it; not a chain to bound
			}
			return d
		}
		to, ok := next[name]
		if !ok {
			return 0
		}
		depth[name] = -1
		d := 1 + follow(to)
		depth[name] = d
		return d
	}
	longest, from := 0, ""
	for name := range next {
		if d := follow(name); d > longest || d == longest && name < from {
			longest, from = d, name
		}
	}
	if longest > maxRefChain {
		return fmt.Errorf("schema %s%s starts a chain of %d schemas that are each a $ref to the next, more than %d: refused (resolving such chains takes time that grows with the square of their length)", prefix, jsonpointer.Escape(from), longest, maxRefChain)
	}
	return nil
}
