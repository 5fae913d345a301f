package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/codeform"
)

// Defaults of a Session's bounds.
const (
	defaultSessionBytes      = 1 << 20
	defaultSessionExecutions = 1000
	defaultSessionIdle       = 30 * time.Minute
	maxSessionBytes          = 8 << 20
)

// Session carries the top-level bindings of one RunCode program to the
// next one run with it (RunOptions.Session), as a REPL does: let, const and
// var bindings (destructuring included) and functions that a
// statement-form program declares stay defined for the programs after it.
// Classes are not carried: defining one runs code (static blocks, static
// fields, computed keys, the extends clause), which would run before the
// next program's own. The zero value is an empty session with the default bounds; it is safe
// for concurrent use, and runs one execution at a time.
//
// Each execution still runs in a fresh realm: the session restores its
// bindings as the program's module starts (values through JSON, functions
// from their source) and reads them back when the program
// completes (returns, or runs off its end). A program that throws, or
// fails in any other way, leaves the bindings as they were. A value JSON
// cannot hold (a Map, a Date, a BigInt, NaN, undefined inside an object, a
// cycle) is dropped and named in Outcome.SessionLost, as is a class; a
// function keeps its source but not what it closed over, except other bindings of
// the session. Only statement-form code (statements whose last expression
// is the value) adds bindings; a function expression sees them but adds
// none, and a module neither sees nor adds them. Names of the program's
// scope (its namespaces, console, result, input) are never carried.
//
// A session ends when its encoded bindings pass MaxBytes, when it has run
// MaxExecutions programs, or when it was idle for IdleTimeout; the next run
// then returns an error wrapping ErrSessionEnded that names the bound and
// the bindings lost, and the session starts empty after it. Sessions and
// durable runs do not mix: a durable run replays its program from the
// start on every pass, and bindings brought in from outside its journal
// would make the replays differ.
type Session struct {
	// MaxBytes caps the encoded bindings (names, JSON and sources), in
	// bytes. 0: 1 MiB; at most 8 MiB (they travel in the runner's
	// messages, at most 16 MiB each).
	MaxBytes int
	// MaxExecutions caps the programs the session runs. 0: 1,000.
	MaxExecutions int
	// IdleTimeout ends the session when no program ran in it for this
	// long. 0: 30 minutes.
	IdleTimeout time.Duration

	mu       sync.Mutex
	turn     chan struct{} // held by the execution running in the session
	bindings []codeform.Binding
	runs     int
	last     time.Time
	ended    string // why the session ended; "" while it lives
	lost     []string
}

// ErrSessionEnded is what the error of a run in a session that ended wraps
// (see Session).
var ErrSessionEnded = errors.New("codemode: the session ended")

// sessionEndedError says which bound ended a session and what was lost.
type sessionEndedError struct {
	why  string
	lost []string
}

func (e *sessionEndedError) Error() string {
	lost := "no bindings were lost"
	if len(e.lost) > 0 {
		lost = "these bindings were lost: " + strings.Join(e.lost, ", ")
	}
	return fmt.Sprintf("codemode: the session ended (%s); %s. It starts empty now: declare them again", e.why, lost)
}

func (e *sessionEndedError) Unwrap() error { return ErrSessionEnded }

func (s *Session) limits() (bytes, runs int, idle time.Duration) {
	bytes, runs, idle = s.MaxBytes, s.MaxExecutions, s.IdleTimeout
	if bytes <= 0 {
		bytes = defaultSessionBytes
	}
	bytes = min(bytes, maxSessionBytes)
	if runs <= 0 {
		runs = defaultSessionExecutions
	}
	if idle <= 0 {
		idle = defaultSessionIdle
	}
	return bytes, runs, idle
}

