package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"golang.org/x/sync/errgroup"
)

// decodeDocument decodes an OpenAPI 3 document's JSON text (valid JSON: the
// caller has checked) into kin-openapi's types, as
// json.Unmarshal(withoutExampleValues(text), &openapi3.T{}) does, but in
// pieces: each path item and each member of components' schemas,
// parameters, headers, requestBodies and responses is decoded on its own by
// a bounded group of workers (one per CPU), and the rest (the document with
// those emptied) in one decode. kin-openapi decodes each object twice (into
// its struct and into a map for extensions) at every level of nesting, and
// its Paths re-encodes each path item to decode it again, so the pieces
// cost less in all than the whole as well as running in parallel (see
// RATIONALE.md, "Decoding OpenAPI documents in pieces"). Text the split
// does not take apart plainly (duplicate or escaped keys, keys that match
// a field only case-insensitively) is decoded whole.
//
// It also returns where the schemas of components are in text, when it
// took it apart (nil when not).
//
// A cancelled ctx stops the workers before their next piece; the error
// then wraps ctx.Err().
func decodeDocument(ctx context.Context, text []byte) (*openapi3.T, schemaPlaces, error) {
	p, ok := splitDocument(text)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if !ok {
		doc := &openapi3.T{}
		if err := json.Unmarshal(withoutExampleValues(text), doc); err != nil {
			return nil, nil, err
		}
		return doc, nil, ctx.Err()
	}
	doc := &openapi3.T{}
	if err := json.Unmarshal(p.skeleton, doc); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := decodePieces(ctx, p.pieces); err != nil {
		return nil, nil, err
	}
	places := schemaPlaces{}
	for _, pc := range p.pieces {
		if pc.group == "schemas" {
			places[pc.name] = [2]int{pc.start, pc.start + len(pc.text)}
		}
	}
	if doc.Paths != nil {
		for _, pc := range p.pieces {
			if pc.group == "" {
				doc.Paths.Set(pc.name, pc.value.(*openapi3.PathItem))
			}
		}
	}
	if c := doc.Components; c != nil {
		for _, pc := range p.pieces {
			switch v := pc.value.(type) {
			case *openapi3.SchemaRef:
				c.Schemas[pc.name] = v
			case *openapi3.ParameterRef:
				c.Parameters[pc.name] = v
			case *openapi3.HeaderRef:
				c.Headers[pc.name] = v
			case *openapi3.RequestBodyRef:
				c.RequestBodies[pc.name] = v
			case *openapi3.ResponseRef:
				c.Responses[pc.name] = v
			}
		}
	}
	return doc, places, nil
}

// schemaPlaces are, by name, the places of the members of a document's
// components/schemas in its text ([start, end) byte offsets).
type schemaPlaces map[string][2]int

// piece is a value of the document decoded on its own: a path item (group
// "") or a member of a components group.
type piece struct {
	group string // "", "schemas", "parameters", ...
	name  string // the path or the component's name
	text  []byte
	start int // text's place in the document's text
	value any // a pointer to the kin-openapi value, decoded by decodePieces
}

// decode decodes the piece's text into its value.
func (pc *piece) decode() error {
	if pc.group == "schemas" {
		ref, err := decodeSchemaRef(pc.text)
		if err == nil {
			*pc.value.(*openapi3.SchemaRef) = *ref
		}
		return err
	}
	switch pc.group {
	case "":
		return decodeWithSchemas(pc.text, pc.value, pathItemSchemas(pc.text))
	case "responses", "requestBodies":
		return decodeWithSchemas(pc.text, pc.value, contentSchemas(pc.text, 0, inlineSchema{}))
	}
	return json.Unmarshal(pc.text, pc.value)
}

