package contract

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/codemode-go/codemode/internal/jsonpointer"
)

// SchemaError is a JSON Schema that does not compile: each fault found,
// at the JSON pointer of the value at fault within the schema's own text.
// NewSchema returns it (NewRawTool and NewTool wrap it, and a foreign
// tool's Degraded joins it), so that a caller holding the schema inside a
// document of its own (a tools file, an MCP server's tools/list) can name
// the fault's place in that document:
//
//	var se *contract.SchemaError
//	if errors.As(err, &se) {
//		for _, f := range se.Faults { fmt.Println("/tools/0/inputSchema"+f.Pointer, f.Message) }
//	}
//
// # Notes
//   - A fault against the meta-schema is said once, at the value at fault
//     ("/properties/city/type: value must be one of 'array', …"), not as
//     the validator's tree of failed allOf and anyOf around it: of an
//     anyOf's alternatives, those that want another JSON type are left
//     out.
//   - A $ref (or $schema) that cannot be followed is reported at the
//     $ref, quoting it as written.
//   - No message holds the address the schema is compiled under, which no
//     user wrote.
type SchemaError struct {
	Faults []SchemaFault
}

// SchemaFault is one fault of a schema that does not compile.
type SchemaFault struct {
	// Pointer is the JSON pointer (RFC 6901) of the value at fault within
	// the schema's text: "" for the schema itself.
	Pointer string
	Message string
}

// Error lists the faults, at most maxReportLines of them: "contract:
// invalid JSON Schema: /properties/city/type: value must be one of …; …",
// the schema itself being "/".
func (e *SchemaError) Error() string {
	vs := make([]violation, len(e.Faults))
	for i, f := range e.Faults {
		vs[i].line = pointerOrRoot(f.Pointer) + ": " + f.Message
	}
	return "contract: invalid JSON Schema: " + strings.Join(reportLines(vs), "; ")
}

// compileError is the error of compiling doc, which the validator refused
// with err: a *SchemaError whose faults name pointers within doc.
func compileError(doc any, err error) error {
	var (
		meta     *jsonschema.SchemaValidationError
		pointer  *jsonschema.JSONPointerNotFoundError
		anchor   *jsonschema.AnchorNotFoundError
		load     *jsonschema.LoadURLError
		dup      *jsonschema.DuplicateIDError
		dupName  *jsonschema.DuplicateAnchorError
		regex    *jsonschema.InvalidRegexError
		faults   []SchemaFault
		metaFail *jsonschema.ValidationError
	)
	switch {
	case errors.As(err, &meta) && errors.As(meta.Err, &metaFail):
		faults = metaFaults(metaFail)
	case errors.As(err, &pointer):
		faults = []SchemaFault{refFault(doc, pointer.URL, " refers to nothing in the schema")}
	case errors.As(err, &anchor):
		faults = []SchemaFault{refFault(doc, anchor.Reference, " refers to nothing in the schema")}
	case errors.As(err, &load):
		faults = []SchemaFault{refFault(doc, load.URL, " is another document: "+scrubAddresses(load.Err.Error()))}
	case errors.As(err, &dup):
		faults = []SchemaFault{duplicateFault("$id", userAddress(dup.ID), dup.Ptr1, dup.Ptr2)}
	case errors.As(err, &dupName):
		faults = []SchemaFault{duplicateFault("$anchor", dupName.Anchor, dupName.Ptr1, dupName.Ptr2)}
	case errors.As(err, &regex):
		faults = []SchemaFault{{Pointer: fragmentPointer(regex.URL), Message: fmt.Sprintf("%q is not a valid regular expression: %v", regex.Regex, regex.Err)}}
	default:
		faults = []SchemaFault{{Message: scrubAddresses(err.Error())}}
	}
	return &SchemaError{Faults: faults}
}

// duplicateFault is the fault of two schemas, at pointers p1 and p2,
// whose keyword (an identifier) has the same value. The compiler finds
// them in map order: the fault is at the later pointer, whichever it met
// first.
func duplicateFault(keyword, value, p1, p2 string) SchemaFault {
	if compareToken(p1, p2) > 0 {
		p1, p2 = p2, p1
	}
	return SchemaFault{Pointer: p2 + "/" + keyword, Message: fmt.Sprintf("the %s %q is also the %s at %s", keyword, value, keyword, pointerOrRoot(p1))}
}

// metaFaults lists the faults of a schema that fails its meta-schema
// (ve), depth first: the failures themselves, without the allOf, $ref and
// group failures that hold them, and of an anyOf's or oneOf's
// alternatives only those that take the value's JSON type.
func metaFaults(ve *jsonschema.ValidationError) []SchemaFault {
	var faults []SchemaFault
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		causes := sortedCauses(e)
		msg := e.ErrorKind.LocalizedString(violationPrinter)
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
			if len(causes) > 0 {
				for _, c := range causes {
					walk(c)
				}
				return
			}
		case *kind.AnyOf, *kind.OneOf:
			fit := slices.DeleteFunc(slices.Clone(causes), typeMismatch)
			if len(fit) > 1 {
				// Of alternatives that take the value's type, one that
				// went into it (an array's item) took its shape too.
				depth := len(e.InstanceLocation)
				if inside := slices.DeleteFunc(slices.Clone(fit), func(c *jsonschema.ValidationError) bool { return !reachesBelow(c, depth) }); len(inside) == 1 {
					fit = inside
				}
			}
			switch {
			case len(fit) == 1:
				walk(fit[0])
				return
			case len(fit) == 0 && len(causes) > 0:
				msg = mismatchMessage(causes)
			case len(fit) > 1:
				var alts []string
				for _, c := range fit {
					for _, f := range metaFaults(c) {
						alts = append(alts, pointerOrRoot(f.Pointer)+": "+f.Message)
					}
				}
				msg = "none of these alternatives holds: " + strings.Join(alts, "; or ")
			}
		}
		f := SchemaFault{Pointer: instancePointer(e), Message: msg}
		if !slices.Contains(faults, f) {
			faults = append(faults, f)
		}
	}
	walk(ve)
	return faults
}

