package openapi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// encodeForm encodes a form request body (formType): each property of the
// object by its Encoding Object, as a query parameter of that style would
// be (OpenAPI 3.1 §4.8.15, "Encoding Object": style form by default,
// exploded), joined with &. A property that nests objects or arrays deeper
// than the styles define (deepObject defines one level of an object) is
// written with brackets all the way down, a[b][0][c]=v, as Stripe and
// Rails read forms. A null property is sent empty (a=), which is how
// Stripe unsets a value. It returns an error for a body that is not an
// object.
func encodeForm(body any, encoding map[string]*openapi3.Encoding) (string, error) {
	obj, ok := body.(map[string]any)
	if !ok {
		return "", fmt.Errorf("a form body (%s) must be an object, not %s", formType, jsonKind(body))
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		style, explode := "form", true
		if e := encoding[k]; e != nil {
			if e.Style != "" {
				style = e.Style
			}
			if e.Explode != nil {
				explode = *e.Explode
			} else {
				explode = style == "form"
			}
		}
		v := obj[k]
		if nested(v) || style == "deepObject" {
			parts = brackets(parts, queryEscape(k, false), v)
			continue
		}
		parts = serializeQuery(parts, k, style, explode, false, v)
	}
	return strings.Join(parts, "&"), nil
}

// nested reports whether v is an object, or an array that holds an object
// or an array: values the form and delimited styles cannot write.
func nested(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return true
	case []any:
		return slices.ContainsFunc(x, func(e any) bool {
			switch e.(type) {
			case map[string]any, []any:
				return true
			}
			return false
		})
	}
	return false
}

// brackets appends v under the escaped name prefix: an object's members
// as prefix[key], an array's elements as prefix[i], recursively, and a
// scalar as prefix=value. An empty object or array sends nothing.
func brackets(parts []string, prefix string, v any) []string {
	switch x := v.(type) {
	case map[string]any:
		pairs := make([]string, 0, len(x))
		for k := range x {
			pairs = append(pairs, k)
		}
		slices.Sort(pairs)
		for _, k := range pairs {
			parts = brackets(parts, prefix+"%5B"+queryEscape(k, false)+"%5D", x[k])
		}
		return parts
	case []any:
		for i, e := range x {
			parts = brackets(parts, prefix+"%5B"+strconv.Itoa(i)+"%5D", e)
		}
		return parts
	}
	return append(parts, prefix+"="+queryEscape(scalar(v), false))
}

// jsonKind names a decoded JSON value's type for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
