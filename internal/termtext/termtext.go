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
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Escape escapes the control characters of s so that it cannot repaint
// the terminal of the person reading (terminal escapes, carriage returns,
// bidirectional overrides) or hide text from them (IsControl): each
// becomes \xNN, \uNNNN or, past the BMP, \UNNNNNNNN; newlines and tabs
// stay, and invalid UTF-8 becomes U+FFFD.
func Escape(s string) string {
	return escapeControls(s, func(b *strings.Builder, r rune) {
		switch {
		case r < 0x100:
			fmt.Fprintf(b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	})
}

// escapeControls is s, invalid UTF-8 as U+FFFD, with each character
// IsControl reports written by escape instead.
func escapeControls(s string, escape func(b *strings.Builder, r rune)) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if IsControl(r) {
			escape(&b, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// IsControl reports whether r is a character other than a newline or a
// tab that can repaint a terminal, reorder what a reader sees, or hide a
// difference from them ("safe\u200bvalue" reads as "safevalue"):
//   - C0, DEL and C1 controls;
//   - every format character (Unicode category Cf): the bidirectional
//     marks, embeddings, overrides and isolates (U+061C, U+200E–U+200F,
//     U+202A–U+202E, U+2066–U+2069), zero-width spaces and joiners
//     (U+200B–U+200D), the word joiner and invisible operators
//     (U+2060–U+2064), the deprecated format characters (U+206A–U+206F),
//     the byte order mark (U+FEFF), the soft hyphen (U+00AD), the
//     interlinear annotation marks (U+FFF9–U+FFFB, which hide the text
//     between them), and the tag characters (U+E0001, U+E0020–U+E007F: an
//     invisible copy of ASCII);
//   - the line and paragraph separators (U+2028, U+2029: a line break to
//     JavaScript, none to most terminals);
//   - the fillers that print as nothing (U+115F, U+1160, U+3164, U+FFA0);
//   - the variation selectors (U+180B–U+180F, U+FE00–U+FE0F,
//     U+E0100–U+E01EF) and the combining grapheme joiner (U+034F), which
//     print as nothing after most characters.
//
// Look-alike letters (Cyrillic "а" for Latin "a") are not controls: they
// show, and telling them apart is the reader's.
func IsControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r < 0xad: // the common case: printable ASCII and Latin-1
		return false
	case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
		return true
	case r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0, r == 0x034f:
		return true
	case r >= 0x180b && r <= 0x180f, r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
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
// IsControl) are escaped as \uNNNN (a UTF-16 pair of them past the BMP);
// "<", ">" and "&" stay as they are.
func Quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return EscapeJSON(strings.TrimSuffix(buf.String(), "\n"))
}

// EscapeJSON escapes, in JSON text, the characters that hide or reorder
// text (IsControl) as \uNNNN (a UTF-16 pair of them past the BMP), for a
// person to read it: JSON allows them raw only inside strings, where the
// escape decodes to the same character, so JSON text stays JSON of the
// same value (compact JSON, which holds no newline or tab outside its
// strings, stays compact). Invalid UTF-8 becomes U+FFFD.
func EscapeJSON(text string) string {
	return escapeControls(text, func(b *strings.Builder, r rune) {
		if r <= 0xffff {
			fmt.Fprintf(b, `\u%04x`, r)
			return
		}
		// JSON escapes a character past the BMP as its UTF-16 pair.
		hi, lo := utf16.EncodeRune(r)
		fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
	})
}

// Lines splits program text into the lines JavaScript reads, each
// escaped (Escape): a line ends at "\r\n", "\n", "\r", U+2028 or U+2029
// (ECMA-262 LineTerminatorSequence), so that a statement after a carriage
// return or a line separator inside what looks like a comment shows on a
// line of its own, as the engine runs it. One trailing line end makes no
// empty last line.
func Lines(code string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(code); {
		r, size := utf8.DecodeRuneInString(code[i:])
		end := i + size
		switch {
		case r == '\r' && strings.HasPrefix(code[end:], "\n"):
			end++
		case r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029:
		default:
			i = end
			continue
		}
		lines = append(lines, Escape(code[start:i]))
		start, i = end, end
	}
	if start < len(code) || len(lines) == 0 {
		lines = append(lines, Escape(code[start:]))
	}
	return lines
}
