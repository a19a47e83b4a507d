// Package cache keeps the proxy's copies of public GET 200 responses. A copy
// is served as a cache hit while fresh (younger than its max-age) and, when
// the route allows fallbacks, as a stale fallback while the upstream fails,
// the pool times out or the breaker is open. As in Belfrage, private,
// no-cache and no-store responses are never stored.
package cache

import (
	"container/list"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Entry is a stored response.
type Entry struct {
	Status int
	Header http.Header
	Body   []byte
	Stored time.Time
	MaxAge time.Duration
}

// Age is how old the entry is at now.
func (e *Entry) Age(now time.Time) time.Duration { return now.Sub(e.Stored) }

// Fresh reports whether the entry may be served as a cache hit at now.
func (e *Entry) Fresh(now time.Time) bool { return e.Age(now) < e.MaxAge }

// MaxAge returns the max-age of a response that may be stored: a 200 to a
// GET, with Cache-Control "public" and a positive max-age, and none of
// private, no-cache, no-store.
func MaxAge(method string, status int, h http.Header) (time.Duration, bool) {
	if method != http.MethodGet || status != http.StatusOK {
		return 0, false
	}
	public, maxAge := false, -1
	for _, v := range h.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "public":
				public = true
			case "private", "no-cache", "no-store":
				return 0, false
			case "max-age":
				n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(val), `"`))
				if err != nil {
					return 0, false
				}
				maxAge = n
			}
		}
	}
	if !public || maxAge <= 0 {
		return 0, false
	}
	return time.Duration(maxAge) * time.Second, true
}

// Cache is a bounded LRU of entries; safe for concurrent use.
type Cache struct {
	max      int
	staleFor time.Duration
	now      func() time.Time

	mu  sync.Mutex
	lru list.List // of *item, most recent first
	m   map[string]*list.Element
}

type item struct {
	key string
	e   *Entry
}

// New makes a cache of at most max entries, each kept staleFor past its
// max-age for fallbacks. now is the clock (nil: time.Now).
func New(max int, staleFor time.Duration, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{max: max, staleFor: staleFor, now: now, m: map[string]*list.Element{}}
}

// Get returns the entry for key, if stored and not past its stale period.
func (c *Cache) Get(key string) (*Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[key]
	if !ok {
		return nil, false
	}
	it := el.Value.(*item)
	if it.e.Age(c.now()) >= it.e.MaxAge+c.staleFor {
		c.lru.Remove(el)
		delete(c.m, key)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return it.e, true
}

// Put stores e under key, evicting the least recently used entry if full.
func (c *Cache) Put(key string, e *Entry) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		el.Value.(*item).e = e
		c.lru.MoveToFront(el)
		return
	}
	c.m[key] = c.lru.PushFront(&item{key, e})
	for c.lru.Len() > c.max {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.m, last.Value.(*item).key)
	}
}

// Len is the number of entries.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Now is the cache's clock.
func (c *Cache) Now() time.Time { return c.now() }
