package compare

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loadlab/loadlab/internal/results"
)

// Unit is the resolution latencies are recorded at in a Run's histogram.
const Unit = time.Microsecond

// Histogram range: 1µs to one hour, 3 significant digits.
const (
	lowest  = 1
	highest = int64(time.Hour / Unit)
	sigfigs = 3
)

// Run is one side of a comparison: a name, the latency histogram of all its
// requests (in Unit) and how many succeeded.
type Run struct {
	Name  string
	Group string // runs are compared within their group (see Load)
	Hist  *hdrhistogram.Histogram
	OK    int64 // successful requests (2xx/3xx)
	N     int64 // all requests
}

// NewRun returns an empty run.
func NewRun(name string) *Run {
	return &Run{Name: name, Hist: hdrhistogram.New(lowest, highest, sigfigs)}
}

// Add records one result, as vegeta report counts it: every request's
// latency, and whether it succeeded.
func (r *Run) Add(res *results.Result) {
	r.Record(res.Latency, res.Success())
}

// Record records one request's latency and outcome.
func (r *Run) Record(latency time.Duration, ok bool) {
	v := min(max(int64(latency/Unit), 0), highest)
	_ = r.Hist.RecordValue(v)
	r.N++
	if ok {
		r.OK++
	}
}
