package blackbox

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Level is one closed probe of the contention fit: Users requests in
// service at every moment, their mean response time and the throughput
// it gives by Little's law (Users / Response).
type Level struct {
	Users      int           `json:"users"`
	Response   time.Duration `json:"response"`
	Throughput float64       `json:"throughput"`
	latencies  []time.Duration
	probe      *Probe
}

// USL is the Universal Scalability Law fitted to the throughput at
// several concurrencies N at or below the servers:
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// λ is the throughput of one request at a time, σ the serialised share
// (contention for a lock or a disk), κ the coherency cost (crosstalk
// between the N in service). Each with its 95% interval from a bootstrap
// over the probes' answers.
type USL struct {
	Lambda   float64    `json:"lambda"`
	LambdaCI [2]float64 `json:"lambda_ci"`
	Sigma    float64    `json:"sigma"`
	SigmaCI  [2]float64 `json:"sigma_ci"`
	Kappa    float64    `json:"kappa"`
	KappaCI  [2]float64 `json:"kappa_ci"`
	// Top is the highest concurrency probed; SlowdownCI the 95% interval
	// of the service time's slowdown there, 1 + σ(Top−1) + κ·Top(Top−1).
	Top        int        `json:"top"`
	SlowdownCI [2]float64 `json:"slowdown_ci"`
	// Residual is the largest gap between a fitted and a measured X(N),
	// relative to the measured one: the check on the linearised fit.
	Residual float64 `json:"residual"`
	// Significant says contention is present: even the interval's low
	// end slows the service time by more than MinSlowdown at Top. Only
	// then does the fitted model apply it; otherwise the service time
	// stays constant.
	Significant bool    `json:"significant"`
	Levels      []Level `json:"levels"`
}

// MinSlowdown is the slowdown at the highest concurrency probed below
// which contention is not modelled: 10%, the tolerance asked of a
// predicted p50, and above what a shared machine's own jitter adds.
const MinSlowdown = 0.10

// Factor is the slowdown with n requests in service.
func (u *USL) Factor(n int) float64 { return uslFactor(u.Sigma, u.Kappa, n) }

func uslFactor(sigma, kappa float64, n int) float64 {
	f := float64(n)
	return 1 + sigma*(f-1) + kappa*f*(f-1)
}

// usersLevels are the concurrencies the contention fit probes, up to
// top: 1, 2, 3, 4, then about ×1.5 each (6, 8, 12, 16, 24, ...), top
// last; at most maxLevels of them, the densest at the bottom.
func usersLevels(top int) []int {
	const maxLevels = 7
	var ls []int
	for n := 1; n < top; {
		ls = append(ls, n)
		if n < 4 {
			n++
		} else {
			n = n * 3 / 2
		}
	}
	ls = append(ls, top)
	for len(ls) > maxLevels {
		ls = slices.Delete(ls, len(ls)-2, len(ls)-1) // thin the top, keep top itself
	}
	return ls
}

// fitUSL fits λ, σ and κ to levels (the first at one user) by the
// standard linearisation: with λ = X(1), N·λ/X(N) − 1 = σ(N−1) +
// κN(N−1) is linear in σ and κ, solved by least squares with both kept
// at or above 0.
func fitUSL(levels []Level) (lambda, sigma, kappa float64) {
	r1 := levels[0].Response.Seconds()
	if r1 <= 0 {
		return 0, 0, 0
	}
	lambda = 1 / r1
	var s11, s12, s22, s1y, s2y float64
	for _, l := range levels[1:] {
		n := float64(l.Users)
		x1, x2 := n-1, n*(n-1)
		y := l.Response.Seconds()/r1 - 1 // = λN/X(N) − 1 with X(N) = N/R(N)
		s11, s12, s22 = s11+x1*x1, s12+x1*x2, s22+x2*x2
		s1y, s2y = s1y+x1*y, s2y+x2*y
	}
	if s11 == 0 {
		return lambda, 0, 0
	}
	det := s11*s22 - s12*s12
	if len(levels) >= 3 && det > 1e-9*s11*s22 {
		sigma = (s22*s1y - s12*s2y) / det
		kappa = (s11*s2y - s12*s1y) / det
	} else {
		sigma, kappa = -1, 0 // one level above one user: σ alone
	}
	switch {
	case sigma < 0 && kappa > 0 && len(levels) >= 3:
		sigma, kappa = 0, math.Max(0, s2y/s22)
	case sigma < 0 || kappa < 0:
		sigma, kappa = math.Max(0, s1y/s11), 0
	}
	return lambda, sigma, kappa
}

