package blank

import "strings"

// Sites: where a one-pass compiler places a program's evaluation steps.
//
// QuickJS records a source position only at a few steps of a function's
// code (a call, new, a binary operator, throw, an expression statement), so
// an error a property read or a name lookup raises carries the position of
// the last such step before it. drivers/quickjs finds the step that failed
// from that position with the sites Sites returns (see its locate.go).

// SiteKind is what happens at a Site.
type SiteKind uint8

// The site kinds. The first six are the steps QuickJS records a position
// at (emit_source_loc in quickjs.c); the last three are steps that can
// fail with an error naming what failed.
const (
	// SiteFunction is where a function starts: its first token ("async",
	// "function", an arrow's parameters, a method's key). Its Func is the
	// function it starts.
	SiteFunction SiteKind = iota + 1
	// SiteStatement is an expression statement's first token.
	SiteStatement
	// SiteCall is a call's first token after "(" (its ")" when it has no
	// arguments), or a tagged template's template; not new's arguments.
	SiteCall
	// SiteNew is the first token after "new".
	SiteNew
	// SiteBinary is the first token of the right operand of a binary
	// operator other than &&, ||, ?? and **.
	SiteBinary
	// SiteThrow is the first token after "throw".
	SiteThrow
	// SiteRead is a property read: at the name of ".name" (Name) or a
	// destructuring pattern's key (Name, or "" for a computed or quoted
	// one), or at the "[" of a computed member (Name "": any property).
	SiteRead
	// SiteWrite is a property assignment ("a.b = c", "a.b += c"): at the
	// name (Name, or "" for a computed member), placed after the sites of
	// the assigned value.
	SiteWrite
	// SiteName is a name read, or assigned (placed after the sites of the
	// assigned value).
	SiteName
)

// Site is one evaluation step of a program (see SiteKind).
type Site struct {
	Kind SiteKind
	// Offset is the byte offset of the site's token.
	Offset int
	// Mark is the byte offset QuickJS's scanner counts the token's column
	// from (s->mark in quickjs.c): the start of the last name at or before
	// the token, or the end of the last space, comment or line break
	// before it (inside a string or template too), whichever is later.
	Mark int
	// Name is the property or name of a SiteRead, SiteWrite or SiteName.
	Name string
	// Func is the function the site belongs to: 0 for the program's top
	// level, then 1, 2, … in the order the functions start (a
	// SiteFunction's is the function it starts).
	Func int
}

// Sites returns source's evaluation steps in the order a one-pass compiler
// emits their code: source order, except that a for statement's update
// follows its body, a for-in or for-of head's binding follows the iterated
// expression, and an assignment's target follows the assigned value. ok is
// false when Types refuses source. Sites are read from JavaScript: a
// TypeScript program's types are read as Types reads them, but the
// positions are the TypeScript's.
//
//	st, ok := blank.Sites("f(a.b)") // SiteStatement f, SiteName f, SiteCall a, SiteName a, SiteRead b
func Sites(source string) ([]Site, bool) {
	if len(source) > MaxSource {
		return nil, false
	}
	p := &blanker{src: source, budget: blankBudget(source), recording: true}
	if _, ok := p.run(); !ok {
		return nil, false
	}
	kept := p.sites[:0]
	for _, s := range p.sites {
		if s.Kind != siteKey {
			kept = append(kept, s)
		}
	}
	return kept, true
}

// siteKey is an object literal's key, kept as a SiteRead when the literal
// turns out to be a destructuring assignment's pattern, and dropped
// otherwise.
const siteKey SiteKind = 100

// site records a site at token t, when recording.
func (p *blanker) site(kind SiteKind, t token, name string) {
	if p.recording {
		p.sites = append(p.sites, Site{Kind: kind, Offset: t.start, Mark: t.mark, Name: name, Func: p.fn})
	}
}

// startFunction records the start of a function at token t and makes it
// the current one; the returned function restores the enclosing one.
func (p *blanker) startFunction(t token) func() {
	if !p.recording {
		return noRestore // Types: no sites, no closure to allocate
	}
	outer := p.fn
	p.nfn++
	p.fn = p.nfn
	p.site(SiteFunction, t, "")
	return func() { p.fn = outer }
}

// noRestore is startFunction's restore when no sites are recorded.
func noRestore() {}

// withMark sets t's mark after prev, the token before it (see Site.Mark).
func (p *blanker) withMark(t, prev token) token {
	switch {
	case t.start > prev.end || t.kind == tName || t.kind == tPrivate:
		t.mark = t.start
	default:
		t.mark = prev.markAfter
	}
	return p.markAfter(t)
}

// markAfter sets t.markAfter: after the last line break inside t (a
// template or a continued string), where QuickJS's scanner also counts
// t's own column from; t.mark otherwise.
func (p *blanker) markAfter(t token) token {
	t.markAfter = t.mark
	if t.kind == tStr || t.kind == tTemplate {
		if i := strings.LastIndexAny(p.src[t.start:t.end], "\n\r"); i >= 0 {
			t.mark = t.start + i + 1
			t.markAfter = t.mark
		}
	}
	return t
}

// rotate moves sites[from:mid] after sites[mid:to] (a part of the code a
// compiler emits later than it reads it).
func (p *blanker) rotate(from, mid, to int) {
	if !p.recording || from >= mid || mid >= to {
		return
	}
	moved := append([]Site(nil), p.sites[from:mid]...)
	n := copy(p.sites[from:], p.sites[mid:to])
	copy(p.sites[from+n:], moved)
}

// assignTarget handles the operand read from sites[from:] when an
// assignment operator op follows it: a destructuring pattern's keys become
// reads (a pattern's reads come before the value's code), and a name or
// member target's store is returned, to be recorded after the value; for
// "=" the target's read is dropped (it is no read).
func (p *blanker) assignTarget(from int, op string, pattern bool) (store Site, ok bool) {
	if !p.recording || len(p.sites) <= from {
		return Site{}, false
	}
	if pattern {
		for i := from; i < len(p.sites); i++ {
			if p.sites[i].Kind == siteKey {
				p.sites[i].Kind = SiteRead
			}
		}
		return Site{}, false
	}
	last := p.sites[len(p.sites)-1]
	if last.Kind != SiteRead && last.Kind != SiteName {
		return Site{}, false
	}
	if op == "=" {
		p.sites = p.sites[:len(p.sites)-1]
	}
	if last.Kind == SiteRead {
		last.Kind = SiteWrite
	}
	return last, true
}
