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
)

// Lines renders the line before, the line itself and the line after
// (1-based line, as far as lines has them), each as "> n | text" for the
// line and "  n | text" for the others, with a caret under column col
// (1-based, in bytes of the line) when col is at least 1. Every rendered
// line ends in "\n". It returns "" when line is outside lines.
func Lines(lines []string, line, col int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	width := len(strconv.Itoa(min(line+1, len(lines))))
	var b strings.Builder
	for n := max(line-1, 1); n <= min(line+1, len(lines)); n++ {
		mark := " "
		if n == line {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s %*d | %s\n", mark, width, n, lines[n-1])
		if n == line && col >= 1 {
			fmt.Fprintf(&b, "  %*s | %s^\n", width, "", strings.Repeat(" ", col-1))
		}
	}
	return b.String()
}
