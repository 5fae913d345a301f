package client

import (
	"sync"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/wire"
)

// runScope is the namespaces a run sends (read only: runs share it) and the
// scope that names them (wire.ScopeDigest).
type runScope struct {
	namespaces map[string][]string
	digest     string
}

// scopeLists are a contract's namespaces as runs send them, without and
// with the fetch namespace, made on first use and shared by every run of
// the clients of the contract, so that a catalogue of 10,000 tools is
// neither listed nor hashed per run.
type scopeLists struct {
	contract    *contract.Contract
	plain, with sync.Once
	plainScope  runScope
	withScope   runScope
}

// plainRun returns the namespaces of a run without fetch.
func (l *scopeLists) plainRun() runScope {
	l.plain.Do(func() { l.plainScope = newRunScope(withSDK(toolNames(l.contract))) })
	return l.plainScope
}

// fetchingRun returns the namespaces of a run with the fetch namespace.
func (l *scopeLists) fetchingRun() runScope {
	l.with.Do(func() {
		ns := withSDK(toolNames(l.contract))
		ns[fetchNamespace] = []string{fetchTool}
		l.withScope = newRunScope(ns)
	})
	return l.withScope
}

// newRunScope names namespaces by the digest of the list an execute
// message carries (sorted by name, as Runtime.Execute sends it).
func newRunScope(namespaces map[string][]string) runScope {
	list := make([]wire.Namespace, 0, len(namespaces))
	for _, name := range sortedKeys(namespaces) {
		list = append(list, wire.Namespace{Name: name, Tools: namespaces[name]})
	}
	return runScope{namespaces: namespaces, digest: wire.ScopeDigest(list)}
}

// maxScopes is how many scopes a runtime remembers having sent its runner
// with their namespaces. Past it the oldest is forgotten, which costs one
// more execute message with the list, never a wrong scope.
const maxScopes = 64

// scopeSet is the scopes a runtime sent with their namespaces, oldest
// first. It is safe for concurrent use.
type scopeSet struct {
	mu    sync.Mutex
	set   map[string]bool
	order []string
}

func (s *scopeSet) has(scope string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set[scope]
}

// add remembers scope, forgetting the oldest past maxScopes.
func (s *scopeSet) add(scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set[scope] {
		return
	}
	if s.set == nil {
		s.set = map[string]bool{}
	}
	if len(s.order) >= maxScopes {
		delete(s.set, s.order[0])
		s.order = s.order[1:]
	}
	s.set[scope] = true
	s.order = append(s.order, scope)
}

// remove forgets scope: the runner said it does not keep it.
func (s *scopeSet) remove(scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.set[scope] {
		return
	}
	delete(s.set, scope)
	for i, x := range s.order {
		if x == scope {
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			break
		}
	}
}

// toolNames returns the tool names a program sees, by scope property.
func toolNames(c *contract.Contract) map[string][]string {
	m := map[string][]string{}
	for _, n := range c.Namespaces() {
		names := make([]string, len(n.Tools))
		for i, t := range n.Tools {
			names[i] = t.Name()
		}
		m[n.Name] = names
	}
	return m
}
