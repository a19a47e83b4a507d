package compare

import (
	"math"
	"math/rand/v2"
	"time"
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
	numStats
)

// Stats lists every Stat in table order.
var Stats = []Stat{Mean, P50, P90, P99, Success}

// String names the statistic as the table shows it.
func (s Stat) String() string {
	return [...]string{"mean", "p50", "p90", "p99", "success"}[s]
}

// quantile of each percentile Stat.
var quantileOf = map[Stat]float64{P50: 0.50, P90: 0.90, P99: 0.99}

// buckets is a run's histogram flattened to its non-empty buckets plus the
// failure count, the form the bootstrap resamples.
type buckets struct {
	mid    []float64 // bucket midpoint, ms (for the mean)
	top    []float64 // bucket's highest equivalent value, ms (for percentiles, as HdrHistogram reports them)
	count  []int64
	ok, ko int64
}

func flatten(r *Run) buckets {
	var b buckets
	for _, bar := range r.Hist.Distribution() {
		if bar.Count == 0 {
			continue
		}
		ms := float64(Unit) / float64(time.Millisecond)
		b.mid = append(b.mid, float64(bar.From+bar.To)/2*ms)
		b.top = append(b.top, float64(bar.To)*ms)
		b.count = append(b.count, bar.Count)
	}
	b.ok, b.ko = r.OK, r.N-r.OK
	return b
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
		for _, s := range []Stat{P50, P90, P99} {
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
	return out
}

// point is the statistics of the run as observed.
func (b *buckets) point() [numStats]float64 { return b.values(b.count, b.ok, b.ko) }

// resample returns reps Poisson-bootstrap replicates of every statistic.
func (b *buckets) resample(rng *rand.Rand, reps int) [][numStats]float64 {
	out := make([][numStats]float64, reps)
	counts := make([]int64, len(b.count))
	for r := range out {
		for i, c := range b.count {
			counts[i] = poisson(rng, float64(c))
		}
		out[r] = b.values(counts, poisson(rng, float64(b.ok)), poisson(rng, float64(b.ko)))
	}
	return out
}
