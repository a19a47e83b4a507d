package site

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/trend"
)

// trendCacheSize is how many computed trends the site keeps.
const trendCacheSize = 32

// trendWait is how long a trend page waits for its change points before
// answering that they are being computed (the page then reloads itself).
const trendWait = 3 * time.Second

// trendTimeout bounds one computation of a trend.
const trendTimeout = 30 * time.Minute

// trendCache computes the trends the page shows in the background and
// keeps them. Judging each candidate change against the runs' pooled
// histograms (compare's bootstrap) takes from a fraction of a second for
// a few runs to minutes for thousands, and archived runs never change, so
// a trend holds until a run is added: the key holds the archive's run
// count, which every add changes. One trend is computed at
// a time, each once however many pages ask for it.
type trendCache struct {
	wait    time.Duration // 0: trendWait
	mu      sync.Mutex
	entries map[string]*trend.Trend
	order   []string // oldest first
	running map[string]*trendJob
	one     sync.Mutex // held by the computation under way
}

type trendJob struct {
	done chan struct{}
	t    *trend.Trend
	err  error
}

// get returns the trend for o, or pending when it is still being
// computed after the wait.
func (c *trendCache) get(ctx context.Context, store archive.Reader, o trend.Options) (t *trend.Trend, pending bool, err error) {
	// Runs are only ever added: the count, and the latest started run,
	// tell whether the archive changed (ordered as the index's first page,
	// the cheapest query).
	newest, total, err := store.List(ctx, archive.Filter{Limit: 1})
	if err != nil {
		return nil, false, err
	}
	id := ""
	if len(newest) > 0 {
		id = newest[0].ID
	}
	// acceptances change the gate and the chart's marks, not the runs
	accepted := ""
	if acc, ok := store.(archive.AcceptanceReader); ok {
		as, err := acc.Accepted(ctx)
		if err != nil {
			return nil, false, err
		}
		for _, a := range as {
			accepted += a.RunID + "@" + a.At.String() + ";"
		}
	}
	key := fmt.Sprintf("%d|%s|%s|%+v", total, id, accepted, o)
	c.mu.Lock()
	if t, ok := c.entries[key]; ok {
		c.mu.Unlock()
		return t, false, nil
	}
	if c.running == nil {
		c.running, c.entries = map[string]*trendJob{}, map[string]*trend.Trend{}
	}
	j, ok := c.running[key]
	if !ok {
		j = &trendJob{done: make(chan struct{})}
		c.running[key] = j
		go c.compute(key, j, store, o)
	}
	c.mu.Unlock()
	wait := c.wait
	if wait == 0 {
		wait = trendWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-j.done:
		return j.t, false, j.err
	case <-timer.C:
		return nil, true, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// compute runs one trend apart from the request that asked for it (a
// page that reloads finds it done).
func (c *trendCache) compute(key string, j *trendJob, store archive.Reader, o trend.Options) {
	c.one.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), trendTimeout)
	j.t, j.err = trend.Compute(ctx, store, o)
	cancel()
	c.one.Unlock()
	c.mu.Lock()
	delete(c.running, key)
	if j.err == nil {
		c.entries[key] = j.t
		c.order = append(c.order, key)
		if len(c.order) > trendCacheSize {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	close(j.done)
}
