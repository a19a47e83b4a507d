package metrics

import (
	"fmt"
	"strings"
	"time"
)

// Buckets are the lower bounds of latency histogram buckets, ascending, as
// in vegeta's `-type 'hist[0,5ms,10ms]'`; the last bucket is open-ended.
type Buckets []time.Duration

// ParseBuckets parses "[0,5ms,10ms,...]".
func ParseBuckets(s string) (Buckets, error) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("bad buckets %q: want [d1,d2,...] e.g. [0,5ms,10ms,50ms]", s)
	}
	var bs Buckets
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		f = strings.TrimSpace(f)
		d, err := time.ParseDuration(f)
		if err != nil {
			return nil, fmt.Errorf("bad bucket %q in %s: not a duration like 5ms", f, s)
		}
		if d < 0 {
			return nil, fmt.Errorf("bad bucket %q in %s: negative", f, s)
		}
		if len(bs) > 0 && d <= bs[len(bs)-1] {
			return nil, fmt.Errorf("bad bucket %q in %s: buckets must be in ascending order", f, s)
		}
		bs = append(bs, d)
	}
	return bs, nil
}

// Nth returns the bounds of bucket i as vegeta prints them.
func (bs Buckets) Nth(i int) (lo, hi string) {
	if i >= len(bs)-1 {
		return bs[i].String(), "+Inf"
	}
	return bs[i].String(), bs[i+1].String()
}

// Hist counts latencies into Buckets exactly (not from the HdrHistogram).
type Hist struct {
	Buckets Buckets
	Counts  []uint64
	Total   uint64
	// Below counts latencies under the first bound. Vegeta files them in
	// the last bucket; loadlab keeps them apart and says so.
	Below uint64
}

// NewHist returns an empty histogram over bs.
func NewHist(bs Buckets) *Hist { return &Hist{Buckets: bs, Counts: make([]uint64, len(bs))} }

// Add counts one latency.
func (h *Hist) Add(d time.Duration) {
	h.Total++
	if len(h.Buckets) == 0 || d < h.Buckets[0] {
		h.Below++
		return
	}
	i := len(h.Buckets) - 1
	for j := 1; j < len(h.Buckets); j++ {
		if d < h.Buckets[j] {
			i = j - 1
			break
		}
	}
	h.Counts[i]++
}
