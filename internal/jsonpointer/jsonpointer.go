// Package jsonpointer escapes and unescapes the reference tokens of JSON
// Pointers (RFC 6901, section 3 and 4), for the packages that name the
// place of a schema fault or a validation failure.
package jsonpointer

import "strings"

var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// Escape returns token with "~" written "~0" and "/" written "~1".
func Escape(token string) string { return escaper.Replace(token) }

// Unescape reverses Escape: "~1" becomes "/", then "~0" becomes "~", in
// that order (RFC 6901, section 4), so "~01" is "~1".
func Unescape(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Append returns ptr followed by "/" and the escaped token.
func Append(ptr, token string) string { return ptr + "/" + Escape(token) }
