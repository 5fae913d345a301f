package quickjs

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/codemode-go/codemode/internal/wire"
)

// The scopes a runner and a supervisor keep (wire 1.2, docs/runner-protocol.md
// "Scopes"): at most maxScopes, whose tool names take at most maxScopeBytes
// (their bytes plus 16 per name), the least recently used evicted first.
// The newest is kept whatever its size, so that the scope of the execution
// at hand survives.
const (
	maxScopes     = 16
	maxScopeBytes = 8 << 20
)

// scopeCache keeps values by scope, least recently used first. It is safe
// for concurrent use.
type scopeCache[T any] struct {
	mu      sync.Mutex
	entries []scopeEntry[T]
}

type scopeEntry[T any] struct {
	scope string
	value T
	size  int
}

// get returns the value kept under scope and marks it used.
func (c *scopeCache[T]) get(scope string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.scope == scope {
			copy(c.entries[i:], c.entries[i+1:])
			c.entries[len(c.entries)-1] = e
			return e.value, true
		}
	}
	var zero T
	return zero, false
}

// put keeps value under scope as the most recently used, evicting the
// least recently used past maxScopes or maxScopeBytes.
func (c *scopeCache[T]) put(scope string, value T, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := []scopeEntry[T]{{scope: scope, value: value, size: size}}
	total := size
	for i := len(c.entries) - 1; i >= 0; i-- {
		e := c.entries[i]
		if e.scope == scope {
			continue
		}
		if len(kept) >= maxScopes || total+e.size > maxScopeBytes {
			break
		}
		kept = append(kept, e)
		total += e.size
	}
	// kept is newest first; the cache is oldest first.
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	c.entries = kept
}

// namesSize is what a list of namespaces counts against maxScopeBytes.
func namesSize(namespaces []wire.Namespace) int {
	n := 0
	for _, ns := range namespaces {
		n += len(ns.Name) + 16
		for _, t := range ns.Tools {
			n += len(t) + 16
		}
	}
	return n
}

// scopeNames is an execution's namespaces as the Go runner uses them: the
// set it checks tool calls against, and the text the engine receives
// (runner/src/quickjs.ts, request): each namespace's tools between
// newlines, one namespace after the other, each namespace's length in the
// request. A runner makes it once per scope, so that an execution of a
// kept scope neither lists nor hashes a catalogue of 10,000 tools.
type scopeNames struct {
	namespaces []nsJSON        // the namespaces, in the message's order
	tools      map[string]bool // "namespace\x00tool"
	text       string
	ascii      bool // text holds ASCII only (instance.text)
	size       int
	// key identifies the namespaces and their tools (SHA-256 of names,
	// sizes and text), for the scopes prebuilt into a snapshot.
	key string
}

// newScopeNames makes the scopeNames of namespaces, or an error naming a
// tool name the engine's text cannot carry (empty, or with a newline or
// NUL; a contract's names are identifiers).
func newScopeNames(namespaces []wire.Namespace) (*scopeNames, error) {
	s := &scopeNames{namespaces: make([]nsJSON, 0, len(namespaces)), tools: map[string]bool{}, size: namesSize(namespaces)}
	var b strings.Builder
	for _, ns := range namespaces {
		size := 0
		if len(ns.Tools) > 0 {
			b.WriteByte('\n')
			size++
		}
		for _, t := range ns.Tools {
			if t == "" || strings.ContainsAny(t, "\n\x00") {
				return nil, fmt.Errorf("tool %.100q of namespace %.100q is empty or holds a newline or NUL", t, ns.Name)
			}
			b.WriteString(t)
			b.WriteByte('\n')
			size += utf16Len(t) + 1
			s.tools[ns.Name+"\x00"+t] = true
		}
		s.namespaces = append(s.namespaces, nsJSON{Name: ns.Name, Size: size})
	}
	s.text = b.String()
	s.ascii = isASCII(s.text)
	h := sha256.New()
	for _, ns := range s.namespaces {
		fmt.Fprintf(h, "%d:%s:%d\n", len(ns.Name), ns.Name, ns.Size)
	}
	h.Write([]byte(s.text))
	s.key = string(h.Sum(nil))
	return s, nil
}

// isASCII reports whether s holds bytes below 0x80 only.
func isASCII[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
