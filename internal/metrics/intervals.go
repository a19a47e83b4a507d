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
// [Start, End). Rate and Throughput are per second of the interval, or of
// its Covered part when the interval is Partial.
type Interval struct {
	Start, End time.Time
	// Partial is set on the first and last intervals of a run when the
	// run covers only part of them: a run starting at 12:00:00.905 covers
	// the last 95 ms of the interval [12:00:00, 12:00:01).
	Partial bool
	// Covered is the part of the interval the run covered: from the first
	// send (first interval) to one send interval after the last send (last
	// interval), the send interval being the mean gap between the
	// interval's sends. It is End - Start for a full interval.
	Covered time.Duration
	*Metrics
}

// Intervals splits results by send time into consecutive intervals of a
// fixed length, aligned on multiples of it since the Unix epoch, and hands
// each one, closed, to emit in time order. Empty intervals between two
// non-empty ones are emitted too. It is a results.Sink: emit's first error
// stops it and is returned by Close.
type Intervals struct {
	every   time.Duration
	opts    Options
	emit    func(*Interval) error
	open    map[int64]*Interval // by interval number
	first   int64               // lowest interval number not yet emitted, once started
	last    int64               // highest interval number seen
	any     bool                // a result was added
	started bool                // the first interval is known
	emitted bool                // an interval was emitted
	closing bool                // Close is emitting the last intervals
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

var _ results.Sink = (*Intervals)(nil)

// Add accounts for r in its interval, emitting intervals that can no longer
// receive results.
func (iv *Intervals) Add(r *results.Result) {
	if iv.err != nil {
		return
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
		return
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
	s := sampleOf(r, iv.opts.Basis)
	in.addOwn(r, &s)
	_ = iv.flush(iv.last - MaxOpenIntervals + 1)
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
		iv.cover(in, !iv.emitted, iv.closing && iv.first == iv.last)
		iv.emitted = true
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

// Err is emit's first error, if any; the results added after it are not
// counted.
func (iv *Intervals) Err() error { return iv.err }

// Close emits the intervals still open and returns emit's first error.
func (iv *Intervals) Close() error {
	if !iv.any {
		return iv.err
	}
	iv.closing = true
	return iv.flush(iv.last + 1)
}

// cover sets in.Covered and in.Partial, and makes its rates per second of
// the covered span. Only the run's first and last intervals can be partial:
// the first is covered from its first send to its end, the last from its
// start to one send interval after its last send.
func (iv *Intervals) cover(in *Interval, first, last bool) {
	in.Covered = iv.every
	if in.Requests == 0 || !(first || last) || (first && last && in.Requests == 1) {
		return // a lone request says nothing of the span it covers
	}
	from, to := in.Start, in.End
	if first {
		from = in.Earliest
	}
	if last && in.Requests > 1 {
		gap := in.Latest.Sub(in.Earliest) / time.Duration(in.Requests-1)
		if end := in.Latest.Add(gap); end.Before(to) {
			to = end
		}
	}
	covered := to.Sub(from)
	// Jitter of less than one send interval is not a partial interval.
	if slack := iv.every / time.Duration(in.Requests); covered > 0 && covered < iv.every-slack {
		in.Partial, in.Covered = true, covered
		in.Window = covered
	}
}
