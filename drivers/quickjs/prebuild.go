package quickjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/codemode-go/codemode/internal/wire"
)

// Prebuilt scopes (RATIONALE.md, "A scope sent again is prebuilt into the
// snapshot"). A host sends most executions with the same namespaces and
// scope setup, and without input: the program's argument (the scope and
// what the setup adds to it) is then the same in each, and making it (the
// setup's bytecode read and run, the namespaces' proxies) was about a tenth
// of a warm execution. The second execution of such a scope makes it in an
// engine restored from the snapshot (the runner's prebuild), and that
// engine's memory becomes the template's snapshot: every engine restored
// from it finds the argument made, fresh, and the runner's prepare takes it
// by number.

// maxPrebuilt is the most scopes a template prebuilds (each costs a copy of
// the snapshot once, and a whole copy at the next reset of every engine),
// and maxSeen the most scopes it remembers having seen once.
const (
	maxPrebuilt = 8
	maxSeen     = 256
)

// prebuilds are a template's prebuilt scopes, by namespaces and setup.
type prebuilds struct {
	mu      sync.Mutex
	seen    map[string]bool
	entries map[string]*prebuiltScope
	// building is set while a scope is built. Builds are serialised: each
	// starts from the snapshot the last one made, so that it holds every
	// scope built before. An execution never waits for another's build,
	// which lasts as long as that scope's setup runs (past the waiting
	// execution's deadline, where the sandbox process is killed): a scope
	// whose second execution comes during a build is built at a later one.
	building bool
}

// prebuiltScope is one scope's state: its number in the runner once built
// and the snapshot generation that first holds it, or failed.
type prebuiltScope struct {
	id       int32
	gen      uint64
	building bool
	failed   bool
}

// scopeKey keys a scope by its namespaces and setup text.
func scopeKey(names *scopeNames, setup string) string {
	return names.key + "\x00" + setup
}

// lookup returns the prebuilt scope for key, or nil, and whether the
// caller is to build it (and then settle it): on the second execution that
// asks, while fewer than maxPrebuilt are kept and no other scope is being
// built (the next execution that asks then builds it).
func (p *prebuilds) lookup(key string) (e *prebuiltScope, build bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.entries[key]; e != nil {
		return e, false
	}
	if !p.seen[key] {
		if p.seen == nil || len(p.seen) >= maxSeen {
			p.seen = map[string]bool{}
		}
		p.seen[key] = true
		return nil, false
	}
	if len(p.entries) >= maxPrebuilt || p.building {
		return nil, false
	}
	p.building = true
	if p.entries == nil {
		p.entries = map[string]*prebuiltScope{}
	}
	delete(p.seen, key)
	e = &prebuiltScope{id: int32(len(p.entries) + 1), building: true}
	p.entries[key] = e
	return e, true
}

// ready returns e's number when an engine restored from generation gen
// holds it, or 0.
func (p *prebuilds) ready(e *prebuiltScope, gen uint64) int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e == nil || e.building || e.failed || gen < e.gen {
		return 0
	}
	return e.id
}

// settle records how e's build ended: held from generation gen, or failed.
func (p *prebuilds) settle(e *prebuiltScope, gen uint64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.building, e.failed, e.gen = false, !ok, gen
	p.building = false
}

// prebuiltFor returns the number of the scope prebuilt for msg in in (0 for
// none). On the second execution of a scope it builds it in in, which then
// holds the new snapshot; when that fails in is replaced by another engine
// (errPrebuild names why, for tests) and the scope is never built.
func (s *server) prebuiltFor(ctx context.Context, in *instance, msg *wire.Message, names *scopeNames) (*instance, int32, error) {
	if msg.HasInput {
		return in, 0, nil
	}
	p := &s.m.prebuilt
	e, build := p.lookup(scopeKey(names, msg.Setup))
	if !build {
		return in, p.ready(e, in.gen), nil
	}
	gen, err := s.prebuild(ctx, in, e.id, msg.Setup, names)
	p.settle(e, gen, err == nil)
	if err == nil {
		return in, e.id, nil
	}
	// The engine ran the setup part way: it is not a copy of the snapshot.
	s.m.discard(in)
	in, err = s.m.get(ctx)
	return in, 0, err
}

// errPrebuild is what a scope that cannot be prebuilt fails with.
var errPrebuild = errors.New("quickjs: the scope cannot be prebuilt")

// prebuild makes scope id in in, a copy of the current snapshot, and makes
// in's memory the template's snapshot, returning its generation.
func (s *server) prebuild(ctx context.Context, in *instance, id int32, setupText string, names *scopeNames) (uint64, error) {
	t := s.m.template
	// The caller's lookup made this the only build (prebuilds.building).
	if _, gen := t.current(); in.gen != gen {
		// Another build installed a snapshot since in was restored.
		if err := t.restore(in); err != nil {
			return 0, err
		}
	}
	req, err := json.Marshal(requestJSON{Namespaces: names.namespaces, Clock: []float64{}})
	if err != nil {
		return 0, err
	}
	ok, err := s.runPrebuild(ctx, in, id, string(req), setupText, names)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errPrebuild
	}
	// A job the setup queued would run in every execution restored from
	// the snapshot, before the program: such a setup runs with each.
	r, err := in.invoke(ctx, in.x.runJobs, uint64(in.l.rt), uint64(in.l.scratch))
	if err != nil {
		return 0, err
	}
	if int32(uint32(r)) != 0 {
		return 0, fmt.Errorf("%w: its setup queued a job", errPrebuild)
	}
	mem, ok := in.mem.Read(0, in.mem.Size())
	if !ok {
		return 0, errors.New("quickjs: reading the engine's memory")
	}
	in.gen = t.install(append([]byte(nil), mem...))
	return in.gen, nil
}

// runPrebuild calls the runner's prebuild with the request req, the
// namespaces' tools and the setup compiled from setupText (null for none).
func (s *server) runPrebuild(ctx context.Context, in *instance, id int32, req, setupText string, names *scopeNames) (bool, error) {
	// What programs reach from the global object, before the setup's text
	// is evaluated: prebuild refuses a setup that changed it.
	r, err := in.callRunner(ctx, fnPrebuildBegin)
	if err != nil {
		return false, err
	}
	if err := in.freeValue(ctx, r); err != nil {
		return false, err
	}
	reqVal, err := in.newString(ctx, req)
	if err != nil {
		return false, err
	}
	defer func() { _ = in.freeValue(ctx, reqVal) }()
	toolsVal, err := in.text(ctx, s.m.stringHead, names.ascii, names.text)
	if err != nil {
		return false, err
	}
	defer func() { _ = in.freeValue(ctx, toolsVal) }()
	setup, exc, err := s.setup(ctx, in, setupText)
	if err != nil {
		return false, err
	}
	defer func() { _ = in.freeValue(ctx, setup) }()
	if exc != 0 {
		_ = in.freeValue(ctx, exc)
		return false, nil
	}
	r, err = in.callRunner(ctx, fnPrebuild, jsInt(id), reqVal, toolsVal, setup)
	if err != nil {
		return false, err
	}
	return r == jsBool(true), nil
}
