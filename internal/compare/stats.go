package compare

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Stat is a statistic compared between runs.
type Stat int

// The statistics compared, in table order.
const (
	Mean Stat = iota
	P50
	P90
	P99
	Success
	// P95 is not in the comparison table (Stats); the trend verdicts of
	// the run archive judge it (CompareStat).
	P95
	// Throughput is the successful answers a second (as `loadlab report`
	// prints it): a closed loop's outcome, compared first for runs of one
	// (Run.Users), not in the table of paced runs.
	Throughput
	numStats
)

// Stats lists every Stat in table order.
var Stats = []Stat{Mean, P50, P90, P99, Success}

// String names the statistic as the table shows it.
func (s Stat) String() string {
	return [...]string{"mean", "p50", "p90", "p99", "success", "p95", "throughput"}[s]
}

// quantile of each percentile Stat.
var quantileOf = map[Stat]float64{P50: 0.50, P90: 0.90, P95: 0.95, P99: 0.99}

// percentiles lists the percentile Stats.
var percentiles = []Stat{P50, P90, P95, P99}

// buckets is a run's histogram flattened to its non-empty buckets plus the
// failure count, the form the bootstrap resamples, with the run's exact
// figures (from package metrics) for the point estimates.
type buckets struct {
	mid    []float64 // bucket midpoint, ms (for the mean)
	top    []float64 // bucket's highest equivalent value, ms (for percentiles, as HdrHistogram reports them)
	count  []int64
	ok, ko int64
	secs   float64           // the seconds the throughput is counted over (0: not known)
	exact  [numStats]float64 // the run's statistics as report prints them
	seed   uint64            // from the run's content, for its resamples
}

func flatten(r *Run) buckets {
	var b buckets
	l := r.Latencies()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	if h := l.Histogram(); h != nil {
		unit := float64(metrics.HistogramUnit) / float64(time.Millisecond)
		for _, bar := range h.Distribution() {
			if bar.Count == 0 {
				continue
			}
			b.mid = append(b.mid, float64(bar.From+bar.To)/2*unit)
			b.top = append(b.top, float64(bar.To)*unit)
			b.count = append(b.count, bar.Count)
		}
	}
	b.ok, b.ko = r.OK(), r.N()-r.OK()
	r.Metrics.Close()
	switch {
	case r.Metrics.Duration > 0:
		b.secs = (r.Metrics.Duration + r.Metrics.Wait).Seconds()
	case r.Span > 0:
		b.secs = r.Span.Seconds()
	}
	b.exact = b.values(b.count, b.ok, b.ko)
	if l.Count > 0 {
		b.exact[Mean] = ms(l.Mean)
		for _, s := range percentiles {
			b.exact[s] = ms(l.Quantile(quantileOf[s]))
		}
	}
	if r.N() > 0 {
		b.exact[Success] = 100 * r.Metrics.Success
	}
	b.seed = b.contentSeed()
	return b
}

// contentSeed hashes the run's histogram and counts, so that a run's
// resamples depend on its content only, not on the other runs compared.
func (b *buckets) contentSeed() uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(buf[:], v); h.Write(buf[:]) }
	for i, c := range b.count {
		put(math.Float64bits(b.top[i]))
		put(uint64(c))
	}
	put(uint64(b.ok))
	put(uint64(b.ko))
	return h.Sum64()
}

// values computes every Stat from bucket counts (latencies in ms, success
// as a percentage). NaN marks a statistic of an empty run.
func (b *buckets) values(counts []int64, ok, ko int64) [numStats]float64 {
	var out [numStats]float64
	var n int64
	var sum float64
	for i, c := range counts {
		n += c
		sum += float64(c) * b.mid[i]
	}
	if n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
	} else {
		out[Mean] = sum / float64(n)
		for _, s := range percentiles {
			// Same rank rule as HdrHistogram's ValueAtPercentile.
			rank := int64(quantileOf[s]*float64(n) + 0.5)
			rank = min(max(rank, 1), n)
			var cum int64
			for i, c := range counts {
				cum += c
				if cum >= rank {
					out[s] = b.top[i]
					break
				}
			}
		}
	}
	out[Success] = math.NaN()
	if ok+ko > 0 {
		out[Success] = 100 * float64(ok) / float64(ok+ko)
	}
	// The successes over the run's length, as metrics counts them: the
	// bootstrap's Poisson draw of the successes makes the interval of a
	// count, wider than a closed loop's steadier one.
	out[Throughput] = math.NaN()
	if b.secs > 0 {
		out[Throughput] = float64(ok) / b.secs
	}
	return out
}

// point is the statistics of the run as observed: the exact mean and the
// percentiles of package metrics, the numbers report prints.
func (b *buckets) point() [numStats]float64 { return b.exact }

// resample returns reps Poisson-bootstrap replicates of every statistic,
// drawn from a random stream seeded by seed and the run's content alone.
// Each replicate is shifted by the gap between the exact figures and those
// of the buckets (bucket midpoints for the mean, the clamp to the exact
// maximum for percentiles), so the replicates centre on the point.
func (b *buckets) resample(seed uint64, reps int) [][numStats]float64 {
	rng := rand.New(rand.NewPCG(seed, b.seed))
	var shift [numStats]float64
	bucketed := b.values(b.count, b.ok, b.ko)
	for s := range shift {
		if d := b.exact[s] - bucketed[s]; !math.IsNaN(d) {
			shift[s] = d
		}
	}
	out := make([][numStats]float64, reps)
	counts := make([]int64, len(b.count))
	for r := range out {
		for i, c := range b.count {
			counts[i] = poisson(rng, float64(c))
		}
		out[r] = b.values(counts, poisson(rng, float64(b.ok)), poisson(rng, float64(b.ko)))
		for s := range out[r] {
			out[r][s] += shift[s]
		}
	}
	return out
}
