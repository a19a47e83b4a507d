package findings

import (
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/results"
)

// point is one request, as the staircase needs it: due time (seconds from
// the step's first request), due-based latency and status.
type point struct {
	t, lat float32
	code   uint16
	ok     bool
}

// maxPoints bounds the memory a scenario's points take (12 bytes each).
const maxPoints = 1 << 21

// MeasureStaircases measures the pool staircase of every scenario of the
// run in dir from its results stream, and records it in the summary (nil
// where latency did not climb in one). A stream that cannot be read
// leaves its scenario without a staircase.
func MeasureStaircases(dir string, sum *summary.Summary) {
	for _, st := range sum.Steps {
		for _, sc := range st.Scenarios {
			sc.Staircase = nil
			if tl, err := readTimeline(filepath.Join(dir, sc.Results)); err == nil {
				sc.Staircase = measureStaircase(tl.pts)
			}
		}
	}
}

// readTimeline reads a results stream's points, up to a torn or corrupt
// block (what a crash leaves).
func readTimeline(path string) (*timeline, error) {
	src, err := results.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	tl := &timeline{}
	if _, _, err := results.ReadAll(src, tl, results.KeepBefore); err != nil {
		return nil, err
	}
	return tl, nil
}

// timeline collects a scenario's points.
type timeline struct {
	origin time.Time
	pts    []point
}

var _ results.Sink = (*timeline)(nil)

// Add keeps r as a point, up to maxPoints.
func (tl *timeline) Add(r *results.Result) {
	if len(tl.pts) >= maxPoints || r.Dropped() {
		return
	}
	at := r.Due
	if at.IsZero() {
		at = r.Sent
	}
	if tl.origin.IsZero() {
		tl.origin = at
	}
	tl.pts = append(tl.pts, point{t: float32(at.Sub(tl.origin).Seconds()), lat: float32(r.DueLatency().Seconds()), code: r.Code, ok: r.Success()})
}

// plateau is a run of consecutive requests (by send time) whose latencies
// stay within the tolerance of their running mean.
type plateau struct {
	start, level float64
	n            int
	first, last  int // indexes of its first and last request
}

// measureStaircase finds the staircase in a scenario's points, or returns
// nil when latency did not climb in at least two regular steps.
//
// The method: take the successful requests in order of due time and smooth
// their due-based latencies with a running median of 5 (one slow or fast
// request does not break a plateau). Walk them, opening a new plateau
// whenever a latency leaves the current plateau's mean by more than the
// tolerance: 4× the noise (the median difference between consecutive
// latencies, which within plateaus is jitter only), at least 1% of the
// median latency and 20 ms. Plateaus of fewer
// than 3 requests are transitions and are dropped; neighbours left at the
// same level are merged. The staircase is the longest run of plateaus each
// higher than the last. Its final rise is dropped when it is smaller than
// the others (the ceiling cut it short), and what remains must be at
// least two rises whose heights and lengths are each within ×0.5–1.5 of
// their median: a flat latency has one plateau and a single jump one rise,
// and neither is a staircase.
func measureStaircase(pts []point) *summary.Staircase {
	var ok []point
	var failed []float64
	codes := map[string]int{}
	for _, p := range pts {
		if p.ok {
			ok = append(ok, p)
			continue
		}
		failed = append(failed, float64(p.lat))
		c := "error"
		if p.code != 0 {
			c = strconv.Itoa(int(p.code))
		}
		codes[c]++
	}
	if len(ok) < 12 {
		return nil
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].t < ok[j].t })
	lats := make([]float64, len(ok))
	for i, p := range ok {
		lats[i] = float64(p.lat)
	}
	diffs := make([]float64, len(lats)-1)
	for i := range diffs {
		diffs[i] = abs(lats[i+1] - lats[i])
	}
	tol := max(0.02, 0.01*median(lats), 4*median(diffs))
	smooth := make([]float64, len(ok))
	for i := range ok {
		smooth[i] = median(lats[max(0, i-2):min(len(lats), i+3)])
	}
	var plats []plateau
	var cur *plateau
	for i, v := range smooth {
		if cur != nil && abs(v-cur.level) <= tol {
			cur.level += (v - cur.level) / float64(cur.n+1)
			cur.n++
			cur.last = i
			continue
		}
		plats = append(plats, plateau{start: float64(ok[i].t), level: v, n: 1, first: i, last: i})
		cur = &plats[len(plats)-1]
	}
	var kept []plateau
	for _, p := range plats {
		if p.n < 3 {
			continue
		}
		if k := len(kept); k > 0 && abs(p.level-kept[k-1].level) <= tol {
			last := &kept[k-1]
			last.level = (last.level*float64(last.n) + p.level*float64(p.n)) / float64(last.n+p.n)
			last.n += p.n
			last.last = p.last
			continue
		}
		kept = append(kept, p)
	}
	// The longest rising run.
	bestA, bestB := 0, 0
	for a := 0; a < len(kept); {
		b := a
		for b+1 < len(kept) && kept[b+1].level > kept[b].level+tol {
			b++
		}
		if b-a > bestB-bestA {
			bestA, bestB = a, b
		}
		a = b + 1
	}
	run := kept[bestA : bestB+1]
	if len(run) < 3 {
		return nil
	}
	var rises, lengths []float64
	for i := 1; i < len(run); i++ {
		rises = append(rises, run[i].level-run[i-1].level)
		lengths = append(lengths, run[i].start-run[i-1].start)
	}
	if n := len(rises); n >= 3 && rises[n-1] < 0.85*median(rises[:n-1]) {
		rises, lengths = rises[:n-1], lengths[:n-1]
	}
	if len(rises) < 2 || !regular(rises) || !regular(lengths) {
		return nil
	}
	// A queue that grows steadily (more requests than workers, but no
	// batches) also cuts into regular pieces of one tolerance each; its
	// pieces drift as much as they rise. A plateau is flat: its last third
	// sits within half a rise of its first.
	for _, p := range run[:len(rises)] {
		if drift(smooth[p.first:p.last+1]) > 0.5*median(rises) {
			return nil
		}
	}
	// The ceiling is the highest smoothed latency: a lone slow request
	// (a stall of the machine) is not the pool's ceiling.
	maxOK := 0.0
	for _, v := range smooth {
		maxOK = max(maxOK, v)
	}
	s := &summary.Staircase{Steps: len(rises), StepLength: mean(lengths), Increment: mean(rises), Base: run[0].level,
		Top: run[len(run)-1].level, MaxOK: maxOK, Failures: len(failed)}
	if len(failed) > 0 {
		s.FailAt = median(failed)
		for c, n := range codes {
			if n > codes[s.FailStatus] || (n == codes[s.FailStatus] && c < s.FailStatus) {
				s.FailStatus = c
			}
		}
	}
	return s
}

// drift is how far the last third of a plateau's latencies sits above its
// first third (medians).
func drift(lats []float64) float64 {
	k := max(1, len(lats)/3)
	return median(lats[len(lats)-k:]) - median(lats[:k])
}

// regular reports whether every value is within ×0.5–1.5 of the median.
func regular(xs []float64) bool {
	m := median(xs)
	for _, x := range xs {
		if x < 0.5*m || x > 1.5*m {
			return false
		}
	}
	return m > 0
}

// median returns the median of xs without reordering it.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
