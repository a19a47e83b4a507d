package metrics

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"sort"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Options bound what a Metrics keeps. Zero fields take the defaults.
type Options struct {
	// LateAfter is how far past its due time a request must go out to count
	// as late (default 1ms).
	LateAfter time.Duration
	// MaxErrors caps the distinct error texts kept (default 1000); results
	// with further distinct errors are counted in ErrorsOmitted.
	MaxErrors int
	// MaxGroups caps the groups of each breakdown dimension (default 32);
	// further keys are folded into one group named OtherGroup.
	MaxGroups int
	// NoBreakdown disables the per-attack, per-target and per-step groups.
	NoBreakdown bool
	// Owned, when set, is which sequence numbers the accounting expects
	// (see Accounting.Owned): the inputs are some shards of a split attack.
	Owned func(seq uint64) bool
	// Planned is, per attack name, how many requests its schedule planned
	// (results.Meta.Planned): the accounting then also counts the planned
	// requests never recorded (see Accounting.NeverRecorded).
	Planned map[string]uint64
	// Basis is what Latencies are measured from (FromDue by default).
	Basis Basis
}

// Defaults for Options.
const (
	DefaultLateAfter = time.Millisecond
	DefaultMaxErrors = 1000
	DefaultMaxGroups = 32
	// maxErrorLen truncates error texts kept in the error set.
	maxErrorLen = 4096
)

func (o Options) withDefaults() Options {
	if o.LateAfter <= 0 {
		o.LateAfter = DefaultLateAfter
	}
	if o.MaxErrors <= 0 {
		o.MaxErrors = DefaultMaxErrors
	}
	if o.MaxGroups <= 0 {
		o.MaxGroups = DefaultMaxGroups
	}
	return o
}

// Bytes sums bytes transferred.
type Bytes struct {
	Total uint64  // all bytes
	Mean  float64 // Total / Requests (set by Close)
}

// ErrorCount is one distinct error text and how many results had it.
type ErrorCount struct {
	Text  string
	Count uint64

	first time.Time // earliest send (or due, when never sent) time of a result with it
}

// Lag describes how late requests went out relative to their due time.
type Lag struct {
	Late  uint64        // requests sent more than Options.LateAfter after due
	Max   time.Duration // largest lag
	Total time.Duration // sum of all lags
	Mean  time.Duration // Total / requests with a due time (set by Close)
	// P99 is the lag 99% of the requests with a due time stayed within (set
	// by Close; groups and intervals leave it 0): whether the generator
	// kept its schedule, where Max is one outlier.
	P99 time.Duration
	// P50 is the median lag (set by Close, as P99): the generator's
	// typical own share of a due-based latency.
	P50 time.Duration

	hist *hdrhistogram.Histogram
}

// Metrics accumulates results. Add them with Add, then call Close once to
// compute the derived figures. It is not safe for concurrent use.
type Metrics struct {
	Requests    uint64        // results added (dropped ones included)
	Successes   uint64        // responses with a status code in 200..399
	Success     float64       // Successes / Requests (set by Close)
	Rate        float64       // Requests per second of attack Duration (set by Close)
	Throughput  float64       // Successes per second of Duration+Wait (set by Close)
	Earliest    time.Time     // earliest send time
	Latest      time.Time     // latest send time
	End         time.Time     // latest send time plus latency
	Duration    time.Duration // Latest - Earliest: the attack (set by Close)
	Wait        time.Duration // End - Latest: waiting for the last responses (set by Close)
	BytesIn     Bytes
	BytesOut    Bytes
	StatusCodes map[uint16]uint64 // responses per status code (0: no response); complete once closed

	codes codeTally // the first few codes' counts, folded into StatusCodes by Close

	// Latencies run from Options.Basis to the end of the response. By
	// default that is the due time: what a user arriving on schedule
	// waited (no coordinated omission). For input without due times
	// (vegeta's files) both bases give the same latencies.
	Latencies Latencies
	// OtherLatencies run from the other basis (the send time, as vegeta
	// measures them, by default). Groups and intervals leave them empty.
	OtherLatencies Latencies

	Errors        []ErrorCount // distinct errors in first-seen order
	ErrorsOmitted uint64       // results whose error did not fit in Errors (Options.MaxErrors)
	Lag           Lag
	Dropped       uint64 // requests never sent: the in-flight bound was reached
	Lagged        uint64 // results whose send time is after their due time
	// Accounting checks every scheduled request was recorded once; nil in
	// groups and intervals.
	Accounting *Accounting

	// Window, when set, makes Rate and Throughput per second of Window
	// instead of vegeta's durations (used for per-interval figures).
	Window time.Duration

	opts      Options
	errIdx    map[string]int
	breakdown *Breakdown
	closed    bool
	oneBasis  bool // groups and intervals keep one histogram, not two
}