// reachesBelow reports whether e or a failure within it lies deeper than
// depth in the value.
func reachesBelow(e *jsonschema.ValidationError, depth int) bool {
	return len(e.InstanceLocation) > depth || slices.ContainsFunc(e.Causes, func(c *jsonschema.ValidationError) bool { return reachesBelow(c, depth) })
}

// typeMismatch reports whether e says only that the value is of another
// JSON type than its schema takes.
func typeMismatch(e *jsonschema.ValidationError) bool {
	switch e.ErrorKind.(type) {
	case *kind.Type:
		return true
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		return len(e.Causes) > 0 && !slices.ContainsFunc(e.Causes, func(c *jsonschema.ValidationError) bool { return !typeMismatch(c) })
	}
	return false
}

// mismatchMessage says what JSON types alternatives (all type
// mismatches) want: "got number, want string or array".
func mismatchMessage(alternatives []*jsonschema.ValidationError) string {
	var got string
	var want []string
	var collect func(e *jsonschema.ValidationError)
	collect = func(e *jsonschema.ValidationError) {
		if t, ok := e.ErrorKind.(*kind.Type); ok {
			got = t.Got
			for _, w := range t.Want {
				if !slices.Contains(want, w) {
					want = append(want, w)
				}
			}
		}
		for _, c := range e.Causes {
			collect(c)
		}
	}
	for _, a := range alternatives {
		collect(a)
	}
	return fmt.Sprintf("got %s, want %s", got, strings.Join(want, " or "))
}

// instancePointer is e's instance location as a JSON pointer, "" for the
// root.
func instancePointer(e *jsonschema.ValidationError) string {
	p := ""
	for _, tok := range e.InstanceLocation {
		p = jsonpointer.Append(p, tok)
	}
	return p
}

// refKeywords are the keywords whose value is a reference the compiler
// follows.
var refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef", "$schema"}

// refFault is the fault of the reference that the compiler resolved to
// url and could not follow: at the first reference in doc (in sorted key
// order) that resolves to it, quoted as written and followed by what is
// wrong; at the schema itself, quoting url as the user would have written
// it, when none is found.
func refFault(doc any, url, wrong string) SchemaFault {
	if at, ref, ok := findRef(doc, "", url); ok {
		return SchemaFault{Pointer: at, Message: strconv.Quote(ref) + wrong}
	}
	return SchemaFault{Message: strconv.Quote(userAddress(url)) + wrong}
}

// findRef finds, within v at pointer at, a reference keyword whose value
// resolves to url: the pointer of the keyword and its value. A reference
// is taken to resolve to url when url ends with it (a relative
// reference, resolved against a base) at a boundary, its fragment left
// out when url has none (a document that could not be loaded).
func findRef(v any, at, url string) (string, string, bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range refKeywords {
			if ref, ok := v[k].(string); ok && resolvesTo(ref, url) {
				return jsonpointer.Append(at, k), ref, true
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p, ref, ok := findRef(v[k], jsonpointer.Append(at, k), url); ok {
				return p, ref, true
			}
		}
	case []any:
		for i, item := range v {
			if p, ref, ok := findRef(item, jsonpointer.Append(at, strconv.Itoa(i)), url); ok {
				return p, ref, true
			}
		}
	}
	return "", "", false
}

// resolvesTo reports whether the reference ref may be the one the
// compiler resolved to url (see findRef).
func resolvesTo(ref, url string) bool {
	if !strings.Contains(url, "#") {
		ref, _, _ = strings.Cut(ref, "#")
	}
	switch {
	case ref == "":
		return false
	case ref == url, strings.HasPrefix(ref, "#") && strings.HasSuffix(url, ref):
		return true
	}
	return strings.HasSuffix(url, "/"+ref)
}

// userAddress is url, an address the compiler resolved, as the schema's
// author would know it: relative to the address the schema is compiled
// under (schemaURL), which no user wrote; "#" for the schema itself.
func userAddress(url string) string {
	u := strings.TrimPrefix(url, schemaURL)
	u = strings.TrimPrefix(u, "codemode:///")
	if u == "" {
		return "#"
	}
	return u
}

// fragmentPointer is the JSON pointer in the fragment of url, a location
// within the schema ("codemode:///schema.json#/properties/a/pattern").
func fragmentPointer(url string) string {
	_, frag, _ := strings.Cut(url, "#")
	return frag
}

// compiledAddress matches a quoted address under the one the schema is
// compiled under, as the compiler's messages quote them.
var compiledAddress = regexp.MustCompile(`"codemode:///[^"]*"`)

// scrubAddresses is a compiler message with each quoted address under
// the one the schema is compiled under said as the user knows it
// (userAddress).
func scrubAddresses(msg string) string {
	return compiledAddress.ReplaceAllStringFunc(msg, func(q string) string {
		return strconv.Quote(userAddress(q[1 : len(q)-1]))
	})
}
