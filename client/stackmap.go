package client

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/wire"
)

// The stacks a program reads (wire 1.8, docs/runner-protocol.md "Program
// positions").
//
// The engine places a program's frames in the module it ran: the wrapper
// RunCode puts around model-written code takes a line above it and
// inserts a few words, and esbuild reprints what blank does not erase. The
// client maps an outcome's positions back (mapText), but a program that
// catches an error and prints or returns its stack read the engine's: a
// line below the code's, and the wrapper's and the runner's frames. The
// execute message now carries where the module's places lie in the
// program, made here from the same mapping mapText uses, and the runner
// writes the stacks the program reads with it; the host's own reports keep
// the engine's positions, which it maps as before.

// stackPositions returns the positions of the erased program's module, or
// nil when they are the source's own (a module whose types were blanked).
// They are made once per erased program.
func (e *erased) stackPositions() *wire.Positions {
	e.posOnce.Do(func() { e.pos = e.makePositions() })
	return e.pos
}

// makePositions is stackPositions, uncached.
func (e *erased) makePositions() *wire.Positions {
	switch {
	case e.blanked && e.back == nil:
		return nil
	case e.blanked:
		var b pointBuilder
		for _, s := range e.back.Segments() {
			b.push(s.ModLine, s.ModCol, placeOf(s))
		}
		return &wire.Positions{Points: b.points, DefaultName: codeform.DefaultName}
	}
	p := &wire.Positions{Points: e.walkPositions()}
	if e.back != nil {
		p.DefaultName = codeform.DefaultName
	}
	return p
}

// placeOf is where a codeform segment starts in the program.
func placeOf(s codeform.Segment) place {
	switch s.Kind {
	case codeform.SegmentShift:
		return place{kind: wire.PointShift, line: s.Line, col: s.Col}
	case codeform.SegmentSame:
		return place{kind: wire.PointSame, line: s.Line, col: s.Col}
	}
	return place{kind: wire.PointOutside}
}

// walkPositions maps the places of esbuild's JavaScript as mapText maps a
// frame there (through the source map, then back to model-written code's
// own coordinates, leaving out the wrapper's places), so that the runner
// places a frame where the client's report does; runs of places that map
// alike become one point. A place the map cannot place is PointUnknown
// (mapText leaves such a position as the engine gave it). Blanks and the
// letters of a word after its second are not looked up (they map as the
// place before them): about 40 ns a byte of JavaScript
// (BenchmarkStackPositions), once per erased program.
func (e *erased) walkPositions() []uint32 {
	var b pointBuilder
	if e.sourceMap() == nil {
		b.push(1, 1, place{kind: wire.PointUnknown})
		return b.points
	}
	for i, text := range strings.Split(e.js, "\n") {
		runes := []rune(text + "\n")
		col := 1
		for j, r := range runes {
			// esbuild maps tokens, never a place inside a name or a
			// number: each letter of a word maps as its first does. Its
			// second is mapped too, so that a word is not taken for a
			// shifting run; the letters after it map as it does.
			inside := j > 1 && isWordRune(runes[j-2]) && isWordRune(runes[j-1]) && isWordRune(r)
			if r != ' ' && r != '\t' && !inside {
				if !b.add(i+1, col, e.placeAt(i+1, col)) {
					return b.points
				}
			}
			col += utf16.RuneLen(r)
		}
	}
	return b.points
}

// placeAt is where the program place of the JavaScript's line and column
// is, as mapText maps it.
func (e *erased) placeAt(line, col int) place {
	l, c, ok := e.smapSource(line, col)
	switch {
	case !ok:
		return place{kind: wire.PointUnknown}
	case e.back != nil && !e.back.InCode(l, c):
		return place{kind: wire.PointOutside}
	}
	l, c = e.back.Position(l, c)
	return place{kind: wire.PointSame, line: l, col: c}
}

// isWordRune reports a letter of a name or a number.
func isWordRune(r rune) bool {
	return r >= utf8.RuneSelf || r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// place is where a point starts in the program (line and col only for
// PointSame and PointShift); placeAt and predicts give a place of the
// program as a PointSame place.
type place struct {
	kind      wire.PointKind
	line, col int
}

// pointBuilder gathers wire.Positions points, a run of places that map as
// the point before them says taking no point of its own.
type pointBuilder struct {
	points []uint32
	// The last point: where it starts, and how many places it covers.
	line, col, covered int
	at                 place
}

// push starts a point at line and col, unconditionally.
func (b *pointBuilder) push(line, col int, p place) {
	b.points = append(b.points, uint32(line), uint32(col), uint32(p.line), uint32(p.col), uint32(p.kind))
	b.line, b.col, b.covered, b.at = line, col, 1, p
}

// add records that line and col map to p, reporting false once the points
// reach wire.MaxPositionPoints (the rest of the module is then
// PointUnknown).
func (b *pointBuilder) add(line, col int, p place) bool {
	if len(b.points) > 0 && b.predicts(line, col, b.at.kind) == p {
		b.covered++
		return true
	}
	if b.covered == 1 && b.at.kind == wire.PointSame && line == b.line && b.predicts(line, col, wire.PointShift) == p {
		// The point's second place is one column right of its first: the
		// run shifts.
		b.at.kind = wire.PointShift
		b.points[len(b.points)-1] = uint32(wire.PointShift)
		b.covered++
		return true
	}
	if len(b.points)/5 == wire.MaxPositionPoints-1 {
		b.push(line, col, place{kind: wire.PointUnknown})
		return false
	}
	b.push(line, col, p)
	return true
}

// predicts is where the last point, read as kind, places line and col: a
// place of the program is a PointSame place.
func (b *pointBuilder) predicts(line, col int, kind wire.PointKind) place {
	at := b.at
	switch kind {
	case wire.PointShift:
		if line == b.line {
			return place{kind: wire.PointSame, line: at.line, col: at.col + col - b.col}
		}
		return place{kind: wire.PointSame, line: at.line + line - b.line, col: col}
	case wire.PointSame:
		return place{kind: wire.PointSame, line: at.line, col: at.col}
	}
	return place{kind: kind}
}
