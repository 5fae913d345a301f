package client

import (
	"container/list"
	"sync"

	"github.com/codemode-go/codemode/internal/codeform"
	"github.com/codemode-go/codemode/internal/esbuildchild"
)

// eraseCache keeps the most recently erased programs, so that a program run
// again (a retry, a saved program, a recorded run resumed after an
// approval, `codemode run --repeat`) skips esbuild. It is bounded in bytes and evicts
// the least recently used program first. Entries are immutable; the cache
// is safe for concurrent use. Erasure has no options that vary between runs
// of one client (the esbuild options are constant, and a client's scope
// setup is fixed when it is made), so the key alone decides the result.
type eraseCache struct {
	mu    sync.Mutex
	max   int        // bytes
	used  int        // bytes, the sum of the entries' sizes
	order *list.List // front: most recent; values are *cacheEntry
	index map[string]*list.Element
}

type cacheEntry struct {
	key  string
	prog *erased
	size int // bytes charged to the cache
}

// maxCachedSource is the largest source, in bytes, the cache keeps.
const maxCachedSource = 64 << 10

// eraseCacheBytes is a client's erase cache budget: about a thousand
// programs of a few kilobytes.
const eraseCacheBytes = 4 << 20

func newEraseCache(maxBytes int) *eraseCache {
	return &eraseCache{max: maxBytes, order: list.New(), index: map[string]*list.Element{}}
}

// entrySize is what an erased program is charged: its key, the TypeScript
// (when not the key itself), the JavaScript, and as much again as the
// TypeScript for the submitted lines and the parsed source map an error
// makes, and esbuild's source map.
func entrySize(key string, prog *erased) int {
	n := len(key) + len(prog.js) + len(prog.source) + len(prog.jsMap)
	if key == prog.source { // Client.Run: one string
		n -= len(key)
	}
	return n + len(prog.source)
}

// erase returns the erased program for source, from the cache when present.
// key identifies the program: the source itself, or for model-written code a
// key derived from the code (see Client.RunCode); back and es are as for
// erase.
func (c *eraseCache) erase(key, source string, back *codeform.Normalized, es *esbuildchild.Session) (*erased, error) {
	return c.eraseWith(key, es, func() (string, *codeform.Normalized) { return source, back })
}

// eraseWith is erase for a program made on a cache miss only: prepare
// returns the source and its normalization (model-written code is
// normalized only when not cached).
func (c *eraseCache) eraseWith(key string, es *esbuildchild.Session, prepare func() (string, *codeform.Normalized)) (*erased, error) {
	c.mu.Lock()
	if e, ok := c.index[key]; ok {
		c.order.MoveToFront(e)
		prog := e.Value.(*cacheEntry).prog
		c.mu.Unlock()
		return prog, nil
	}
	c.mu.Unlock()
	source, back := prepare()
	prog, err := erase(source, back, es)
	if err != nil || len(key) > maxCachedSource {
		return prog, err
	}
	size := entrySize(key, prog)
	if size > c.max {
		return prog, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.index[key]; !ok {
		c.index[key] = c.order.PushFront(&cacheEntry{key: key, prog: prog, size: size})
		c.used += size
		for c.used > c.max {
			last := c.order.Back()
			c.order.Remove(last)
			ent := last.Value.(*cacheEntry)
			delete(c.index, ent.key)
			c.used -= ent.size
		}
	}
	return prog, nil
}
