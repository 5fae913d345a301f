package openapi

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Parameter serialisation follows OpenAPI 3.1 §4.8.12.4 ("Style Values")
// and RFC 6570: path parameters default to style simple, query parameters
// to form with explode, headers to simple. Values come from JSON: strings,
// numbers, booleans, null, arrays and objects (object keys sorted, so that
// requests are reproducible).

// scalar formats a JSON scalar; arrays and objects nested in a parameter
// value are JSON-encoded.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// sortedPairs returns an object's keys and values, keys sorted.
func sortedPairs(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		out = append(out, k, scalar(m[k]))
	}
	return out
}

// queryEscape percent-encodes a query name or value (space as %20, as RFC
// 6570 does), keeping reserved characters when allowReserved is set.
func queryEscape(s string, allowReserved bool) string {
	e := strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
	if allowReserved {
		for _, r := range ":/?#[]@!$'()*,;=" {
			e = strings.ReplaceAll(e, url.QueryEscape(string(r)), string(r))
		}
		// & and + stay encoded in both modes: they would split or change
		// the query.
		e = strings.ReplaceAll(e, "&", "%26")
	}
	return e
}

// serializePath returns the text that replaces {name} in the path, each
// value percent-encoded ("/" as %2F). It may make a dot segment ("." alone,
// or ".." with a label prefix): expandPath refuses those.
func serializePath(name, style string, explode bool, v any) string {
	sep, prefix := ",", ""
	switch style {
	case "label":
		prefix = "."
		if explode {
			sep = "."
		}
	case "matrix":
		prefix = ";" + url.PathEscape(name) + "="
		if explode {
			sep = ";" + url.PathEscape(name) + "="
		}
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = url.PathEscape(scalar(e))
		}
		return prefix + strings.Join(parts, sep)
	case map[string]any:
		pairs := sortedPairs(x)
		var parts []string
		for i := 0; i < len(pairs); i += 2 {
			k, val := url.PathEscape(pairs[i]), url.PathEscape(pairs[i+1])
			if explode {
				parts = append(parts, k+"="+val)
			} else {
				parts = append(parts, k, val)
			}
		}
		if style == "matrix" && explode {
			// ;k=v;k2=v2: the names are the object's keys.
			return ";" + strings.Join(parts, ";")
		}
		if style == "label" && explode {
			return "." + strings.Join(parts, ".")
		}
		return prefix + strings.Join(parts, ",")
	}
	if style == "matrix" && v == nil {
		return ";" + url.PathEscape(name)
	}
	return prefix + url.PathEscape(scalar(v))
}

// serializeQuery appends name's value to a query string's parts.
func serializeQuery(parts []string, name, style string, explode, allowReserved bool, v any) []string {
	n := queryEscape(name, false)
	esc := func(s string) string { return queryEscape(s, allowReserved) }
	switch x := v.(type) {
	case []any:
		if explode && (style == "" || style == "form") {
			for _, e := range x {
				parts = append(parts, n+"="+esc(scalar(e)))
			}
			return parts
		}
		sep := ","
		switch style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "|"
		}
		vals := make([]string, len(x))
		for i, e := range x {
			vals[i] = esc(scalar(e))
		}
		return append(parts, n+"="+strings.Join(vals, sep))
	case map[string]any:
		pairs := sortedPairs(x)
		switch {
		case style == "deepObject":
			for i := 0; i < len(pairs); i += 2 {
				parts = append(parts, n+"%5B"+queryEscape(pairs[i], false)+"%5D="+esc(pairs[i+1]))
			}
			return parts
		case explode:
			for i := 0; i < len(pairs); i += 2 {
				parts = append(parts, queryEscape(pairs[i], false)+"="+esc(pairs[i+1]))
			}
			return parts
		}
		vals := make([]string, len(pairs))
		for i, p := range pairs {
			vals[i] = esc(p)
		}
		return append(parts, n+"="+strings.Join(vals, ","))
	}
	return append(parts, n+"="+esc(scalar(v)))
}

// serializeHeader is a header parameter's value (style simple).
func serializeHeader(explode bool, v any) string {
	switch x := v.(type) {
	case []any:
		vals := make([]string, len(x))
		for i, e := range x {
			vals[i] = scalar(e)
		}
		return strings.Join(vals, ",")
	case map[string]any:
		pairs := sortedPairs(x)
		var vals []string
		for i := 0; i < len(pairs); i += 2 {
			if explode {
				vals = append(vals, pairs[i]+"="+pairs[i+1])
			} else {
				vals = append(vals, pairs[i], pairs[i+1])
			}
		}
		return strings.Join(vals, ",")
	}
	return scalar(v)
}

// maxDecodings is how many times hasDotSegment percent-decodes a path: a
// path that still decodes further after that is taken to hide one.
const maxDecodings = 8

// hasDotSegment reports whether an escaped path, or one of its segments,
// is a dot segment ("." or "..", RFC 3986 §3.3) once percent-decoded any
// number of times, as a server or proxy chain may decode before it
// resolves dot segments (RFC 3986 §5.2.4), with "\" taken as "/" (as
// some servers do) and a segment read up to its first ";" (servlet
// containers such as Tomcat drop a segment's path parameters before they
// resolve, so "..;x" is ".."), "?" or "#" (a proxy or rewrite that decodes
// and parses the path again starts the query or fragment there, so
// "..%3Fx" is "..") or NUL (where the path reaches C as a string).
func hasDotSegment(escaped string) bool {
	s := escaped
	for i := 0; ; i++ {
		if dotSegmentIn(s) {
			return true
		}
		d := lenientUnescape(s)
		if d == s {
			return false
		}
		if i == maxDecodings {
			return true
		}
		s = d
	}
}

// dotSegmentIn reports whether s, split at "/" and "\", has a "." or
// ".." segment, reading each segment up to its first ";", "?", "#" or NUL.
func dotSegmentIn(s string) bool {
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if end := strings.IndexAny(seg, ";?#\x00"); end >= 0 {
			seg = seg[:end]
		}
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// lenientUnescape decodes every well-formed %XX of s and keeps any other
// "%" as it is, as lenient servers do.
func lenientUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
