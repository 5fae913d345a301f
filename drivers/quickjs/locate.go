package quickjs

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/blank"
	"github.com/codemode-go/codemode/internal/wire"
)

// Where a program failed, when QuickJS raised the error.
//
// QuickJS records a source position only at a few steps of a function's
// code (a call, new, a binary operator, throw, an expression statement:
// emit_source_loc in quickjs.c; quickjs-ng 0.11 offers no switch for more),
// and a frame's position is the last one recorded before the failing step.
// An error a property read or a name lookup raises therefore names an
// earlier place, often an earlier line ("const n = c.name" reported at the
// console.log before it). The failing step lies after that recorded step,
// in the same function, and before the next recorded step: when the
// error's message names what failed and exactly one step there can fail
// so, the frame is moved to it; otherwise the frame keeps no position, and
// the client shows no excerpt rather than a wrong line.

// failureTarget is what an error QuickJS raises names: the site kinds that
// raise it and the name involved.
type failureTarget struct {
	kinds []blank.SiteKind
	name  string
	text  string // the message's fixed text, which a program that copies it would contain
}

var (
	readFailure  = regexp.MustCompile(`^cannot read property '([^']*)' of (?:null|undefined)$`)
	writeFailure = regexp.MustCompile(`^cannot set property '([^']*)' of (?:null|undefined)$`)
	nameFailure  = regexp.MustCompile(`^([A-Za-z_$][A-Za-z0-9_$]*) is not (defined|initialized)$`)
	frameLine    = regexp.MustCompile(`^(\s*at .*\()(.+):(\d+):(\d+)\)$`)
)

// targetOf returns what e's message names, for the messages of
// quickjs-ng's JS_ThrowTypeErrorAtom and JS_ThrowReferenceErrorNotDefined
// (and Uninitialized).
func targetOf(e *wire.Error) (failureTarget, bool) {
	switch {
	case e.Name == "TypeError" && readFailure.MatchString(e.Message):
		return failureTarget{[]blank.SiteKind{blank.SiteRead}, readFailure.FindStringSubmatch(e.Message)[1], "cannot read property"}, true
	case e.Name == "TypeError" && writeFailure.MatchString(e.Message):
		return failureTarget{[]blank.SiteKind{blank.SiteWrite}, writeFailure.FindStringSubmatch(e.Message)[1], "cannot set property"}, true
	case e.Name == "ReferenceError" && nameFailure.MatchString(e.Message):
		m := nameFailure.FindStringSubmatch(e.Message)
		return failureTarget{[]blank.SiteKind{blank.SiteName}, m[1], "is not " + m[2]}, true
	}
	return failureTarget{}, false
}

// locateFailure corrects the first frame of a failure's stack when QuickJS
// raised the error in the program (source, compiled as filename): the
// frame names the failing step, or no position when that cannot be told.
// Any other stack is returned as it is.
func locateFailure(source, filename string, e *wire.Error) (stack string) {
	// It runs in the sandbox's process, where a panic would end every
	// execution the process holds: a fault here keeps the engine's stack.
	defer func() {
		if recover() != nil {
			stack = e.Stack
		}
	}()
	target, ok := targetOf(e)
	if !ok || filename == "" || strings.Contains(source, target.text) {
		return e.Stack // a program that writes the message may throw it itself
	}
	first, rest, _ := strings.Cut(e.Stack, "\n")
	m := frameLine.FindStringSubmatch(first)
	if m == nil || m[2] != filename {
		return e.Stack // raised by a native function or the runner
	}
	line, _ := strconv.Atoi(m[3])
	col, _ := strconv.Atoi(m[4])
	// A program Sites refuses (blank.Types hands some to esbuild: a
	// destructuring assignment such as [o.x] = v) has no sites to place
	// the failure by; QuickJS's position names an earlier step, often an
	// earlier line, so the frame keeps none.
	sites, ok := blank.Sites(source)
	lines := newLineIndex(source)
	var at blank.Site
	if ok {
		at, ok = failingSite(sites, lines, line, col, target)
	}
	pos := ""
	if ok {
		l, c := lines.position(source, at.Offset)
		pos = ":" + strconv.Itoa(l) + ":" + strconv.Itoa(c)
		if strings.Contains(source[min(lines.offset(line, col), at.Offset):at.Offset], "Error(") {
			return e.Stack // an error the program made, with an engine error's message
		}
	}
	fixed := m[1] + filename + pos + ")"
	if rest != "" || strings.HasSuffix(e.Stack, "\n") {
		fixed += "\n" + rest
	}
	return fixed
}

