package blackbox

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// ServicePercentiles are the service time's percentiles, each with its
// 95% interval.
type ServicePercentiles struct {
	P50   time.Duration    `json:"p50"`
	P50CI [2]time.Duration `json:"p50_ci"`
	P90   time.Duration    `json:"p90"`
	P90CI [2]time.Duration `json:"p90_ci"`
	P99   time.Duration    `json:"p99"`
	P99CI [2]time.Duration `json:"p99_ci"`
}

// bootstrapRounds is how many times the blocks are drawn again.
const bootstrapRounds = 400

// setService sets the service-time distribution, mean and percentiles
// from the samples kept.
func (f *Fit) setService(service []time.Duration) error {
	emp, err := recipe.NewEmpirical(service, 200)
	if err != nil {
		return err
	}
	f.Service, f.ServiceMean, f.ServiceMeanCI = emp, mean(service), meanCI(service)
	f.ServiceTime.P50, f.ServiceTime.P90, f.ServiceTime.P99 = quantile(service, 0.5), quantile(service, 0.9), quantile(service, 0.99)
	return nil
}

// intervals bootstraps the fit over probes and their time blocks, the
// units of evidence of a run (package runblock): requests of one block
// share the machine's moment, so they are drawn again together, never
// one by one, and each probe is a run of its own on a machine whose
// state changes between runs, so the probes are drawn again too (a
// two-level bootstrap: the variance between probes is in the interval).
// Each round draws the service-time probes, then their blocks (the
// samples kept, less the outliers dropped), and the saturated probes,
// then their blocks, with replacement,
// and computes the service mean and percentiles, the saturated
// throughput, the servers it gives (Little's law, or the contention's
// count) and the capacity. The 2.5% and 97.5% quantiles are the
// intervals. A fixed seed: a fit reads the same way twice.
func (c *calibration) intervals(f *Fit, sat *Probe) {
	limit := time.Duration(math.MaxInt64)
	if ls := f.Service.Quantiles; len(ls) > 0 {
		limit = ls[len(ls)-1]
	}
	var probes [][][]time.Duration
	for _, p := range c.service {
		var blocks [][]time.Duration
		for _, b := range p {
			var kept []time.Duration
			for _, l := range b {
				if l <= limit {
					kept = append(kept, l)
				}
			}
			if len(kept) > 0 {
				blocks = append(blocks, kept)
			}
		}
		if len(blocks) > 0 {
			probes = append(probes, blocks)
		}
	}
	if len(probes) == 0 {
		return
	}
	var sats [][]block
	if sat != nil {
		for _, p := range c.sats {
			if bs := p.paceBlocks(); len(bs) > 0 {
				sats = append(sats, bs)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 0x626f6f74))
	var means, p50s, p90s, p99s, servers, caps []float64
	var pool []time.Duration
	var draw []block
	for range bootstrapRounds {
		pool = pool[:0]
		for range probes {
			blocks := probes[rng.IntN(len(probes))]
			for range blocks {
				pool = append(pool, blocks[rng.IntN(len(blocks))]...)
			}
		}
		s := mean(pool)
		means = append(means, float64(s))
		slices.Sort(pool)
		at := func(q float64) float64 { return float64(pool[min(len(pool)-1, int(q*float64(len(pool))))]) }
		p50s, p90s, p99s = append(p50s, at(0.5)), append(p90s, at(0.9)), append(p99s, at(0.99))
		if len(sats) == 0 {
			continue
		}
		draw = draw[:0]
		for range sats {
			bs := sats[rng.IntN(len(sats))]
			for range bs {
				draw = append(draw, bs[rng.IntN(len(bs))])
			}
		}
		x, ok := throughputOf(draw)
		if !ok {
			continue
		}
		cb := x * s.Seconds()
		n := max(1, int(math.Round(cb)))
		if f.USL != nil && f.USL.Significant {
			n, _ = f.USL.serversFor(x, s, max(1, int(math.Round(cb))))
			cb = float64(n)
		}
		servers = append(servers, cb)
		caps = append(caps, float64(n)/(s.Seconds()*f.slowdown(n)))
	}
	durs := func(xs []float64) [2]time.Duration {
		iv := interval(xs)
		return [2]time.Duration{time.Duration(iv[0]), time.Duration(iv[1])}
	}
	f.ServiceMeanCI = durs(means)
	f.ServiceTime.P50CI, f.ServiceTime.P90CI, f.ServiceTime.P99CI = durs(p50s), durs(p90s), durs(p99s)
	if len(servers) > 0 {
		f.ServersCI = interval(servers)
		f.CapacityCI = interval(caps)
		// The point estimates sit inside their intervals: the fit's own
		// servers and capacity are among what the blocks allow.
		f.ServersCI = [2]float64{math.Min(f.ServersCI[0], float64(f.Servers)), math.Max(f.ServersCI[1], float64(f.Servers))}
		f.CapacityCI = [2]float64{math.Min(f.CapacityCI[0], f.Capacity), math.Max(f.CapacityCI[1], f.Capacity)}
	}
}