// New returns an empty Metrics with default options.
func New() *Metrics { return NewWith(Options{}) }

// NewWith returns an empty Metrics with the given options.
func NewWith(o Options) *Metrics {
	o = o.withDefaults()
	m := &Metrics{
		StatusCodes: make(map[uint16]uint64),
		Errors:      []ErrorCount{},
		opts:        o,
		errIdx:      make(map[string]int),
	}
	if !o.NoBreakdown {
		m.breakdown = newBreakdown(o)
		m.Accounting = &Accounting{Owned: o.Owned, Planned: o.Planned}
	}
	return m
}

// sample is what Add derives from a result once, for every Metrics the
// result is added to (the whole run and its breakdown groups).
type sample struct {
	end     time.Time
	lag     time.Duration
	latency time.Duration // from the basis
	other   time.Duration // from the other basis
	success bool
	dropped bool
}

func sampleOf(r *results.Result, b Basis) sample {
	return sample{end: r.End(), lag: r.Lag(), latency: b.Latency(r), other: b.Other().Latency(r),
		success: r.Success(), dropped: r.Dropped()}
}

var _ results.Sink = (*Metrics)(nil)

// Add accounts for one result. r is not retained.
func (m *Metrics) Add(r *results.Result) {
	s := sampleOf(r, m.opts.Basis)
	m.addOwn(r, &s)
	if m.Accounting != nil {
		m.Accounting.add(r)
	}
	if m.breakdown != nil {
		m.breakdown.add(r, &s)
	}
}

func (m *Metrics) addOwn(r *results.Result, s *sample) {
	m.Requests++
	m.codes.add(r.Code, m.StatusCodes)
	m.BytesIn.Total += r.BytesIn
	m.BytesOut.Total += r.BytesOut
	if m.Earliest.IsZero() || r.Sent.Before(m.Earliest) {
		m.Earliest = r.Sent
	}
	if r.Sent.After(m.Latest) {
		m.Latest = r.Sent
	}
	if s.end.After(m.End) {
		m.End = s.end
	}
	if s.success {
		m.Successes++
	}
	if r.Error != "" {
		at := r.Sent
		if at.IsZero() {
			at = r.Due
		}
		m.addError(r.Error, 1, at)
	}
	if s.dropped {
		m.Dropped++
		return
	}
	if !m.oneBasis && !r.Due.IsZero() {
		if m.Lag.hist == nil {
			m.Lag.hist = NewHistogram()
		}
		RecordLatency(m.Lag.hist, s.lag)
	}
	if s.lag > 0 {
		m.Lagged++
		m.Lag.Total += s.lag
		m.Lag.Max = max(m.Lag.Max, s.lag)
		if s.lag > m.opts.LateAfter {
			m.Lag.Late++
		}
	}
	if !m.oneBasis {
		m.OtherLatencies.add(s.other)
	}
	m.Latencies.add(s.latency)
}

func (m *Metrics) addError(e string, n uint64, at time.Time) {
	if len(e) > maxErrorLen {
		e = e[:maxErrorLen]
	}
	if i, ok := m.errIdx[e]; ok {
		m.Errors[i].Count += n
		if at.Before(m.Errors[i].first) {
			m.Errors[i].first = at
		}
		return
	}
	if len(m.Errors) >= m.opts.MaxErrors {
		m.ErrorsOmitted += n
		return
	}
	m.errIdx[e] = len(m.Errors)
	m.Errors = append(m.Errors, ErrorCount{Text: e, Count: n, first: at})
}

