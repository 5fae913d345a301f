// Package excerpt renders the lines of source around a position, the way
// the checker's reports and the runtime's error messages show where a
// fault is:
//
//	  1 | const a = 1;
//	> 2 | codemode.echo({ value: 42 });
//	    |               ^
//	  3 | return a;
package excerpt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Lines renders the line before, the line itself and the line after
// (1-based line, as far as lines has them), each as "> n | text" for the
// line and "  n | text" for the others, with a caret under column col
// (1-based, in bytes of the line) when col is at least 1 and at most one
// past the line's end (a column beyond that, which a program can write
// into its own stack, gets no caret). A line longer than maxShown bytes
// shows maxShown of them around the column, "…" where it was cut. Every
// rendered line ends in "\n". It returns "" when line is outside lines.
func Lines(lines []string, line, col int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	width := len(strconv.Itoa(min(line+1, len(lines))))
	var b strings.Builder
	for n := max(line-1, 1); n <= min(line+1, len(lines)); n++ {
		mark, at := " ", 0
		if n == line {
			mark, at = ">", col
		}
		text, caret := shown(lines[n-1], at)
		fmt.Fprintf(&b, "%s %*d | %s\n", mark, width, n, text)
		if caret >= 1 {
			fmt.Fprintf(&b, "  %*s | %s^\n", width, "", strings.Repeat(" ", caret-1))
		}
	}
	return b.String()
}

// maxShown is the most bytes of one line an excerpt shows.
const maxShown = 240

// shown returns the part of line an excerpt prints and the caret's column
// in it: the whole line when it is short, else maxShown bytes around col
// (cut at character boundaries, "…" where cut); caret is 0 when col is
// not in the line (less than 1, or more than one past its end).
func shown(line string, col int) (text string, caret int) {
	if col < 1 || col > len(line)+1 {
		col = 0
	}
	if len(line) <= maxShown {
		return line, col
	}
	start := 0
	if col > maxShown/2 {
		start = min(col-1-maxShown/2, len(line)-maxShown)
	}
	end := start + maxShown
	for start > 0 && !utf8.RuneStart(line[start]) {
		start++
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	text = line[start:end]
	if col > 0 {
		caret = col - start
	}
	if start > 0 {
		text = "…" + text
		if caret > 0 {
			caret++
		}
	}
	if end < len(line) {
		text += "…"
	}
	return text, caret
}
