package quickjs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/codemode-go/codemode/internal/wire"
)

// Prebuilt scopes (RATIONALE.md, "A scope sent again is prebuilt into the
// snapshot"). A host sends most executions with the same namespaces and
// scope setup, and without input: the program's argument (the scope and
// what the setup adds to it) is then the same in each, and making it (the
// setup's bytecode read and run, the namespaces' proxies) was about a tenth
// of a warm execution. The second execution of such a scope starts a build
// beside it: an engine restored from the snapshot makes the argument (the
// runner's prebuild), and that engine's memory becomes the template's
// snapshot. Every engine restored from it finds the argument made, fresh,
// and the runner's prepare takes it by number.

// maxPrebuilt is the most scopes a template prebuilds (each costs a copy of
// the snapshot once, and a whole copy at the next reset of every engine),
// and maxSeen the most scopes it remembers having seen once, and having
// failed to build.
const (
	maxPrebuilt = 8
	maxSeen     = 256
)

// prebuilds are a template's prebuilt scopes, by namespaces and setup.
type prebuilds struct {
	mu      sync.Mutex
	seen    map[scopeKey]bool
	entries map[scopeKey]*prebuiltScope
	next    int32 // the last number given
	// kept counts the entries built or building (at most maxPrebuilt),
	// failed those that cannot be built (at most maxSeen, then forgotten).
	kept, failed int
	// building is set while a scope is built. Builds are serialised: each
	// starts from the snapshot the last one made, so that it holds every
	// scope built before. No execution waits for a build: a scope whose
	// second execution comes during another's build is built at a later
	// one.
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

// scopeKey keys a scope by its namespaces (scopeNames.key) and setup
// text.
type scopeKey struct{ names, setup string }

// lookup returns the number of the scope prebuilt for key when an engine
// restored from generation gen holds it (else 0), and, when the caller is
// to build it (and then settle it), its entry: on the second execution
// that asks, while fewer than maxPrebuilt are kept and no other scope is
// being built (the next execution that asks then builds it).
func (p *prebuilds) lookup(key scopeKey, gen uint64) (id int32, build *prebuiltScope) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.entries[key]; e != nil {
		if e.building || e.failed || gen < e.gen {
			return 0, nil
		}
		return e.id, nil
	}
	if !p.seen[key] {
		if p.seen == nil || len(p.seen) >= maxSeen {
			p.seen = map[scopeKey]bool{}
		}
		p.seen[key] = true
		return 0, nil
	}
	if p.kept >= maxPrebuilt || p.building {
		return 0, nil
	}
	p.building = true
	p.kept++
	if p.entries == nil {
		p.entries = map[scopeKey]*prebuiltScope{}
	}
	delete(p.seen, key)
	p.next++
	e := &prebuiltScope{id: p.next, building: true}
	p.entries[key] = e
	return 0, e
}

// settle records how e's build (of key) ended: with err nil, held from
// generation gen; with errPrebuild, never to be built; otherwise (the
// server closed, no engine slot was free, the engine failed) forgotten, to
// be built again when the scope is sent twice more.
func (p *prebuilds) settle(key scopeKey, e *prebuiltScope, gen uint64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.building, e.failed, e.gen = false, err != nil, gen
	p.building = false
	if err == nil {
		return
	}
	p.kept--
	if !errors.Is(err, errPrebuild) {
		delete(p.entries, key)
		return
	}
	if p.failed++; p.failed > maxSeen {
		for k, f := range p.entries {
			if f.failed {
				delete(p.entries, k)
			}
		}
		p.failed = 0
	}
}

// prebuiltFor returns the number of the scope prebuilt for msg in in, an
// engine restored from the snapshot of generation in.gen, or 0. On the
// second execution of a scope it starts the scope's build beside the
// execution (build), which runs without it.
func (s *server) prebuiltFor(in *instance, msg *wire.Message, names *scopeNames) int32 {
	if msg.HasInput {
		return 0
	}
	p := &s.m.prebuilt
	key := scopeKey{names.key, msg.Setup}
	id, e := p.lookup(key, in.gen)
	if e == nil {
		return id
	}
	s.wg.Add(1) // the execution's own count is held: serve waits for this too
	s.busy.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.busy.Add(-1)
		gen, err := s.build(e.id, msg.Setup, names)
		p.settle(key, e, gen, err)
	}()
	return 0
}

// buildTimeout bounds a scope's build: a setup that runs longer is made in
// each execution instead.
const buildTimeout = 5 * time.Second

// errNoEngine is a build that found every engine slot in use (MaxEngines):
// it is tried again later.
var errNoEngine = errors.New("quickjs: no engine slot free for a prebuild")

// build makes scope id in an engine of its own and installs the snapshot
// it leaves, returning its generation, or an error (errPrebuild when the
// setup cannot be prebuilt). It takes an engine slot only when one is
// free, and stops with the server or at buildTimeout.
func (s *server) build(id int32, setupText string, names *scopeNames) (uint64, error) {
	ctx, cancel := context.WithTimeout(s.ctx, buildTimeout)
	defer cancel()
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		default:
			return 0, errNoEngine
		}
	}
	in, err := s.m.get(ctx)
	if err != nil {
		return 0, err
	}
	s.procs.enter()
	ctx, _ = withEngineRun(ctx, s.procs)
	gen, err := s.prebuild(ctx, in, id, setupText, names)
	s.procs.leave()
	if err != nil {
		// The engine ran the setup part way: it is not a copy of a snapshot.
		s.m.discard(in)
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && s.ctx.Err() == nil {
			return 0, fmt.Errorf("%w: its setup ran past %s", errPrebuild, buildTimeout)
		}
		return 0, err
	}
	s.m.put(in)
	return gen, nil
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
	req, err := json.Marshal(requestJSON{Namespaces: names.namespaces})
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
	// Collect what the build left (the runner's lists of the globals) as
	// the template's boot does, then check again for jobs (a finalizer's).
	if err := collect(ctx, in); err != nil {
		return 0, err
	}
	if r, err = in.invoke(ctx, in.x.runJobs, uint64(in.l.rt), uint64(in.l.scratch)); err != nil {
		return 0, err
	}
	if int32(uint32(r)) != 0 {
		return 0, fmt.Errorf("%w: a finalizer ran", errPrebuild)
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
