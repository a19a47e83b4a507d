package metrics

import (
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// MaxOpenIntervals bounds how many intervals Intervals keeps open at once.
// Results arrive in completion order, so a slow request lands after faster
// ones sent later; an interval stays open until a result sent
// MaxOpenIntervals intervals later arrives.
const MaxOpenIntervals = 32

// Interval is the (non-cumulative) figures of the results sent in
// [Start, End). Rate and Throughput are per second of the interval.
type Interval struct {
	Start, End time.Time
	*Metrics
}

// Intervals splits results by send time into consecutive intervals of a
// fixed length, aligned on multiples of it since the Unix epoch, and hands
// each one, closed, to emit in time order. Empty intervals between two
// non-empty ones are emitted too.
type Intervals struct {
	every   time.Duration
	opts    Options
	emit    func(*Interval) error
	open    map[int64]*Interval // by interval number
	first   int64               // lowest interval number not yet emitted, once started
	last    int64               // highest interval number seen
	any     bool                // a result was added
	started bool                // an interval was emitted
	err     error

	// Stragglers counts results that arrived after their interval had been
	// emitted (more than MaxOpenIntervals intervals late); they are left
	// out of the interval figures.
	Stragglers uint64
}

// NewIntervals returns an Intervals of length every (> 0) calling emit for
// each finished interval.
func NewIntervals(every time.Duration, o Options, emit func(*Interval) error) *Intervals {
	o.NoBreakdown = true
	return &Intervals{every: every, opts: o, emit: emit, open: make(map[int64]*Interval)}
}

// Add accounts for r in its interval, emitting intervals that can no longer
// receive results. It returns emit's first error.
func (iv *Intervals) Add(r *results.Result) error {
	if iv.err != nil {
		return iv.err
	}
	n := r.Sent.UnixNano() / int64(iv.every)
	if r.Sent.UnixNano() < 0 {
		n--
	}
	if !iv.any {
		iv.any, iv.last = true, n
	}
	if iv.started && n < iv.first {
		iv.Stragglers++
		return nil
	}
	iv.last = max(iv.last, n)
	in, ok := iv.open[n]
	if !ok {
		start := time.Unix(0, n*int64(iv.every))
		m := newChild(iv.opts)
		m.Window = iv.every
		in = &Interval{Start: start, End: start.Add(iv.every), Metrics: m}
		iv.open[n] = in
	}
	s := sampleOf(r)
	in.addOwn(r, &s)
	return iv.flush(iv.last - MaxOpenIntervals + 1)
}

// maxEmptyRun bounds the empty intervals emitted in a row (a gap between
// merged files hours apart is skipped rather than listed).
const maxEmptyRun = 1000

// flush emits every interval numbered below upTo.
func (iv *Intervals) flush(upTo int64) error {
	if len(iv.open) == 0 {
		return iv.err
	}
	lowest := iv.lowestOpen()
	if !iv.started {
		if lowest >= upTo {
			return iv.err
		}
		iv.started, iv.first = true, lowest
	}
	for ; iv.first < upTo && iv.err == nil; iv.first++ {
		in, ok := iv.open[iv.first]
		if !ok && len(iv.open) > 0 && iv.lowestOpen()-iv.first > maxEmptyRun {
			iv.first = min(iv.lowestOpen(), upTo) - 1
			continue
		}
		if !ok {
			start := time.Unix(0, iv.first*int64(iv.every))
			m := newChild(iv.opts)
			m.Window = iv.every
			in = &Interval{Start: start, End: start.Add(iv.every), Metrics: m}
		}
		delete(iv.open, iv.first)
		in.Close()
		iv.err = iv.emit(in)
	}
	return iv.err
}

func (iv *Intervals) lowestOpen() int64 {
	lowest := int64(1<<63 - 1)
	for n := range iv.open {
		lowest = min(lowest, n)
	}
	return lowest
}

// Close emits the intervals still open.
func (iv *Intervals) Close() error {
	if !iv.any {
		return iv.err
	}
	return iv.flush(iv.last + 1)
}
