package cache

import (
	"net/http"
	"testing"
	"time"
)

func TestMaxAge(t *testing.T) {
	tests := []struct {
		method string
		status int
		cc     []string
		want   time.Duration
		ok     bool
	}{
		{"GET", 200, []string{"public, max-age=30"}, 30 * time.Second, true},
		{"GET", 200, []string{"public", "max-age=5"}, 5 * time.Second, true},
		{"GET", 200, []string{"max-age=30"}, 0, false},
		{"GET", 200, []string{"private, max-age=30"}, 0, false},
		{"GET", 200, []string{"public, max-age=30, no-cache"}, 0, false},
		{"GET", 200, []string{"public, no-store, max-age=30"}, 0, false},
		{"GET", 200, []string{"public, max-age=0"}, 0, false},
		{"GET", 200, []string{"public, max-age=x"}, 0, false},
		{"GET", 200, nil, 0, false},
		{"GET", 404, []string{"public, max-age=30"}, 0, false},
		{"POST", 200, []string{"public, max-age=30"}, 0, false},
		{"GET", 200, []string{`PUBLIC, Max-Age="7"`}, 7 * time.Second, true},
	}
	for _, tc := range tests {
		h := http.Header{}
		for _, v := range tc.cc {
			h.Add("Cache-Control", v)
		}
		got, ok := MaxAge(tc.method, tc.status, h)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s %d %q: %v %v, want %v %v", tc.method, tc.status, tc.cc, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFreshStaleExpiredEvicted(t *testing.T) {
	now := time.Unix(1000, 0)
	c := New(2, 10*time.Second, func() time.Time { return now })
	c.Put("a", &Entry{Status: 200, Body: []byte("a"), Stored: now, MaxAge: 5 * time.Second})
	steps := []struct {
		after     time.Duration
		ok, fresh bool
	}{{0, true, true}, {5 * time.Second, true, false}, {14 * time.Second, true, false}, {15 * time.Second, false, false}}
	start := now
	for _, st := range steps {
		now = start.Add(st.after)
		e, ok := c.Get("a")
		if ok != st.ok || (ok && e.Fresh(now) != st.fresh) {
			t.Fatalf("after %v: ok=%v fresh=%v, want %v %v", st.after, ok, ok && e.Fresh(now), st.ok, st.fresh)
		}
	}
	for _, k := range []string{"x", "y", "z"} {
		c.Put(k, &Entry{Stored: now, MaxAge: time.Second})
	}
	if _, ok := c.Get("x"); ok || c.Len() != 2 {
		t.Fatalf("LRU did not evict the oldest: len %d", c.Len())
	}
}

func FuzzMaxAge(f *testing.F) {
	f.Add("public, max-age=30")
	f.Add(`private, max-age="5"`)
	f.Fuzz(func(t *testing.T, cc string) {
		h := http.Header{"Cache-Control": {cc}}
		d, ok := MaxAge("GET", 200, h)
		if ok && d <= 0 {
			t.Fatalf("%q: stored with max-age %v", cc, d)
		}
	})
}
