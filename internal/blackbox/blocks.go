package blackbox

import (
	"slices"
	"time"
)

// sample is one request of a probe: when it was due, when it went out,
// how long its answer took, and whether it succeeded.
type sample struct {
	due, sent time.Time
	latency   time.Duration
	ok        bool
}

func (s sample) done() time.Time { return s.sent.Add(s.latency) }

// block is one time block of a probe (package runblock's unit of
// evidence: requests of one stretch of time share the machine's state,
// so they are judged together): the successful latencies of the
// requests due in it, the successful answers that arrived in it, and
// whether the machine disturbed it.
type block struct {
	from, to time.Time
	ok       []time.Duration
	answers  int
	exposure time.Duration // the block's time within [first answer, last answer]
	// disturbed: a pause met a request due in the block; paused: a pause
	// met the block's own time (its answers are not the target's pace).
	disturbed, paused bool
}

// blocksPerProbe is how many time blocks a probe is cut into (each at
// least minBlock long): enough for a block bootstrap, few enough that a
// block holds tens of answers at the lowest rate.
const (
	blocksPerProbe = 10
	minBlock       = 200 * time.Millisecond
)

// cut cuts the probe into time blocks by due time, from its first due
// time to its last answer, and marks those the machine disturbed: a
// pause of at least gap (the control probe's, or a request's own
// schedule lag) met a request due in the block between its due time and
// its answer. Its Blocks, LeftOut, LongestPause and LagP99 follow.
func (p *Probe) cut(gap time.Duration) {
	p.blocks, p.Blocks, p.LeftOut, p.LongestPause = nil, 0, 0, 0
	if len(p.samples) == 0 {
		return
	}
	start, end := p.samples[0].due, p.samples[0].done()
	var lags []time.Duration
	pauses := slices.Clone(p.pauses)
	for _, s := range p.samples {
		if s.due.Before(start) {
			start = s.due
		}
		if s.done().After(end) {
			end = s.done()
		}
		lag := max(0, s.sent.Sub(s.due))
		lags = append(lags, lag)
		if lag >= gap {
			pauses = append(pauses, pause{s.due, s.sent})
		}
	}
	p.LagP99 = quantile(lags, 0.99)
	var long []pause
	for _, ps := range pauses {
		if ps.length() >= gap {
			long = append(long, ps)
			p.LongestPause = max(p.LongestPause, ps.length())
		}
	}
	length := max(minBlock, p.Duration/blocksPerProbe)
	n := int(end.Sub(start)/length) + 1
	bs := make([]block, n)
	for i := range bs {
		bs[i].from = start.Add(time.Duration(i) * length)
		bs[i].to = bs[i].from.Add(length)
		if !p.firstOK.IsZero() {
			a, b := maxTime(bs[i].from, p.firstOK), minTime(bs[i].to, p.lastOK)
			bs[i].exposure = max(0, b.Sub(a))
		}
		for _, ps := range long {
			if ps.overlaps(bs[i].from, bs[i].to) {
				bs[i].paused = true
			}
		}
	}
	at := func(t time.Time) *block { return &bs[min(n-1, max(0, int(t.Sub(start)/length)))] }
	for _, s := range p.samples {
		b := at(s.due)
		for _, ps := range long {
			if ps.overlaps(s.due, s.done()) {
				b.disturbed = true
			}
		}
		if s.ok {
			b.ok = append(b.ok, s.latency)
			at(s.done()).answers++
		}
	}
	// Only blocks that hold requests count: the drain after the last due
	// time holds answers only.
	for i := range bs {
		if len(bs[i].ok) > 0 || bs[i].answers > 0 {
			p.blocks = append(p.blocks, bs[i])
			p.Blocks++
			if bs[i].disturbed {
				p.LeftOut++
			}
		}
	}
}

// keptBlocks are the blocks the machine left alone; all of them when it
// disturbed every one (a verdict on nothing helps no one: the note says
// so).
func (p *Probe) keptBlocks() []block {
	var kept []block
	for _, b := range p.blocks {
		if !b.disturbed {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return p.blocks
	}
	return kept
}

// keptOK is the successful latencies of the kept blocks.
func (p *Probe) keptOK() []time.Duration {
	var ls []time.Duration
	for _, b := range p.keptBlocks() {
		ls = append(ls, b.ok...)
	}
	if len(ls) == 0 {
		return p.OKLatencies
	}
	return ls
}

// paceBlocks are the blocks whose own time no pause met, with answers
// due: the target's pace (all of them when every one was met).
func (p *Probe) paceBlocks() []block {
	var kept, all []block
	for _, b := range p.blocks {
		if b.exposure <= 0 {
			continue
		}
		all = append(all, b)
		if !b.paused && !b.disturbed {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		return all
	}
	return kept
}

// throughputOf is the answers per second over the blocks' exposure.
func throughputOf(bs []block) (float64, bool) {
	var n int
	var e time.Duration
	for _, b := range bs {
		n += b.answers
		e += b.exposure
	}
	if e < 10*time.Millisecond || n < 2 {
		return 0, false
	}
	return float64(n) / e.Seconds(), true
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