// newUSL fits levels and bootstraps the fit: each level's time blocks
// (its answers, for a level without a probe's blocks) drawn again with
// replacement, 400 times, with a fixed seed so a calibration reads the
// same way twice.
func newUSL(levels []Level) *USL {
	for i := range levels {
		levels[i].Response = mean(levels[i].latencies)
		if levels[i].Response > 0 {
			levels[i].Throughput = float64(levels[i].Users) / levels[i].Response.Seconds()
		}
	}
	u := &USL{Levels: levels, Top: levels[len(levels)-1].Users}
	u.Lambda, u.Sigma, u.Kappa = fitUSL(levels)
	for _, l := range levels {
		if l.Throughput > 0 {
			fitted := u.Lambda * float64(l.Users) / u.Factor(l.Users)
			u.Residual = math.Max(u.Residual, math.Abs(fitted-l.Throughput)/l.Throughput)
		}
	}
	const rounds = 400
	rng := rand.New(rand.NewPCG(21, 0x75736c))
	var lambdas, sigmas, kappas, slows []float64
	again := make([]Level, len(levels))
	for range rounds {
		for i, l := range levels {
			var sum time.Duration
			var n int
			if bs := l.blocks(); len(bs) >= 2 {
				// The probe's time blocks, drawn again whole: answers of
				// one moment share the machine's state.
				for range bs {
					for _, x := range bs[rng.IntN(len(bs))] {
						sum += x
						n++
					}
				}
			} else {
				for range l.latencies {
					sum += l.latencies[rng.IntN(len(l.latencies))]
				}
				n = len(l.latencies)
			}
			again[i] = Level{Users: l.Users, Response: sum / time.Duration(max(1, n))}
		}
		la, s, k := fitUSL(again)
		lambdas, sigmas, kappas = append(lambdas, la), append(sigmas, s), append(kappas, k)
		slows = append(slows, uslFactor(s, k, u.Top))
	}
	u.LambdaCI, u.SigmaCI, u.KappaCI, u.SlowdownCI = interval(lambdas), interval(sigmas), interval(kappas), interval(slows)
	u.Significant = u.Top > 1 && u.SlowdownCI[0] > 1+MinSlowdown
	return u
}

// interval is the 2.5% and 97.5% quantiles of xs.
func interval(xs []float64) [2]float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(q float64) float64 { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return [2]float64{at(0.025), at(0.975)}
}

// serversFor is the c whose capacity c / (S·slowdown(c)) is nearest the
// throughput measured at saturation: with contention, Little's law on
// the low-load service time counts too few servers (each of them is
// slower when all are busy). The smallest such c; past the law's peak
// (the throughput falls as servers are added) the peak itself; at most
// 4 × atLeast + 4 (the law's ceiling below the measured throughput: σ
// read too high), where capped says so.
func (u *USL) serversFor(x float64, service time.Duration, atLeast int) (servers int, capped bool) {
	best, gap, most := atLeast, math.Inf(1), 4*atLeast+4
	for c := max(1, atLeast); ; c++ {
		if c > most {
			return best, true
		}
		g := float64(c) / (service.Seconds() * u.Factor(c))
		if d := math.Abs(g - x); d < gap {
			best, gap = c, d
		}
		if g > x || c > atLeast && g < float64(c-1)/(service.Seconds()*u.Factor(c-1)) {
			return best, false // crossed it, or past the peak
		}
	}
}