// acquire waits for the session's turn (one execution at a time), or for
// ctx to end.
func (s *Session) acquire(ctx context.Context) error {
	s.mu.Lock()
	if s.turn == nil {
		s.turn = make(chan struct{}, 1)
	}
	turn := s.turn
	s.mu.Unlock()
	select {
	case turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (s *Session) release() { <-s.turn }

// begin returns the bindings to restore, or the error of a session that
// ended (which empties it).
func (s *Session) begin(now time.Time) ([]codeform.Binding, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, idle := s.limits()
	if s.ended == "" && !s.last.IsZero() && now.Sub(s.last) > idle {
		s.end(fmt.Sprintf("idle for more than %s, its IdleTimeout", idle))
	}
	if s.ended != "" {
		err := &sessionEndedError{why: s.ended, lost: s.lost}
		s.bindings, s.runs, s.ended, s.lost, s.last = nil, 0, "", nil, now
		return nil, err
	}
	return slices.Clone(s.bindings), nil
}

// end ends the session for why, its bindings lost.
func (s *Session) end(why string) {
	s.ended = why
	s.lost = nil
	for _, b := range s.bindings {
		s.lost = append(s.lost, b.Name)
	}
	s.bindings = nil
}

// capturedSession is the session part of a capturing module's value (see
// codeform.Carry).
type capturedSession struct {
	Values    map[string]string `json:"values"`
	Functions map[string]string `json:"functions"`
	Lost      map[string]string `json:"lost"`
}

// finish counts an execution and, for a program that completed, keeps
// what it captured; it returns the names lost with why, sorted.
func (s *Session) finish(now time.Time, c *capturedSession, order []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	maxBytes, maxRuns, _ := s.limits()
	s.runs++
	s.last = now
	var lost []string
	if c != nil {
		s.bindings, lost = c.bindings(s.bindings, order)
		if size := bindingBytes(s.bindings); size > maxBytes {
			s.end(fmt.Sprintf("its bindings took %d bytes, more than its MaxBytes of %d", size, maxBytes))
			return lost
		}
	}
	if s.runs >= maxRuns {
		s.end(fmt.Sprintf("it ran %d programs, its MaxExecutions", s.runs))
	}
	return lost
}

// bindings merges c into old: old's order first, then new names in order
// (the program's declarations), then any others by name; a name c lost
// leaves the session.
func (c *capturedSession) bindings(old []codeform.Binding, order []string) (next []codeform.Binding, lost []string) {
	at := map[string]codeform.Binding{}
	for name, j := range c.Values {
		at[name] = codeform.Binding{Name: name, JSON: j}
	}
	before := map[string]string{}
	for _, b := range old {
		before[b.Name] = b.Source
	}
	for name, src := range c.Functions {
		if classSource.MatchString(src) {
			// Defining a class runs code (static blocks and fields,
			// computed keys, its extends clause): restored before the next
			// program's own code, it could hang or call tools in it.
			c.Lost[name] = "a class: defining one runs code, so it is not carried; declare it again where it is used"
			continue
		}
		// A source the session held is known to compile: only new ones
		// are read.
		if before[name] != src && !compiles(src) {
			c.Lost[name] = "a function whose source cannot be evaluated again (a method, a bound or native function)"
			continue
		}
		at[name] = codeform.Binding{Name: name, Source: src}
	}
	for _, b := range old {
		if nb, ok := at[b.Name]; ok {
			next = append(next, nb)
			delete(at, b.Name)
		}
	}
	for _, name := range order {
		if nb, ok := at[name]; ok {
			next = append(next, nb)
			delete(at, name)
		}
	}
	for _, name := range sortedNames(at) {
		next = append(next, at[name])
	}
	for name, why := range c.Lost {
		lost = append(lost, name+" ("+why+")")
	}
	slices.Sort(lost)
	return next, lost
}

func sortedNames(m map[string]codeform.Binding) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// classSource matches the source of a class (Function.prototype.toString
// of a class starts with the keyword).
var classSource = regexp.MustCompile(`^\s*class\b`)

// compiles reports whether a function's source is an expression.
func compiles(src string) bool {
	return codeform.IsExpression(src)
}

func bindingBytes(bs []codeform.Binding) int {
	n := 0
	for _, b := range bs {
		n += len(b.Name) + len(b.JSON) + len(b.Source)
	}
	return n
}

// unwrapSession takes a capturing module's {value, session} apart: out's
// Value becomes the program's value. A value the client cannot read leaves
// out as it is and captures nothing.
func unwrapSession(out *Outcome) *capturedSession {
	var v struct {
		Value   json.RawMessage  `json:"value"`
		Session *capturedSession `json:"session"`
	}
	if json.Unmarshal(out.Value, &v) != nil || v.Session == nil {
		return nil
	}
	if v.Session.Lost == nil {
		v.Session.Lost = map[string]string{}
	}
	out.Value = v.Value
	return v.Session
}

// sessionValuePath is how the runner names the program's value when a
// capturing module wraps it; unwrapError gives the program's own path back.
const sessionValuePath = "is not JSON: value.value"

func unwrapError(out *Outcome) {
	if out.Error != nil {
		out.Error.Message = strings.Replace(out.Error.Message, sessionValuePath, "is not JSON: value", 1)
	}
}

// sessionTable holds the code tool's sessions by key (codetool.WithSession),
// for the clients made from one New. A session idle past twice its
// IdleTimeout is ended on the next sweep (its bindings freed, their names
// kept), so that its key, used again, still says what was lost; its
// remains are removed after forgetAfter idle timeouts. Sweeps run on use.
type sessionTable struct {
	mu sync.Mutex
	m  map[string]*Session
}

// get returns the session of key, made with tmpl's bounds when new. It
// sweeps the sessions idle past twice their timeout and, when live is not
// nil, those whose keys it says nobody holds any more (closed MCP
// sessions).
func (t *sessionTable) get(key string, tmpl *Session, now time.Time, live func(string) bool) *Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*Session{}
	}
	for k, s := range t.m {
		if k != key && (live != nil && !live(k) || s.sweep(now)) {
			delete(t.m, k)
		}
	}
	s, ok := t.m[key]
	if !ok {
		s = &Session{}
		if tmpl != nil {
			s.MaxBytes, s.MaxExecutions, s.IdleTimeout = tmpl.MaxBytes, tmpl.MaxExecutions, tmpl.IdleTimeout
		}
		t.m[key] = s
	}
	return s
}