// Close computes the derived figures (rates, durations, means,
// percentiles), for this Metrics and its breakdown groups. Calling it again
// after more Adds recomputes them.
func (m *Metrics) Close() {
	m.codes.fold(m.StatusCodes)
	m.closed = true
	m.Latencies.close()
	m.OtherLatencies.close()
	if m.breakdown != nil {
		m.breakdown.close()
	}
	if m.Accounting != nil {
		m.Accounting.close()
	}
	if m.Requests == 0 {
		return
	}
	// vegeta's lib/metrics.go Close, to the letter
	m.Rate = float64(m.Requests)
	m.Throughput = float64(m.Successes)
	m.Duration = m.Latest.Sub(m.Earliest)
	m.Wait = m.End.Sub(m.Latest)
	if secs := m.Duration.Seconds(); secs > 0 {
		m.Rate /= secs
		m.Throughput /= (m.Duration + m.Wait).Seconds()
	}
	if m.Window > 0 {
		m.Rate = float64(m.Requests) / m.Window.Seconds()
		m.Throughput = float64(m.Successes) / m.Window.Seconds()
	}
	m.BytesIn.Mean = float64(m.BytesIn.Total) / float64(m.Requests)
	m.BytesOut.Mean = float64(m.BytesOut.Total) / float64(m.Requests)
	m.Success = float64(m.Successes) / float64(m.Requests)
	if n := m.Latencies.Count; n > 0 {
		m.Lag.Mean = time.Duration(float64(m.Lag.Total) / float64(n))
	}
	if m.Lag.hist != nil {
		v := time.Duration(m.Lag.hist.ValueAtQuantile(99)) * HistogramUnit
		if v < HistogramLowest {
			v = 0 // below the histogram's resolution: on time
		}
		m.Lag.P99 = min(v, m.Lag.Max)
		v = time.Duration(m.Lag.hist.ValueAtQuantile(50)) * HistogramUnit
		if v < HistogramLowest {
			v = 0
		}
		m.Lag.P50 = min(v, m.Lag.Max)
	}
}

// Quantile is the latency at quantile q (0..1) from the basis; see
// Latencies.Quantile.
func (m *Metrics) Quantile(q float64) time.Duration { return m.Latencies.Quantile(q) }

// DueDiffers reports whether any request went out after its due time, so
// latencies from the due time differ from those from the send time.
func (m *Metrics) DueDiffers() bool { return m.Lagged > 0 }

// Basis is what Latencies are measured from.
func (m *Metrics) Basis() Basis { return m.opts.Basis }

// Codes returns the status codes seen, in ascending order.
func (m *Metrics) Codes() []uint16 {
	m.codes.fold(m.StatusCodes)
	cs := make([]uint16, 0, len(m.StatusCodes))
	for c := range m.StatusCodes {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	return cs
}

// ErrorTexts returns the distinct errors in first-seen order.
func (m *Metrics) ErrorTexts() []string {
	out := make([]string, len(m.Errors))
	for i, e := range m.Errors {
		out[i] = e.Text
	}
	return out
}

// Breakdown returns the per-attack, per-target and per-step groups, or nil
// when disabled.
func (m *Metrics) Breakdown() *Breakdown { return m.breakdown }

// Merge adds the figures of o (closed or not) into m, e.g. to combine
// shards aggregated separately. Breakdown groups are merged by key.
func (m *Metrics) Merge(o *Metrics) {
	m.mergeOwn(o)
	if m.Accounting != nil {
		m.Accounting.merge(o.Accounting)
	}
	if m.breakdown != nil && o.breakdown != nil {
		m.breakdown.merge(o.breakdown)
	}
}

func (m *Metrics) mergeOwn(o *Metrics) {
	if o.Requests == 0 {
		return
	}
	m.Requests += o.Requests
	m.Successes += o.Successes
	m.BytesIn.Total += o.BytesIn.Total
	m.BytesOut.Total += o.BytesOut.Total
	if m.Earliest.IsZero() || (!o.Earliest.IsZero() && o.Earliest.Before(m.Earliest)) {
		m.Earliest = o.Earliest
	}
	if o.Latest.After(m.Latest) {
		m.Latest = o.Latest
	}
	if o.End.After(m.End) {
		m.End = o.End
	}
	o.codes.fold(o.StatusCodes)
	m.codes.fold(m.StatusCodes)
	for c, n := range o.StatusCodes {
		m.StatusCodes[c] += n
	}
	for _, e := range o.Errors {
		m.addError(e.Text, e.Count, e.first)
	}
	m.ErrorsOmitted += o.ErrorsOmitted
	m.Latencies.merge(&o.Latencies)
	m.OtherLatencies.merge(&o.OtherLatencies)
	m.Lag.Late += o.Lag.Late
	m.Lag.Total += o.Lag.Total
	m.Lag.Max = max(m.Lag.Max, o.Lag.Max)
	if o.Lag.hist != nil {
		if m.Lag.hist == nil {
			m.Lag.hist = NewHistogram()
		}
		m.Lag.hist.Merge(o.Lag.hist)
	}
	m.Dropped += o.Dropped
	m.Lagged += o.Lagged
}
