package runblock

import (
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// maxOpen is how many blocks a Cutter keeps as live histograms; older
// ones are encoded (a latency histogram takes about 200 KB live and a few
// hundred bytes encoded), and reopened if a late result still falls in
// one. Results arrive in the order they complete, within a timeout of
// their due time, so the blocks still open are the last few.
const maxOpen = 8

// Cutter cuts results into time blocks by their due time as they stream
// (a results.Sink); they may come in any order. Its zero value is not
// usable: make one with NewCutter. It is not safe for concurrent use.
type Cutter struct {
	length time.Duration
	origin time.Time // block 0 starts here
	blocks map[int64]*cutBlock
	open   []int64  // indexes of the blocks with live histograms, oldest first
	whole  LagMeter // the whole stream's lag and latency (for Health)
	maxDue time.Time
	free   []*cutBlock // closed blocks' live histograms, reset, to reuse
}

type cutBlock struct {
	requests, ok uint64
	lat, lag     *hdrhistogram.Histogram // live, or nil when encoded
	latEnc       []byte
	// lagP99 is the lag p99 of the block when it was closed; a result
	// that reopens it (answered more than maxOpen blocks after it was
	// due) raises it to the p99 of those added since if higher.
	lagP99 time.Duration
}

// NewCutter returns a Cutter of blocks of length (BlockLength when ≤ 0)
// starting at origin; a zero origin is the first result's due time.
func NewCutter(origin time.Time, length time.Duration) *Cutter {
	if length <= 0 {
		length = BlockLength
	}
	return &Cutter{length: length, origin: origin, blocks: map[int64]*cutBlock{}}
}

// newLagHistogram holds schedule lags: two significant digits are enough
// for a 99th percentile, and take an eighth of a latency histogram.
func newLagHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(int64(metrics.HistogramLowest/metrics.HistogramUnit), int64(metrics.HistogramHighest/metrics.HistogramUnit), 2)
}

// Add records r in the block its due time falls in (its sent time when it
// has none).
func (c *Cutter) Add(r *results.Result) {
	due := r.Due
	if due.IsZero() {
		due = r.Sent
	}
	c.AddAt(r, due)
}

// AddAt records r in the block instant at falls in, rather than its due
// time: a caller that pairs results by another clock (the two sides of
// a duet by their request pairs) keeps each pair in one block. Its
// latency is still r's from due.
func (c *Cutter) AddAt(r *results.Result, due time.Time) {
	if c.origin.IsZero() {
		c.origin = due
	}
	if due.After(c.maxDue) {
		c.maxDue = due
	}
	d := due.Sub(c.origin)
	i := int64(d / c.length)
	if d < 0 && d%c.length != 0 {
		i--
	}
	b := c.block(i)
	b.requests++
	if r.Success() {
		b.ok++
	}
	metrics.RecordLatency(b.lat, r.DueLatency())
	metrics.RecordLatency(b.lag, r.Lag())
	c.whole.Add(r)
}

// block returns block i with live histograms, encoding the oldest open
// one when too many are.
func (c *Cutter) block(i int64) *cutBlock {
	b := c.blocks[i]
	if b == nil {
		b = &cutBlock{}
		c.blocks[i] = b
	}
	if b.lat != nil {
		return b
	}
	if n := len(c.free); n > 0 {
		b.lat, b.lag = c.free[n-1].lat, c.free[n-1].lag
		c.free = c.free[:n-1]
	} else {
		b.lat, b.lag = metrics.NewHistogram(), newLagHistogram()
	}
	if b.latEnc != nil {
		old, _ := hdrhistogram.Decode(b.latEnc) // encoded by this Cutter: cannot fail
		b.lat.Merge(old)
		b.latEnc = nil
	}
	c.open = append(c.open, i)
	if len(c.open) > maxOpen {
		c.close(c.open[0])
		c.open = c.open[1:]
	}
	return b
}

// close encodes block i's histograms and keeps their live ones to reuse.
func (c *Cutter) close(i int64) {
	b := c.blocks[i]
	b.latEnc, _ = b.lat.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	b.lagP99 = b.lagQuantile()
	b.lat.Reset()
	b.lag.Reset()
	c.free = append(c.free, &cutBlock{lat: b.lat, lag: b.lag})
	b.lat, b.lag = nil, nil
}

// lagQuantile is the open block's lag p99: its live histogram's, or the
// one it had when closed if higher.
func (b *cutBlock) lagQuantile() time.Duration {
	return max(quantile(b.lag, 99), b.lagP99)
}

// Blocks returns the blocks cut so far, in time order, contiguous from
// the first to the last (a block no request was due in has Requests 0
// and no Hist). The first starts at Start 0: the origin, moved back by
// whole blocks when results were due before it. The last is as long as
// the span to its last due time, rounded up to the millisecond.
func (c *Cutter) Blocks() []Block {
	if len(c.blocks) == 0 {
		return nil
	}
	idx := make([]int64, 0, len(c.blocks))
	for i := range c.blocks {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	first, last := idx[0], idx[len(idx)-1]
	out := make([]Block, 0, last-first+1)
	for i := first; i <= last; i++ {
		blk := Block{Start: time.Duration(i-first) * c.length, Length: c.length}
		if b := c.blocks[i]; b != nil {
			blk.Requests, blk.OK = b.requests, b.ok
			if b.lat == nil { // encoded already
				blk.LagP99, blk.Hist = b.lagP99, b.latEnc
			} else {
				blk.LagP99 = b.lagQuantile()
				blk.Hist, _ = b.lat.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			}
		}
		out = append(out, blk)
	}
	lastStart := c.origin.Add(time.Duration(last) * c.length)
	if span := c.maxDue.Sub(lastStart); span < c.length {
		out[len(out)-1].Length = max(span.Truncate(time.Millisecond)+time.Millisecond, time.Millisecond)
	}
	return out
}

// Health is the lag part of the stream's health (LagMeter.Health).
func (c *Cutter) Health() Health { return c.whole.Health() }

// LagMeter measures the lag part of a stream's health as it streams (a
// results.Sink), without cutting it into blocks: what an attack keeps
// while it runs. Its zero value is ready; it is not safe for concurrent
// use.
type LagMeter struct {
	lag, latency *hdrhistogram.Histogram
}

// Add records r's lag and latency from due.
func (m *LagMeter) Add(r *results.Result) {
	if m.lag == nil {
		m.lag, m.latency = newLagHistogram(), metrics.NewHistogram()
	}
	metrics.RecordLatency(m.latency, r.DueLatency())
	metrics.RecordLatency(m.lag, r.Lag())
}

// Health is the lag part of the stream's health: its lag percentiles and
// Noise (lag p99 over latency p99, both from due); the machine's shares
// are Unknown (see Health.WithMachine). Of an empty stream, all unknown.
func (m *LagMeter) Health() Health {
	if m.lag == nil {
		return UnknownHealth()
	}
	return LagHealth(quantile(m.lag, 50), quantile(m.lag, 99), quantile(m.latency, 99))
}

// quantile is h's value at quantile q (0..100), 0 below the histograms'
// resolution (on time), as metrics reports lags.
func quantile(h *hdrhistogram.Histogram, q float64) time.Duration {
	v := time.Duration(h.ValueAtQuantile(q)) * metrics.HistogramUnit
	if v < metrics.HistogramLowest {
		return 0
	}
	return v
}