// recorded are the site kinds QuickJS records a position at.
func recorded(k blank.SiteKind) bool {
	return k >= blank.SiteFunction && k <= blank.SiteThrow
}

// failingSite returns the one site of target's kinds and name that can
// have failed after the recorded position line:col (QuickJS's), and false
// when none or more than one can.
//
// Each candidate recorded step is followed through its own function's
// sites only (bySite), so that the work stays linear in the sites: a line
// of many functions without recorded steps, each matching column 1, once
// made every one of them walk all the sites after it.
func failingSite(sites []blank.Site, lines lineIndex, line, col int, target failureTarget) (blank.Site, bool) {
	funcs := map[int][]int{} // a function's sites, by index in sites
	marked := map[int]bool{} // functions with a recorded step
	for i, s := range sites {
		funcs[s.Func] = append(funcs[s.Func], i)
		if recorded(s.Kind) && s.Kind != blank.SiteFunction {
			marked[s.Func] = true
		}
	}
	var found []blank.Site
	matched := false
	for i, s := range sites {
		if !recorded(s.Kind) || lines.line(s.Offset) != line {
			continue
		}
		// A function without recorded steps has no position table, and
		// QuickJS gives its line with column 1 (find_line_num).
		bare := s.Kind == blank.SiteFunction && !marked[s.Func]
		if !(bare && col == 1) && lines.column(s.Mark) != col {
			continue
		}
		matched = true
		own := funcs[s.Func]
		for _, j := range own[sort.SearchInts(own, i+1):] {
			c := sites[j]
			if recorded(c.Kind) {
				break
			}
			if matches(c, target) && !containsOffset(found, c.Offset) {
				found = append(found, c)
				if len(found) > 1 {
					return blank.Site{}, false // more than one can have failed
				}
			}
		}
	}
	if !matched || len(found) != 1 {
		return blank.Site{}, false
	}
	return found[0], true
}

func matches(s blank.Site, t failureTarget) bool {
	for _, k := range t.kinds {
		if s.Kind == k && (s.Name == t.name || s.Name == "" && k != blank.SiteName) {
			return true
		}
	}
	return false
}

func containsOffset(sites []blank.Site, off int) bool {
	for _, s := range sites {
		if s.Offset == off {
			return true
		}
	}
	return false
}

// lineIndex holds where each line's terminator is, as QuickJS counts
// lines: "\r\n", "\r" and "\n" each end one.
type lineIndex struct {
	ends []int // offsets of the last byte of each terminator
}

func newLineIndex(src string) lineIndex {
	var x lineIndex
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			x.ends = append(x.ends, i)
		case '\n':
			x.ends = append(x.ends, i)
		}
	}
	return x
}

// before is how many terminators end before off.
func (x lineIndex) before(off int) int {
	lo, hi := 0, len(x.ends)
	for lo < hi {
		mid := (lo + hi) / 2
		if x.ends[mid] < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// line is the 1-based line of off.
func (x lineIndex) line(off int) int { return x.before(off) + 1 }

// column is the column QuickJS reports for a token whose mark is at off:
// bytes from the line's terminator (from the source's start on the first
// line, one fewer), at least 1.
func (x lineIndex) column(mark int) int {
	eol := 0
	if n := x.before(mark); n > 0 {
		eol = x.ends[n-1]
	}
	return max(1, mark-eol)
}

// offset is the byte offset of QuickJS's line:col.
func (x lineIndex) offset(line, col int) int {
	if line <= 1 || line-2 >= len(x.ends) {
		return max(0, col)
	}
	return x.ends[line-2] + col
}

// position is off's 1-based line and column, the column in UTF-16 code
// units as the client's positions are.
func (x lineIndex) position(src string, off int) (int, int) {
	n := x.before(off)
	start := 0
	if n > 0 {
		start = x.ends[n-1] + 1
	}
	col := 1
	for _, r := range src[start:off] {
		if r == utf8.RuneError {
			col++
			continue
		}
		col += len(utf16.Encode([]rune{r}))
	}
	return n + 1, col
}