// splitGroups are the components groups decoded member by member, with a
// new value of each member's type. examples are not among them: their
// values are emptied in the skeleton, as withoutExampleValues does.
var splitGroups = map[string]func() any{
	"schemas":       func() any { return &openapi3.SchemaRef{} },
	"parameters":    func() any { return &openapi3.ParameterRef{} },
	"headers":       func() any { return &openapi3.HeaderRef{} },
	"requestBodies": func() any { return &openapi3.RequestBodyRef{} },
	"responses":     func() any { return &openapi3.ResponseRef{} },
}

// decodePieces decodes every piece's text into its value with one worker
// per CPU (at most one per piece); the first error stops the others.
func decodePieces(ctx context.Context, pieces []*piece) error {
	workers := min(runtime.GOMAXPROCS(0), len(pieces))
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range workers {
		g.Go(func() error {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(pieces) {
					return nil
				}
				if err := gctx.Err(); err != nil {
					return err
				}
				pc := pieces[i]
				if err := pc.decode(); err != nil {
					if pc.group == "" {
						return fmt.Errorf("paths: %q: %w", pc.name, err)
					}
					return fmt.Errorf("components: %s: %q: %w", pc.group, pc.name, err)
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// split is a document taken apart by splitDocument.
type split struct {
	// skeleton is the document with each piece's member removed (paths
	// keeps its x- extensions) and components.examples' values emptied.
	skeleton []byte
	pieces   []*piece
}

// splitDocument takes apart valid JSON text for decodeDocument. It reports
// false for text it does not take apart plainly: a top level that is not
// an object; a key of the top level, of components or of paths written
// with an escape, repeated, or matching "paths", "components" or a split
// group only case-insensitively (encoding/json would decode such keys into
// the same field).
func splitDocument(text []byte) (split, bool) {
	var s split
	top := skipSpace(text, 0)
	if !plainKeys(text, top, "paths", "components") {
		return s, false
	}
	// cuts are the spans of text replaced in the skeleton, in order.
	type cut struct {
		start, end int
		with       []byte
	}
	var cuts []cut
	if at, ok := memberValue(text, top, "paths"); ok && at < len(text) && text[at] == '{' {
		if !plainKeys(text, at) {
			return s, false
		}
		var ext []byte // the x- members, kept for kin-openapi's Paths
		ok := eachMember(text, at, func(key []byte, start, end int) {
			name := unquote(key)
			if strings.HasPrefix(name, "x-") {
				if len(ext) > 0 {
					ext = append(ext, ',')
				}
				ext = append(ext, key...)
				ext = append(ext, ':')
				ext = append(ext, text[start:end]...)
				return
			}
			s.pieces = append(s.pieces, &piece{name: name, text: text[start:end], value: &openapi3.PathItem{}})
		})
		if !ok {
			return s, false
		}
		end, _ := valueEnd(text, at)
		cuts = append(cuts, cut{at, end, append(append([]byte{'{'}, ext...), '}')})
	}
	if at, ok := memberValue(text, top, "components"); ok && at < len(text) && text[at] == '{' {
		names := make([]string, 0, len(splitGroups)+1)
		for g := range splitGroups {
			names = append(names, g)
		}
		if !plainKeys(text, at, append(names, "examples")...) {
			return s, false
		}
		plain := true
		ok := eachMember(text, at, func(key []byte, start, end int) {
			group := unquote(key)
			newValue, split := splitGroups[group]
			if group == "examples" && text[start] == '{' {
				// The names stay, so references to them resolve; see
				// withoutExampleValues.
				var out []byte
				eachMember(text, start, func(name []byte, _, _ int) {
					if len(out) > 0 {
						out = append(out, ',')
					}
					out = append(append(out, name...), `:{"value":{}}`...)
				})
				cuts = append(cuts, cut{start, end, append(append([]byte{'{'}, out...), '}')})
				return
			}
			if !split || text[start] != '{' {
				return
			}
			if !plainKeys(text, start) {
				plain = false
				return
			}
			eachMember(text, start, func(name []byte, vs, ve int) {
				s.pieces = append(s.pieces, &piece{group: group, name: unquote(name), text: text[vs:ve], start: vs, value: newValue()})
			})
			cuts = append(cuts, cut{start, end, []byte("{}")})
		})
		if !ok || !plain {
			return s, false
		}
	}
	// The paths value comes before or after components': put the cuts in
	// order.
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j].start < cuts[j-1].start; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	out := make([]byte, 0, 1<<10)
	prev := 0
	for _, c := range cuts {
		out = append(out, text[prev:c.start]...)
		out = append(out, c.with...)
		prev = c.end
	}
	s.skeleton = append(out, text[prev:]...)
	return s, true
}

// plainKeys reports whether the keys of the object at text[i] are written
// without escapes and in valid UTF-8, are all different, and match none of names other than
// exactly (bytes.EqualFold is the folding encoding/json uses for field
// names).
func plainKeys(text []byte, i int, names ...string) bool {
	var k keys
	return eachMember(text, i, func(key []byte, _, _ int) { k.add(key, names) }) && k.plain()
}

// keys checks an object's keys one by one, as plainKeys does.
type keys struct {
	seen   [][]byte
	buf    [16][]byte
	unsure bool
}

// add checks key (quotes included) against the keys before it and names.
func (k *keys) add(key []byte, names []string) {
	if k.seen == nil {
		k.seen = k.buf[:0]
	}
	key = key[1 : len(key)-1]
	if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
		k.unsure = true // encoding/json decodes the key to other bytes
	}
	for _, s := range k.seen {
		if bytes.Equal(s, key) {
			k.unsure = true
		}
	}
	for _, n := range names {
		if len(n) == len(key) && string(key) != n && bytes.EqualFold(key, []byte(n)) {
			k.unsure = true
		}
	}
	k.seen = append(k.seen, key)
}

// plain reports whether every key added was plain.
func (k *keys) plain() bool { return !k.unsure }

// unquote returns a key written without escapes (plainKeys has checked)
// without its quotes.
func unquote(key []byte) string { return string(key[1 : len(key)-1]) }

// schemaChildren are the keywords of a schema whose values decodeSchemaRef
// decodes on their own: those that nest most of a document's schemas.
// Each is one schema ("items", an object "additionalProperties"), an object
// of schemas ("properties") or an array of schemas ("allOf", ...).
var schemaChildren = []string{"properties", "items", "allOf", "anyOf", "oneOf", "additionalProperties"}

// schemaKeys are the keys whose case-insensitive twins make a schema
// decoded whole: schemaChildren and $ref.
var schemaKeys = append(slices.Clone(schemaChildren), "$ref")

// decodeSchemaRef decodes a schema's text as json.Unmarshal into an
// openapi3.SchemaRef does, but decodes the schemas under schemaChildren
// each on their own (recursively) and the schema itself with those
// replaced by empty values, then puts them in place. kin-openapi's
// Schema.UnmarshalJSON decodes its text twice, the second time into a map
// for extensions, so a schema nested n deep is decoded n+1 times when the
// whole is decoded at once; here each once. A schema that has a $ref, or
// keys encoding/json would read into one field twice (see plainKeys), is
// decoded whole.
func decodeSchemaRef(text []byte) (*openapi3.SchemaRef, error) {
	ref := &openapi3.SchemaRef{}
	i := skipSpace(text, 0)
	if i >= len(text) || text[i] != '{' {
		return ref, ref.UnmarshalJSON(text)
	}
	type child struct {
		key        string
		start, end int
	}
	var children []child
	hasRef := false
	var ks keys
	ok := eachMember(text, i, func(key []byte, start, end int) {
		ks.add(key, schemaKeys)
		switch k := string(key[1 : len(key)-1]); k {
		case "$ref":
			hasRef = true
		case "properties", "items", "additionalProperties":
			if text[start] == '{' {
				children = append(children, child{k, start, end})
			}
		case "allOf", "anyOf", "oneOf":
			if text[start] == '[' {
				children = append(children, child{k, start, end})
			}
		}
	})
	if !ok || !ks.plain() || hasRef || len(children) == 0 {
		return ref, ref.UnmarshalJSON(text)
	}
	pruned := make([]byte, 0, len(text))
	prev := 0
	for _, c := range children {
		pruned = append(pruned, text[prev:c.start]...)
		if text[c.start] == '[' {
			pruned = append(pruned, "[]"...)
		} else {
			pruned = append(pruned, "{}"...)
		}
		prev = c.end
	}
	pruned = append(pruned, text[prev:]...)
	if err := ref.UnmarshalJSON(pruned); err != nil {
		return ref, err
	}
	s := ref.Value
	for _, c := range children {
		v := text[c.start:c.end]
		var err error
		switch c.key {
		case "properties":
			err = decodeSchemaMap(v, s.Properties)
		case "items":
			s.Items, err = decodeSchemaRef(v)
		case "additionalProperties":
			s.AdditionalProperties.Schema, err = decodeSchemaRef(v)
		case "allOf":
			s.AllOf, err = decodeSchemaList(v)
		case "anyOf":
			s.AnyOf, err = decodeSchemaList(v)
		case "oneOf":
			s.OneOf, err = decodeSchemaList(v)
		}
		if err != nil {
			return ref, err
		}
	}
	return ref, nil
}

// decodeSchemaMap decodes the object of schemas text into m, each member
// with decodeSchemaRef.
func decodeSchemaMap(text []byte, m openapi3.Schemas) error {
	var err error
	ok := eachMember(text, 0, func(key []byte, start, end int) {
		if err != nil {
			return
		}
		var name string
		if name, err = keyString(key); err != nil {
			return
		}
		m[name], err = decodeSchemaRef(text[start:end])
	})
	if err == nil && !ok {
		err = json.Unmarshal(text, &m) // the decoder says what is wrong
	}
	return err
}

// decodeSchemaList decodes the array of schemas text, each element with
// decodeSchemaRef.
func decodeSchemaList(text []byte) (openapi3.SchemaRefs, error) {
	list := openapi3.SchemaRefs{}
	i := skipSpace(text, 1)
	if i < len(text) && text[i] == ']' {
		return list, nil
	}
	for i < len(text) {
		end, ok := valueEnd(text, i)
		if !ok {
			break
		}
		ref, err := decodeSchemaRef(text[i:end])
		if err != nil {
			return nil, err
		}
		list = append(list, ref)
		i = skipSpace(text, end)
		if i < len(text) && text[i] == ']' {
			return list, nil
		}
		if i >= len(text) || text[i] != ',' {
			break
		}
		i = skipSpace(text, i+1)
	}
	return list, json.Unmarshal(text, &list) // the decoder says what is wrong
}

// keyString returns the string a JSON key (quotes included) holds.
func keyString(key []byte) (string, error) {
	if bytes.IndexByte(key, '\\') < 0 && utf8.Valid(key) {
		return string(key[1 : len(key)-1]), nil
	}
	var s string
	err := json.Unmarshal(key, &s)
	return s, err
}

// inlineSchema is a media type's inline schema inside a path item, a
// response or a request body, which decodeWithSchemas decodes on its own.
type inlineSchema struct {
	method    string // the operation's ("get", ...); "" outside a path item
	body      bool   // in the operation's request body, not a response
	response  string // the response's status key
	mediaType string
	start     int // the schema's text
	end       int
}

// operationKeys are the path item members that hold operations whose
// media types' schemas are decoded on their own.
var operationKeys = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// pathItemSchemas lists the inline schemas of the request bodies and
// responses of the path item at text[0], skipping any object whose keys
// are not plain (plainKeys).
func pathItemSchemas(text []byte) []inlineSchema {
	var found []inlineSchema
	if !plainKeys(text, 0, operationKeys...) {
		return nil
	}
	eachMember(text, 0, func(key []byte, start, _ int) {
		method := unquote(key)
		if !slices.Contains(operationKeys, method) || text[start] != '{' || !plainKeys(text, start, "requestBody", "responses") {
			return
		}
		eachMember(text, start, func(key []byte, start, _ int) {
			switch unquote(key) {
			case "requestBody":
				found = append(found, contentSchemas(text, start, inlineSchema{method: method, body: true})...)
			case "responses":
				if text[start] != '{' || !plainKeys(text, start) {
					return
				}
				eachMember(text, start, func(key []byte, start, _ int) {
					if status := unquote(key); !strings.HasPrefix(status, "x-") {
						found = append(found, contentSchemas(text, start, inlineSchema{method: method, response: status})...)
					}
				})
			}
		})
	})
	return found
}

// contentSchemas lists the inline schemas of the content of the response
// or request body at text[i] (none when it is a $ref), each with the
// method, body and response of where (whose other fields are ignored).
func contentSchemas(text []byte, i int, where inlineSchema) []inlineSchema {
	var found []inlineSchema
	if text[i] != '{' || !plainKeys(text, i, "content", "$ref") {
		return nil
	}
	content := -1
	eachMember(text, i, func(key []byte, start, _ int) {
		switch unquote(key) {
		case "$ref":
			content = -2
		case "content":
			if content == -1 && text[start] == '{' {
				content = start
			}
		}
	})
	if content < 0 || !plainKeys(text, content) {
		return nil
	}
	eachMember(text, content, func(key []byte, start, _ int) {
		if text[start] != '{' || !plainKeys(text, start, "schema") {
			return
		}
		eachMember(text, start, func(k []byte, vs, ve int) {
			if unquote(k) == "schema" && text[vs] == '{' {
				found = append(found, inlineSchema{where.method, where.body, where.response, unquote(key), vs, ve})
			}
		})
	})
	return found
}

// decodeWithSchemas decodes text into v (a *openapi3.PathItem,
// *openapi3.ResponseRef or *openapi3.RequestBodyRef) with each of schemas
// replaced by {} and decoded on its own with decodeSchemaRef: kin-openapi
// decodes every level between the two twice.
func decodeWithSchemas(text []byte, v any, schemas []inlineSchema) error {
	if len(schemas) == 0 {
		return json.Unmarshal(text, v)
	}
	pruned := make([]byte, 0, len(text))
	prev := 0
	for _, s := range schemas {
		pruned = append(append(pruned, text[prev:s.start]...), "{}"...)
		prev = s.end
	}
	pruned = append(pruned, text[prev:]...)
	if err := json.Unmarshal(pruned, v); err != nil {
		return err
	}
	for _, s := range schemas {
		mt := mediaTypeOf(v, s)
		if mt == nil {
			return fmt.Errorf("internal error: media type %s of %s %s not found after decoding", s.mediaType, s.method, s.response)
		}
		ref, err := decodeSchemaRef(text[s.start:s.end])
		if err != nil {
			return err
		}
		mt.Schema = ref
	}
	return nil
}

// mediaTypeOf finds s's media type in the decoded v, or nil.
func mediaTypeOf(v any, s inlineSchema) *openapi3.MediaType {
	var content openapi3.Content
	switch v := v.(type) {
	case *openapi3.PathItem:
		op := v.GetOperation(strings.ToUpper(s.method))
		switch {
		case op == nil:
		case s.body && op.RequestBody != nil && op.RequestBody.Value != nil:
			content = op.RequestBody.Value.Content
		case !s.body && op.Responses != nil:
			if r := op.Responses.Value(s.response); r != nil && r.Value != nil {
				content = r.Value.Content
			}
		}
	case *openapi3.ResponseRef:
		if v.Value != nil {
			content = v.Value.Content
		}
	case *openapi3.RequestBodyRef:
		if v.Value != nil {
			content = v.Value.Content
		}
	}
	return content[s.mediaType]
}
