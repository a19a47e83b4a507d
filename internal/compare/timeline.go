package compare

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// This file cuts a run into time blocks for the run-level verdicts
// (judge.go): results are kept per slot of slotLength by due time (latency
// is measured from it), as the non-empty buckets of a metrics.NewHistogram
// histogram, and the slots are joined into blocks of about
// runblock.BlockLength when judged (blocks).

// slotLength is the grain a run's results are kept at; a block is whole
// slots.
const slotLength = 250 * time.Millisecond

// openSlots is how many slots behind the latest one a slot's histogram
// stays open (results arrive in completion order); a later straggler
// opens it again.
const openSlots = 8

// minBlocks is how many blocks a run is cut into at least when it is
// shorter than minBlocks block lengths (a 6 s run: 10 blocks of 0.5 s),
// and the fewest a side needs to be judged.
const (
	minBlocks    = 10
	judgedBlocks = 4
)

// bar is one non-empty histogram bucket: its value range, ns, and count.
type bar struct {
	from, to int64
	count    int64
}

// slot is the results due in one slotLength of a run.
type slot struct {
	n, ok int64 // requests (dropped ones included) and successes
	bars  []bar // latencies: the non-empty buckets, by their highest value
	open  *hdrhistogram.Histogram
}

// clock is the instant a run's slots are counted from: its first due
// time. The two sides of a duet share one, so their blocks are the same
// stretches of time.
type clock struct {
	origin  time.Time
	started bool
}

// timeline is a run's results cut into slots.
type timeline struct {
	basis metrics.Basis
	clock *clock
	// pairsPerSlot, for a duet's sides, cuts slots by request pairs
	// rather than by time: the result of sequence number s is in slot
	// (s/2)/pairsPerSlot, so the two requests of a pair (2k, 2k+1: one of
	// each side) are always in the same slot. 0: by due time.
	pairsPerSlot int
	slots        map[int]*slot
	latest       int
	free         []*hdrhistogram.Histogram
}

func newTimeline(basis metrics.Basis, c *clock) *timeline {
	if c == nil {
		c = &clock{}
	}
	return &timeline{basis: basis, clock: c, slots: map[int]*slot{}}
}

// add records r in the slot of its due time (its send time when the due
// time is unknown), or of its pair (pairsPerSlot); a result with neither
// time is not cut.
func (t *timeline) add(r *results.Result) {
	at := r.Due
	if at.IsZero() {
		at = r.Sent
	}
	if at.IsZero() {
		return
	}
	if !t.clock.started {
		t.clock.origin, t.clock.started = at, true
	}
	i := max(0, int(at.Sub(t.clock.origin)/slotLength))
	if t.pairsPerSlot > 0 {
		i = int(r.Seq / 2 / uint64(t.pairsPerSlot))
	}
	s := t.slots[i]
	if s == nil {
		s = &slot{}
		t.slots[i] = s
	}
	s.n++
	if r.Success() {
		s.ok++
	}
	if !r.Dropped() {
		if s.open == nil {
			s.open = t.histogram()
		}
		metrics.RecordLatency(s.open, t.basis.Latency(r))
	}
	if i > t.latest {
		t.latest = i
		t.flush(i - openSlots)
	}
}

// histogram returns an empty histogram, reusing a flushed one.
func (t *timeline) histogram() *hdrhistogram.Histogram {
	if n := len(t.free); n > 0 {
		h := t.free[n-1]
		t.free = t.free[:n-1]
		return h
	}
	return metrics.NewHistogram()
}

// flush folds the open histograms of the slots before upTo into their
// bars.
func (t *timeline) flush(upTo int) {
	for i, s := range t.slots {
		if i >= upTo || s.open == nil {
			continue
		}
		var bars []bar
		for _, b := range s.open.Distribution() {
			if b.Count > 0 {
				bars = append(bars, bar{from: b.From, to: b.To, count: b.Count})
			}
		}
		s.bars = mergeBars(s.bars, bars)
		s.open.Reset()
		t.free = append(t.free, s.open)
		s.open = nil
	}
}

// span is the number of slots from the clock's origin to the last one.
func (t *timeline) span() int {
	if len(t.slots) == 0 {
		return 0
	}
	return t.latest + 1
}

// blockSlots is how many slots make one block of a run of span slots:
// runblock.BlockLength, or less so that a short run has minBlocks.
func blockSlots(span int) int {
	per := int(runblock.BlockLength / slotLength)
	if span < per*minBlocks {
		per = max(1, span/minBlocks)
	}
	return per
}

// blocks joins the slots into blocks of per slots, over span slots (the
// last block possibly shorter): each block's bars and counts.
func (t *timeline) blocks(per, span int) []*slot {
	t.flush(t.latest + 1)
	out := make([]*slot, 0, (span+per-1)/per)
	for start := 0; start < span; start += per {
		b := &slot{}
		for i := start; i < start+per && i < span; i++ {
			s := t.slots[i]
			if s == nil {
				continue
			}
			b.n += s.n
			b.ok += s.ok
			b.bars = mergeBars(b.bars, s.bars)
		}
		out = append(out, b)
	}
	return out
}

// mergeBars merges two lists of bars sorted by their highest value into a
// new one, adding the counts of the same bucket.
func mergeBars(a, b []bar) []bar {
	out := make([]bar, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].to < b[0].to:
			out, a = append(out, a[0]), a[1:]
		case b[0].to < a[0].to:
			out, b = append(out, b[0]), b[1:]
		default:
			m := a[0]
			m.count += b[0].count
			out, a, b = append(out, m), a[1:], b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}
