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
	next    int32 // the last number given
	// build serialises builds: each starts from the snapshot the last one
	// made, so that it holds every scope built before.
	build sync.Mutex
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
// caller is to build it: on the second execution that asks, while fewer
// than maxPrebuilt are kept.
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
	if len(p.entries) >= maxPrebuilt {
		return nil, false
	}
	if p.entries == nil {
		p.entries = map[string]*prebuiltScope{}
	}
	delete(p.seen, key)
	p.next++
	e = &prebuiltScope{id: p.next, building: true}
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

// settle records how e's build (of key) ended: with err nil, held from
// generation gen; with errPrebuild, never to be built; otherwise (the
// execution was stopped, the engine failed) forgotten, to be built again
// when the scope is sent twice more.
func (p *prebuilds) settle(key string, e *prebuiltScope, gen uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.building, e.failed, e.gen = false, err != nil, gen
	if err != nil && !errors.Is(err, errPrebuild) {
		delete(p.entries, key)
	}
}

// prebuiltFor returns the engine to run msg in and the number of the scope
// prebuilt for msg in it (0 for none). On the second execution of a scope
// it builds it in in, which then holds the new snapshot. When a build fails
// because the execution was stopped (its deadline, its CPU time limit, a
// cancel), it returns in, which ran the setup part way, with that error,
// for the execution to end with as if its program had been stopped; when
// it fails otherwise, in is replaced by another engine, or by nil and the
// error when none can be had.
func (s *server) prebuiltFor(ctx context.Context, in *instance, msg *wire.Message, names *scopeNames) (*instance, int32, error) {
	if msg.HasInput {
		return in, 0, nil
	}
	p := &s.m.prebuilt
	key := scopeKey(names, msg.Setup)
	e, build := p.lookup(key)
	if !build {
		return in, p.ready(e, in.gen), nil
	}
	gen, err := s.prebuild(ctx, in, e.id, msg.Setup, names)
	p.settle(key, e, gen, err)
	if err == nil {
		return in, e.id, nil
	}
	if ctx.Err() != nil {
		return in, 0, err
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
	t.prebuilt.build.Lock()
	defer t.prebuilt.build.Unlock()
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
	r, err := in.callRunner(ctx, fnPrebuild, jsInt(id), reqVal, toolsVal, setup)
	if err != nil {
		return false, err
	}
	return r == jsBool(true), nil
}
