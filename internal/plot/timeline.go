package plot

import (
	"fmt"
	"sort"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Timeline counts results in fixed time bins (one second by default, the
// first starting at the first send time added, or at the Anchor) for
// the throughput and status-code charts: requests sent, successful responses
// completed (vegeta's throughput) and responses per status code, each per
// second.
type Timeline struct {
	bin      int64 // ns
	zero     int64 // bins start at zero + k*bin: the first send time seen, or the anchor
	anchored bool
	bins     map[int64]*tbin
	codes    map[uint16]bool
	first    int64
	last     int64
	n        int64
	// cache of the most recently used bin
	cacheIdx int64
	cacheBin *tbin
}

type tbin struct {
	sent  int64
	done  int64 // successful responses completed in this bin
	codes map[uint16]int64
}

// NewTimeline returns an empty timeline with bins of the given width
// (one second when bin <= 0).
func NewTimeline(bin time.Duration) *Timeline {
	if bin <= 0 {
		bin = time.Second
	}
	return &Timeline{bin: int64(bin), bins: map[int64]*tbin{}, codes: map[uint16]bool{}}
}

// Add counts one result: its send and status code in the bin of its send
// time, its completion (when successful) in the bin of its end time.
func (t *Timeline) Add(r *results.Result) {
	if r.Sent.IsZero() {
		return
	}
	sent := r.Sent.UnixNano()
	if t.n == 0 && !t.anchored {
		t.zero = sent
	}
	b := t.get(floorDiv(sent-t.zero, t.bin))
	b.sent++
	if b.codes == nil {
		b.codes = map[uint16]int64{}
	}
	b.codes[r.Code]++
	t.codes[r.Code] = true
	if r.Success() {
		t.get(floorDiv(sent+int64(r.Latency)-t.zero, t.bin)).done++
	}
	if t.n == 0 || sent < t.first {
		t.first = sent
	}
	t.last = max(t.last, sent)
	t.n++
}

// Anchor makes the bins start at at (at + k*bin) instead of at the first
// send time: the shards of a split attack are counted from the instant
// they all anchored the schedule on, as the single-machine attack's
// requests would be. It has no effect once a result has been added.
func (t *Timeline) Anchor(at time.Time) {
	if t.n == 0 {
		t.zero, t.anchored = at.UnixNano(), true
	}
}

func (t *Timeline) get(i int64) *tbin {
	if t.cacheBin != nil && t.cacheIdx == i {
		return t.cacheBin
	}
	b := t.bins[i]
	if b == nil {
		b = &tbin{}
		t.bins[i] = b
	}
	t.cacheIdx, t.cacheBin = i, b
	return b
}

// Count is the number of results added.
func (t *Timeline) Count() int64 { return t.n }

// span returns the first and last bin indexes.
func (t *Timeline) span() (lo, hi int64) {
	first := true
	for i := range t.bins {
		if first || i < lo {
			lo = i
		}
		if first || i > hi {
			hi = i
		}
		first = false
	}
	return lo, hi
}

// Rates returns two step series in events per second against seconds since
// origin: "sent/s" (the request rate) and "success/s" (throughput).
func (t *Timeline) Rates(origin time.Time) []Series {
	if len(t.bins) == 0 {
		return nil
	}
	sent := t.series(origin, func(b *tbin) int64 { return b.sent })
	done := t.series(origin, func(b *tbin) int64 { return b.done })
	return []Series{
		{Name: "sent/s", Kind: Step, Color: "#1f77b4", Points: sent},
		{Name: "success/s (throughput)", Kind: Step, Color: "#2ca02c", Points: done},
	}
}

// SuccessRatio returns, per bin, the percentage of the requests sent in it
// that got a 2xx or 3xx answer, against seconds since origin (bins with
// nothing sent are left out).
func (t *Timeline) SuccessRatio(origin time.Time) []Point {
	lo, hi := t.span()
	o := origin.UnixNano()
	var pts []Point
	for i := lo; i <= hi; i++ {
		b := t.bins[i]
		if b == nil || b.sent == 0 {
			continue
		}
		var ok int64
		for c, n := range b.codes {
			if c >= 200 && c < 400 {
				ok += n
			}
		}
		pts = append(pts, Point{X: float64(t.zero+i*t.bin-o) / 1e9, Y: 100 * float64(ok) / float64(b.sent)})
	}
	return pts
}

// Codes returns one step series per status code seen, in responses per
// second by send time, named like "200" or "0 (no response)".
func (t *Timeline) Codes(origin time.Time) []Series {
	codes := make([]int, 0, len(t.codes))
	for c := range t.codes {
		codes = append(codes, int(c))
	}
	sort.Ints(codes)
	nth := map[Class]int{}
	out := make([]Series, 0, len(codes))
	for _, c := range codes {
		code := uint16(c)
		name := fmt.Sprint(c)
		if ClassOf(code) == ClassError {
			name += " (no response)"
		}
		cl := ClassOf(code)
		out = append(out, Series{
			Name: name, Kind: Step, Color: CodeColor(code, nth[cl]),
			Points: t.series(origin, func(b *tbin) int64 { return b.codes[code] }),
		})
		nth[cl]++
	}
	return out
}

// series turns per-bin counts into a per-second staircase, empty bins
// between the first and last being zero.
func (t *Timeline) series(origin time.Time, get func(*tbin) int64) []Point {
	lo, hi := t.span()
	o := origin.UnixNano()
	perSec := 1e9 / float64(t.bin)
	pts := make([]Point, 0, hi-lo+2)
	var v float64
	for i := lo; i <= hi; i++ {
		v = 0
		if b := t.bins[i]; b != nil {
			v = float64(get(b)) * perSec
		}
		pts = append(pts, Point{X: float64(t.zero+i*t.bin-o) / 1e9, Y: v})
	}
	return append(pts, Point{X: float64(t.zero+(hi+1)*t.bin-o) / 1e9, Y: v})
}
