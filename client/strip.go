package client

import (
	"regexp"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/esbuildchild"
	"github.com/codemode-go/codemode/internal/wire"
)

// positions maps an outcome's "agent.ts:L:C" positions to the submitted
// source and renders excerpts of it: an *erased program, or a *stripped
// one.
type positions interface {
	mapText(text string) string
	excerptAt(text string) string
	// earlyError is esbuild's SyntaxError for a program whose types were
	// blanked and that the engine refused with a SyntaxError (see
	// erased.earlyError), or nil.
	earlyError(out *Outcome, es *esbuildchild.Session) error
	// stackPositions is where the places of the module sent lie in the
	// program (wire 1.8), or nil when they are its own.
	stackPositions() *wire.Positions
}

// typeStripper is an executor whose runners strip TypeScript's types
// themselves (wire 1.4): a Runtime of the Node.js driver.
type typeStripper interface {
	stripsTypeScript() bool
}

func (rt *runnerConn) stripsTypeScript() bool { return rt.stripsTypes }

func (p *pool) stripsTypeScript() bool { return p.stripsTypes }

// notStrippable finds what makes a module's meaning depend on erasing it
// rather than blanking its types: imports (TypeScript elides those only
// used as types; blanks keep them) and classes (Node.js's stripper puts
// no semicolon where it blanked a member, so "x = 1", a declare field,
// then "['z'] = 2" became "x = 1['z'] = 2"). A false match, in a string or
// a comment, only costs the erasure.
var notStrippable = regexp.MustCompile(`\bimport\b|\bclass\b`)

// onlyDefaultExports reports whether every "export" in source starts
// "export default": any other export (a list, which may name types, or a
// comment between the keywords) is left to the erasure.
func onlyDefaultExports(source string) bool {
	return strings.Count(source, "export") == strings.Count(source, "export default")
}

// strippable returns source, a module, as a program for the runner to
// strip, or nil when the client erases it: a module whose meaning blanks
// could change, or an executor whose runners do not strip. (Model-written
// code is always erased here: RunCode wraps it, with esbuild's help.)
func (c *Client) strippable(source string, es *esbuildchild.Session) *stripped {
	if ts, ok := c.rt.(typeStripper); !ok || !ts.stripsTypeScript() {
		return nil
	}
	// A byte order mark: Node.js's stripper drops it, which would move
	// every column of the first line.
	if strings.HasPrefix(source, "\uFEFF") || notStrippable.MatchString(source) || !onlyDefaultExports(source) {
		return nil
	}
	return &stripped{source: source, cache: c.erased, es: es}
}

// stripped is a program sent as TypeScript for the runner to strip in
// place: the outcome's positions are the source's own, unless the runtime
// had it erased after all (erase: the runner refused it), and then they
// are mapped as an erased program's are.
type stripped struct {
	source string
	cache  *eraseCache
	es     *esbuildchild.Session // the run's, for erase

	mu     sync.Mutex
	erased *erased // set by erase
}

// erase erases the program here, for a runtime that sends JavaScript
// (ExecuteRequest.Erase).
func (s *stripped) erase() (string, error) {
	e, err := s.cache.eraseWith(s.source, s.es, func() (string, *codeform.Normalized) { return s.source, nil })
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.erased = e
	s.mu.Unlock()
	return e.js, nil
}

func (s *stripped) get() *erased {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.erased
}

func (s *stripped) mapText(text string) string {
	if e := s.get(); e != nil {
		return e.mapText(text)
	}
	return text
}

func (s *stripped) earlyError(out *Outcome, es *esbuildchild.Session) error {
	if e := s.get(); e != nil {
		return e.earlyError(out, es)
	}
	return nil
}

// stackPositions is nil for the program stripped in place (its places
// are the source's), and the erasure's once the runtime had it erased.
func (s *stripped) stackPositions() *wire.Positions {
	if e := s.get(); e != nil {
		return e.stackPositions()
	}
	return nil
}

func (s *stripped) excerptAt(text string) string {
	if e := s.get(); e != nil {
		return e.excerptAt(text)
	}
	return excerptIn(strings.Split(s.source, "\n"), text)
}
