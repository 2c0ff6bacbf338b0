package engine

import (
	"container/list"
	"sync"

	"github.com/txedit/txedit/hash"
)

// baseCache keeps, for each session and file, the bytes of the version the
// session last read or wrote, so that an edit the session makes against it
// can be rebased once someone else has changed the file (docs/design.md,
// "Concurrency"). It is bounded three ways (Options.RebaseMemory): all
// sessions of the workspace together, each session (a quarter of that),
// and each file; the least recently used entries go first, a session's
// own before the others'. A version txedit itself replaced is also in the
// journal's before-images, so a miss here costs a rebase only when the
// change was made outside txedit and the entry was evicted.
type baseCache struct {
	limit, session, file int64

	mu    sync.Mutex
	lru   list.List // of *baseEntry, most recently used first
	index map[baseKey]*list.Element
	total int64
	bySes map[string]int64
}

type baseKey struct{ session, rel string }

type baseEntry struct {
	key  baseKey
	sum  hash.Sum
	data []byte
}

// The default bounds (Options.RebaseMemory).
const (
	defaultRebaseMemory = 64 << 20
	maxRebaseFile       = 4 << 20
)

func newBaseCache(limit int64) *baseCache {
	if limit == 0 {
		limit = defaultRebaseMemory
	}
	c := &baseCache{limit: max(limit, 0), index: map[baseKey]*list.Element{}, bySes: map[string]int64{}}
	c.session = c.limit / 4
	c.file = min(int64(maxRebaseFile), c.session)
	return c
}

// put remembers data (which must not change afterwards) as the version
// sum of rel that session saw, replacing what it remembered of rel.
func (c *baseCache) put(session, rel string, sum hash.Sum, data []byte) {
	k := baseKey{session, rel}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[k]; ok {
		if be := e.Value.(*baseEntry); be.sum == sum {
			c.lru.MoveToFront(e)
			return
		}
		c.remove(e)
	}
	if int64(len(data)) > c.file || data == nil {
		return
	}
	c.index[k] = c.lru.PushFront(&baseEntry{key: k, sum: sum, data: data})
	c.total += int64(len(data))
	c.bySes[session] += int64(len(data))
	// The session's own oldest first, then everyone's.
	for e := c.lru.Back(); e != nil && c.bySes[session] > c.session; {
		prev := e.Prev()
		if e.Value.(*baseEntry).key.session == session {
			c.remove(e)
		}
		e = prev
	}
	for c.total > c.limit && c.lru.Len() > 0 {
		c.remove(c.lru.Back())
	}
}

// get returns the bytes of version sum of rel as session saw it, if kept.
func (c *baseCache) get(session, rel string, sum hash.Sum) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[baseKey{session, rel}]
	if !ok || e.Value.(*baseEntry).sum != sum {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*baseEntry).data, true
}

// forget drops what session remembered of rel ("" : of every file).
func (c *baseCache) forget(session, rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rel != "" {
		if e, ok := c.index[baseKey{session, rel}]; ok {
			c.remove(e)
		}
		return
	}
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		if e.Value.(*baseEntry).key.session == session {
			c.remove(e)
		}
		e = next
	}
	delete(c.bySes, session)
}

func (c *baseCache) remove(e *list.Element) {
	be := c.lru.Remove(e).(*baseEntry)
	delete(c.index, be.key)
	c.total -= int64(len(be.data))
	if c.bySes[be.key.session] -= int64(len(be.data)); c.bySes[be.key.session] <= 0 {
		delete(c.bySes, be.key.session)
	}
}

// size returns the bytes kept in all and for session (tests).
func (c *baseCache) size(session string) (total, ses int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, c.bySes[session]
}

// maxNotedWrites bounds the files of one request whose new bytes a
// session keeps (an agent's edit touches a few; a big request's bytes
// would only evict one another).
const maxNotedWrites = 16
