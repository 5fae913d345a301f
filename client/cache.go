package client

import (
	"container/list"
	"sync"
)

// eraseCache keeps the most recently erased programs, so that a program run
// again (a retry, a saved snippet, `codemode run --repeat`) skips esbuild.
// Entries are immutable; the cache is safe for concurrent use.
type eraseCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recent; values are *cacheEntry
	index map[string]*list.Element
}

type cacheEntry struct {
	source string // the key
	prog   *erased
}

// maxCachedSource is the largest source, in bytes, the cache keeps.
const maxCachedSource = 64 << 10

func newEraseCache(max int) *eraseCache {
	return &eraseCache{max: max, order: list.New(), index: map[string]*list.Element{}}
}

// erase returns the erased program for source, from the cache when present.
// key identifies the program: the source itself, or for model-written code a
// key derived from the code (see Client.RunCode); back is as for erase.
func (c *eraseCache) erase(key, source string, back *normalized) (*erased, error) {
	return c.eraseWith(key, func() (string, *normalized) { return source, back })
}

// eraseWith is erase for a program made on a cache miss only: prepare
// returns the source and its normalization (model-written code is
// normalized only when not cached).
func (c *eraseCache) eraseWith(key string, prepare func() (string, *normalized)) (*erased, error) {
	c.mu.Lock()
	if e, ok := c.index[key]; ok {
		c.order.MoveToFront(e)
		prog := e.Value.(*cacheEntry).prog
		c.mu.Unlock()
		return prog, nil
	}
	c.mu.Unlock()
	source, back := prepare()
	prog, err := erase(source, back)
	if err != nil || len(key) > maxCachedSource {
		return prog, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.index[key]; !ok {
		c.index[key] = c.order.PushFront(&cacheEntry{source: key, prog: prog})
		for c.order.Len() > c.max {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.index, last.Value.(*cacheEntry).source)
		}
	}
	return prog, nil
}
