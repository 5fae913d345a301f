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
	source string
	prog   *erased
}

// maxCachedSource is the largest source, in bytes, the cache keeps.
const maxCachedSource = 64 << 10

func newEraseCache(max int) *eraseCache {
	return &eraseCache{max: max, order: list.New(), index: map[string]*list.Element{}}
}

// erase returns the erased program for source, from the cache when present.
func (c *eraseCache) erase(source string) (*erased, error) {
	c.mu.Lock()
	if e, ok := c.index[source]; ok {
		c.order.MoveToFront(e)
		prog := e.Value.(*cacheEntry).prog
		c.mu.Unlock()
		return prog, nil
	}
	c.mu.Unlock()
	prog, err := erase(source)
	if err != nil || len(source) > maxCachedSource {
		return prog, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.index[source]; !ok {
		c.index[source] = c.order.PushFront(&cacheEntry{source: source, prog: prog})
		for c.order.Len() > c.max {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.index, last.Value.(*cacheEntry).source)
		}
	}
	return prog, nil
}