// forgetAfter is how many idle timeouts a session's key is remembered
// after its last run (to say what was lost), before it is forgotten.
const forgetAfter = 48

// sweep ends s when it has been idle past twice its timeout, and reports
// whether it has been idle so long (forgetAfter timeouts) that its key
// can be forgotten.
func (s *Session) sweep(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last.IsZero() {
		return false
	}
	_, _, idle := s.limits()
	quiet := now.Sub(s.last)
	if s.ended == "" && quiet > 2*idle {
		s.end(fmt.Sprintf("idle for more than %s, its IdleTimeout", idle))
	}
	return quiet > forgetAfter*idle
}

// startSession takes s's turn and gives p the session's bindings; release
// gives the turn back. A module (Run) cannot be part of a session.
func startSession(ctx context.Context, s *Session, p *program) (release func(), err error) {
	if p.kind != modelCode {
		return nil, errors.New("codemode: RunOptions.Session carries the bindings of RunCode programs; Run takes a module, which has none")
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	restore, err := s.begin(time.Now())
	if err != nil {
		s.release()
		return nil, err
	}
	p.carry = &codeform.Carry{Restore: restore, Capture: append([]string{}, codeform.Declared(p.text)...)}
	return s.release, nil
}

// finishSession counts a run in s and, when the program completed in the
// statement form (captures), keeps the bindings it captured and names
// those it lost in out.
func finishSession(s *Session, out *Outcome, captures bool, order []string) {
	var captured *capturedSession
	switch {
	case !captures:
	case out.Kind == Success:
		captured = unwrapSession(out)
	default:
		unwrapError(out)
	}
	out.SessionLost = s.finish(time.Now(), captured, order)
}

// declarations are the session's bindings as the type checker sees them:
// names only.
func (s *Session) declarations() []codeform.Binding {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]codeform.Binding, len(s.bindings))
	for i, b := range s.bindings {
		out[i] = codeform.Binding{Name: b.Name}
	}
	return out
}

// holds says which bindings the session holds, for a program that named
// one it does not (a new session, or one that ended, starts empty).
func (s *Session) holds() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bindings) == 0 {
		return "this session holds no bindings (a new session, or one that ended, starts empty)"
	}
	names := make([]string, len(s.bindings))
	for i, b := range s.bindings {
		names[i] = b.Name
	}
	return "this session holds: " + strings.Join(names, ", ")
}
