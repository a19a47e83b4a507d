package origin

import (
	"strconv"
	"sync/atomic"
)

// counter backs /_admin/current_count: total requests and requests per
// status code, as origin_simulator counts them.
type counter struct {
	total    atomic.Int64
	byStatus [600]atomic.Int64
	aborted  atomic.Int64
}

func (c *counter) add(status int) {
	c.total.Add(1)
	if status > 0 && status < len(c.byStatus) {
		c.byStatus[status].Add(1)
	} else {
		c.aborted.Add(1)
	}
}

func (c *counter) clear() {
	c.total.Store(0)
	c.aborted.Store(0)
	for i := range c.byStatus {
		c.byStatus[i].Store(0)
	}
}

// snapshot is {"total_requests": N, "200": N, ...}; requests cut by a
// fault count under "aborted".
func (c *counter) snapshot() map[string]int64 {
	out := map[string]int64{"total_requests": c.total.Load()}
	for i := range c.byStatus {
		if n := c.byStatus[i].Load(); n > 0 {
			out[strconv.Itoa(i)] = n
		}
	}
	if n := c.aborted.Load(); n > 0 {
		out["aborted"] = n
	}
	return out
}
