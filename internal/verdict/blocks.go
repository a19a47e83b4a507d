package verdict

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// Resamples is the block bootstrap's resamples per run. The bootstrap
// estimates a variance, whose relative error is about √(2/Resamples): 5%
// at 800, so that the seed moves an interval's width by a percent or two
// and no verdict away from its edge.
const Resamples = 800

// flatBlocks is a run's blocks in the form the bootstrap resamples: each
// block's latency counts as a cumulative count over one shared list of
// bucket tops (ms), so that a percentile of any multiset of blocks is a
// binary search; with its latency sum, request and success counts and
// length.
type flatBlocks struct {
	top    []float64 // bucket tops, ms, ascending
	cum    [][]int64 // per block: cum[b][i] = its requests in buckets below i (len(top)+1)
	sum    []float64 // per block: the sum of its latencies (bucket midpoints), ms
	req    []float64
	ok     []float64
	secs   []float64
	seed   uint64
	hasLat bool
}

// flatten decodes the blocks' histograms; a block without one counts
// only its requests.
func flatten(bs []runblock.Block) (*flatBlocks, error) {
	f := &flatBlocks{}
	h := fnv.New64a()
	var buf [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(buf[:], v); h.Write(buf[:]) }
	type raw struct {
		tops   []int64
		counts []int64
	}
	raws := make([]raw, len(bs))
	index := map[int64]float64{} // top (ns) -> mid (ms)
	unit := float64(metrics.HistogramUnit) / float64(time.Millisecond)
	for i, b := range bs {
		put(b.Requests)
		put(b.OK)
		put(uint64(b.Length))
		h.Write(b.Hist)
		f.req = append(f.req, float64(b.Requests))
		f.ok = append(f.ok, float64(b.OK))
		f.secs = append(f.secs, b.Length.Seconds())
		if len(b.Hist) == 0 {
			continue
		}
		hist, err := hdrhistogram.Decode(b.Hist)
		if err != nil {
			return nil, fmt.Errorf("block %d (from %v): histogram: %w", i, b.Start, err)
		}
		for _, br := range hist.Distribution() {
			if br.Count == 0 {
				continue
			}
			raws[i].tops = append(raws[i].tops, br.To)
			raws[i].counts = append(raws[i].counts, br.Count)
			index[br.To] = float64(br.From+br.To) / 2 * unit
			f.hasLat = true
		}
	}
	tops := make([]int64, 0, len(index))
	for t := range index {
		tops = append(tops, t)
	}
	sort.Slice(tops, func(i, j int) bool { return tops[i] < tops[j] })
	pos := make(map[int64]int32, len(tops))
	for i, t := range tops {
		pos[t] = int32(i)
		f.top = append(f.top, float64(t)*unit)
	}
	for _, r := range raws {
		cum := make([]int64, len(tops)+1)
		var sum float64
		for j, t := range r.tops {
			cum[pos[t]+1] += r.counts[j]
			sum += float64(r.counts[j]) * index[t]
		}
		for i := 1; i < len(cum); i++ {
			cum[i] += cum[i-1]
		}
		f.cum = append(f.cum, cum)
		f.sum = append(f.sum, sum)
	}
	f.seed = h.Sum64()
	return f, nil
}

// quantileOf is the quantile of each percentile Stat.
var quantileOf = map[Stat]float64{P50: 0.50, P90: 0.90, P95: 0.95, P99: 0.99}

// statOf computes the stat over the blocks picked (with repeats), on the
// judged scale; NaN when it cannot be computed.
func (f *flatBlocks) statOf(s Stat, pick []int) float64 {
	switch s {
	case Success, Errors:
		var req, ok float64
		for _, b := range pick {
			req += f.req[b]
			ok += f.ok[b]
		}
		if req == 0 {
			return math.NaN()
		}
		if s == Errors {
			return 100 * (1 - ok/req)
		}
		return 100 * ok / req
	case Throughput:
		var ok, secs float64
		for _, b := range pick {
			ok += f.ok[b]
			secs += f.secs[b]
		}
		if secs <= 0 || ok <= 0 {
			return math.NaN()
		}
		return math.Log(ok / secs)
	}
	if !f.hasLat {
		return math.NaN()
	}
	d := len(f.top)
	var n int64
	for _, b := range pick {
		n += f.cum[b][d]
	}
	if n == 0 {
		return math.NaN()
	}
	if s == Mean {
		var sum float64
		for _, b := range pick {
			sum += f.sum[b]
		}
		return math.Log(sum / float64(n))
	}
	q, ok := quantileOf[s]
	if !ok {
		return math.NaN() // the maximum has no block bootstrap
	}
	// The rank rule of HdrHistogram's ValueAtPercentile: the first bucket
	// whose cumulative count reaches the rank.
	rank := min(max(int64(q*float64(n)+0.5), 1), n)
	i := sort.Search(d, func(i int) bool {
		var c int64
		for _, b := range pick {
			c += f.cum[b][i+1]
		}
		return c >= rank
	})
	if i == d {
		return math.NaN()
	}
	return math.Log(f.top[i])
}

// blockVariance is the block bootstrap's variance of the run's figure on
// the judged scale (log for latencies and throughput, points for rates):
// blocks drawn with replacement, as many as the run has, their histograms
// merged and the figure recomputed, Resamples times, from a random stream
// seeded by seed and the blocks' content. NaN when the run has fewer than
// MinBlocks blocks or the figure has no block form.
func blockVariance(f *flatBlocks, s Stat, seed uint64, resamples int) (float64, error) {
	if len(f.req) < MinBlocks || s == Max {
		return math.NaN(), nil
	}
	return bootVariance(len(f.req), rand.New(rand.NewPCG(seed, f.seed)), resamples, func(pick []int) float64 {
		return f.statOf(s, pick)
	}), nil
}

// bootVariance is the variance of stat over resamples draws of n blocks
// with replacement; NaN when fewer than half the draws give a figure.
func bootVariance(n int, rng *rand.Rand, resamples int, stat func(pick []int) float64) float64 {
	pick := make([]int, n)
	var sum, sum2 float64
	k := 0
	for range resamples {
		for i := range pick {
			pick[i] = rng.IntN(n)
		}
		v := stat(pick)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		sum += v
		sum2 += v * v
		k++
	}
	if k < 2 || k < resamples/2 {
		return math.NaN()
	}
	m := sum / float64(k)
	return max(sum2/float64(k)-m*m, 0) * float64(k) / float64(k-1)
}

// MinBlocks is the fewest blocks a run's block bootstrap resamples: fewer
// blocks say little about the spread within the run.
const MinBlocks = 4
