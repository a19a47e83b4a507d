package site

import (
	"context"
	"fmt"
	"sync"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/trend"
)

// trendCacheSize is how many computed trends the site keeps.
const trendCacheSize = 32

// trendCache keeps the trends computed for the page: judging each
// candidate change against the runs' pooled histograms (compare's
// bootstrap) takes from a fraction of a second to seconds, and archived
// runs never change, so a trend holds until a run is added. The key
// holds the archive's run count and newest run, which every add changes.
type trendCache struct {
	mu      sync.Mutex
	entries map[string]*trend.Trend
	order   []string // oldest first
}

// get returns the trend for o, computing it when the archive changed
// since it was last computed.
func (c *trendCache) get(ctx context.Context, store archive.Store, o trend.Options) (*trend.Trend, error) {
	newest, total, err := store.List(ctx, archive.Filter{Sort: "added", Limit: 1})
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d|%v|%+v", total, newestID(newest), o)
	c.mu.Lock()
	t, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err = trend.Compute(ctx, store, o)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*trend.Trend{}
	}
	if _, ok := c.entries[key]; !ok {
		c.entries[key] = t
		c.order = append(c.order, key)
		if len(c.order) > trendCacheSize {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
	}
	return t, nil
}

func newestID(runs []archive.Run) string {
	if len(runs) == 0 {
		return ""
	}
	return runs[0].ID
}
