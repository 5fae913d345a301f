// Package termtext makes text from programs and upstream servers safe to
// print on a terminal: control characters escaped, terminal escape
// sequences removed.
package termtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Escape escapes the control characters of s so that it cannot repaint
// the terminal of the person reading (terminal escapes, carriage returns,
// bidirectional overrides): each becomes \xNN or \uNNNN; newlines and tabs
// stay, and invalid UTF-8 becomes U+FFFD.
func Escape(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !IsControl(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// IsControl reports whether r is a control character other than a newline
// or a tab: C0, DEL, C1, the bidirectional marks, overrides and isolates
// that reorder what a terminal shows (U+200E–U+200F, U+202A–U+202E,
// U+2066–U+2069), and the invisible characters that hide a difference
// from a reader ("safe\u200bvalue" reads as "safevalue"): zero-width
// spaces and joiners (U+200B–U+200D), the word joiner and invisible
// operators (U+2060–U+2064), the byte order mark (U+FEFF) and the soft
// hyphen (U+00AD).
func IsControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e || r == 0x200f:
		return true
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r == 0xad:
		return true
	}
	return false
}

// sequence matches a terminal escape sequence as ECMA-48 defines them
// (https://ecma-international.org/publications-and-standards/standards/ecma-48/):
// CSI (ESC [, parameters, a final byte: colours, cursor moves), OSC (ESC ],
// ended by BEL or ESC \: window titles, links) and the two-byte escapes.
var sequence = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// Clean removes the terminal escape sequences of s (the colours a server
// writes to its stderr) and escapes the control characters left (Escape).
func Clean(s string) string {
	return Escape(sequence.ReplaceAllString(s, ""))
}

// Quote returns s as a JSON string literal, which is also a valid
// JavaScript and TypeScript string literal and decodes to s (invalid UTF-8
// as U+FFFD). Beyond what JSON escapes (quotes, backslashes, C0 controls),
// the characters JSON leaves raw but that hide or reorder text (DEL, C1
// controls, bidirectional overrides and isolates, invisible characters:
// IsControl) are escaped as \uNNNN; "<", ">" and "&" stay as they are.
func Quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	q := strings.TrimSuffix(buf.String(), "\n")
	if !strings.ContainsFunc(q, IsControl) {
		return q
	}
	var b strings.Builder
	for _, r := range q {
		if IsControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r) // every such character is in the BMP
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