// fitContention probes the target closed-loop at 1, 2, 3, 4, ... users
// up to the servers found (their interval's low end: a level past the
// servers would read queueing as contention) and fits the USL. Where it
// is significant, it measures the service time at one user only, counts
// the servers again with the slowdown (Little's law on the low-load
// service time counts too few when each is slower with all busy), and
// probes on up to the new count, fitting again: at most three rounds.
func (c *calibration) fitContention(ctx context.Context, f *Fit, sat *Probe, low []time.Duration) error {
	var levels []Level
	lowest, done := f.Servers, 0
	for round := 0; round < 3; round++ {
		top := min(f.Servers, int(math.Floor(f.ServersCI[0])))
		if round > 0 {
			// Counted again with the slowdown, the servers are the best
			// estimate there is: one short of them stays below unless the
			// count overshot by more than one, and a level past them
			// only raises the slowdown, which lowers the next count.
			top = max(top, f.Servers-1)
		}
		if top < 2 || top <= done {
			return nil
		}
		more, stop, err := c.levels(ctx, f, done, top)
		if err != nil {
			return err
		}
		levels, done = append(levels, more...), top
		if len(levels) < 2 {
			return nil
		}
		u := newUSL(levels)
		f.USL = u
		if !u.Significant {
			return nil
		}
		if round == 0 {
			if levels[0].probe != nil {
				c.keep(levels[0].probe)
			}
			service, _ := dropOutliers(append(slices.Clone(low), levels[0].latencies...))
			if err := f.setService(service); err != nil {
				return err
			}
		}
		was := f.Servers
		var capped bool
		if f.Servers, capped = u.serversFor(c.satThroughput(), f.ServiceMean, lowest); capped {
			f.Notes = append(f.Notes, fmt.Sprintf("the saturated throughput (%.1f/s) is above what the fitted contention allows even %d servers (σ read too high?): the servers are capped there, so the capacity and the knee are low", c.satThroughput(), f.Servers))
			stop = true
		}
		scale := float64(f.Servers) / float64(was)
		f.ServersCI = [2]float64{f.ServersCI[0] * scale, f.ServersCI[1] * scale}
		f.Capacity = float64(f.Servers) / (f.ServiceMean.Seconds() * u.Factor(f.Servers))
		if stop {
			break
		}
	}
	if f.USL.Residual > 0.1 {
		f.Notes = append(f.Notes, fmt.Sprintf("the contention law fits the measured throughputs only within %.0f%%: the slowdown with concurrency is not the USL's", 100*f.USL.Residual))
	}
	return nil
}

// levels runs the closed probes of usersLevels(top) above done; stop says
// the budget or a failing level ended them.
func (c *calibration) levels(ctx context.Context, f *Fit, done, top int) (levels []Level, stop bool, err error) {
	// Half a probe's length: a closed probe keeps the target busy all the
	// time, so even at one user it holds as many answers as the 10/s probe
	// for a service of 50 ms, more for a faster one.
	d := max(500*time.Millisecond, c.opts.Step/2)
	for _, n := range usersLevels(top) {
		if n <= done {
			continue
		}
		cost := uint64(float64(n) / f.ServiceMean.Seconds() * d.Seconds())
		if !c.room(cost, d) {
			f.Notes = append(f.Notes, fmt.Sprintf("the contention probes stopped at %d users: the budget of %d requests, the probes or the time", n, c.opts.Budget))
			return levels, true, nil
		}
		p, err := c.steady(ctx, f, 0, n, d)
		if err != nil {
			return nil, true, err
		}
		f.Probes = append(f.Probes, p)
		if p.Success() < 0.97 || p.OK < 10 {
			f.Notes = append(f.Notes, fmt.Sprintf("the contention probes stopped at %d users: %.1f%% succeeded", n, 100*p.Success()))
			return levels, true, nil
		}
		levels = append(levels, Level{Users: n, latencies: p.keptOK(), probe: p})
	}
	return levels, false, nil
}

// slowdown is the service time's slowdown the fitted model applies with
// n requests in service: 1 without significant contention.
func (f *Fit) slowdown(n int) float64 {
	if f.USL == nil || !f.USL.Significant {
		return 1
	}
	return f.USL.Factor(n)
}

// blocks are the successful latencies of the level's probe, block by kept
// block (none without a probe).
func (l Level) blocks() [][]time.Duration {
	if l.probe == nil {
		return nil
	}
	var out [][]time.Duration
	for _, b := range l.probe.keptBlocks() {
		if len(b.ok) > 0 {
			out = append(out, b.ok)
		}
	}
	return out
}
