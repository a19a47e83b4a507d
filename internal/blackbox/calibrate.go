package blackbox

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/targets"
)

// Options bound a calibration.
type Options struct {
	// Target is one request line, "GET http://127.0.0.1:8080/page".
	Target string
	// Timeout is the client's timeout per request (default 10 s).
	Timeout time.Duration
	// Step is each probe's length (default 2 s).
	Step time.Duration
	// MaxRate is the highest rate the ramp may try (default 5,000/s).
	MaxRate float64
	// Budget is the most requests the calibration may send (default
	// 40,000).
	Budget uint64
	// Log, when set, receives a line per probe.
	Log io.Writer
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Step <= 0 {
		o.Step = 2 * time.Second
	}
	if o.MaxRate <= 0 {
		o.MaxRate = 5000
	}
	if o.Budget == 0 {
		o.Budget = 40000
	}
}

// Queue kinds: what the target does with a request that finds every
// server busy.
const (
	QueueBounded   = "bounded"   // waits up to a timeout, then is refused with a status (HAProxy's timeout queue, a pool's checkout timeout)
	QueueNone      = "none"      // is refused at once (a concurrency limit without a waiting room, nginx's limit_conn)
	QueueUnbounded = "unbounded" // waits as long as it takes (an accept queue): only the client's timeout ends it
	QueueNotFound  = "not found" // the ramp found no limit within its budget
)

// Fit is what the calibration found: the queue that behaves as the target.
type Fit struct {
	Target string `json:"target"`
	// Servers is how many requests the target serves at once (c), from
	// its throughput at saturation and the service time by Little's law;
	// ServersCI is its 95% interval.
	Servers   int        `json:"servers"`
	ServersCI [2]float64 `json:"servers_ci"`
	// Service is the service-time distribution measured at low load;
	// ServiceMean its mean with a 95% interval; ServiceTime its
	// percentiles, each with its interval (a bootstrap over the probes'
	// time blocks).
	Service       recipe.Empirical   `json:"-"`
	ServiceMean   time.Duration      `json:"service_mean"`
	ServiceMeanCI [2]time.Duration   `json:"service_mean_ci"`
	ServiceTime   ServicePercentiles `json:"service_time"`
	// Queue is what happens to a request that finds every server busy;
	// QueueTimeout how long it waits before it is refused with
	// RefusalStatus (bounded), or the client's timeout (unbounded).
	Queue         string        `json:"queue"`
	QueueTimeout  time.Duration `json:"queue_timeout"`
	RefusalStatus int           `json:"refusal_status"`
	// Capacity is Servers / ServiceMean: the highest rate it holds (in
	// JSON, null when no limit was found); CapacityCI its 95% interval.
	Capacity   float64    `json:"capacity"`
	CapacityCI [2]float64 `json:"capacity_ci"`
	// Slowdown is how much longer the service took at the highest load
	// held than at low load (0.3: 30% longer): contention the fitted queue
	// does not express (it keeps the service time constant).
	Slowdown float64 `json:"slowdown"`
	// USL is the contention fit from closed probes at 1, 2, 3, 4, ...
	// users up to the servers (nil when there are fewer than 2 servers or
	// no limit was found). Where it is significant, the fitted model slows
	// each request by its factor at the requests in service, and Servers
	// and Capacity account for it.
	USL *USL `json:"usl,omitempty"`
	// Requests and Duration are what the calibration cost, Worst what it
	// announced it might; HighestRate the highest rate it tried.
	Requests    uint64        `json:"requests"`
	Duration    time.Duration `json:"duration"`
	Worst       Worst         `json:"worst"`
	HighestRate float64       `json:"highest_rate"`
	// Blocks is how many time blocks the probes were cut into, LeftOut
	// how many of them the machine disturbed (left out of the fit).
	Blocks  int `json:"blocks"`
	LeftOut int `json:"left_out"`
	// Redirect is the redirect the target answered, when it did: the
	// probes calibrated where it leads.
	Redirect *Redirect `json:"redirect,omitempty"`
	Probes   []*Probe  `json:"probes,omitempty"`
	// Loaded, on a fit read with Load, names its file (nil on a fit
	// calibrated now).
	Loaded *Loaded `json:"loaded,omitempty"`
	// Notes say where the fit is uncertain or the queue cannot express
	// what was seen.
	Notes []string `json:"notes,omitempty"`
}

// calibration is one Calibrate call's state.
type calibration struct {
	opts    Options
	targets []*targets.Target
	// sent counts the requests handed to the wire (never above
	// opts.Budget); probes the attacks made (never above maxProbes);
	// deadline is when probes stop sending.
	sent     atomic.Uint64
	probes   int
	deadline time.Time
	// p50 is the low-load median, once measured: the scale of the pauses
	// that disturb a probe (gap).
	p50 time.Duration
	// redos counts the probes made again because the machine disturbed
	// most of their blocks (at most maxRedos); service holds the kept
	// time blocks of the service-time samples, probe by probe, for the
	// bootstrap.
	redos   int
	service [][][]time.Duration
	// redone are the probes made again, not in the fit.
	redone []*Probe
	// sats are the probes past the knee at the saturated probe's rate
	// (it and its repeat): runs of the same load, pooled for the
	// saturated throughput and drawn again in its bootstrap.
	sats []*Probe
}

// satThroughput is the saturated throughput, pooled over sats' blocks.
func (c *calibration) satThroughput() float64 {
	var bs []block
	for _, p := range c.sats {
		bs = append(bs, p.paceBlocks()...)
	}
	if x, ok := throughputOf(bs); ok {
		return x
	}
	return c.sats[0].Throughput()
}

// maxRedos bounds the probes made again for the machine's pauses.
const maxRedos = 4

// spent is what the calibration has sent so far.
func (c *calibration) spent() uint64 { return c.sent.Load() }

// room reports whether a probe costing about cost requests and d of time
// fits in what is left of the budget, the probes and the time.
func (c *calibration) room(cost uint64, d time.Duration) bool {
	return c.probes < maxProbes && c.spent()+cost <= c.opts.Budget && time.Now().Add(d).Before(c.deadline)
}

// BadTargetError is a calibration that could not start or judge: the
// target is unreachable, answers nothing but errors, or the options are
// out of range. Its message is one line for the user.
type BadTargetError struct{ Msg string }

func (e *BadTargetError) Error() string { return e.Msg }

// Calibrate measures the target and fits its queue. It announces its
// worst case first (Options.Worst, to Log) and keeps to it. Probes run
// one after the other: a low-rate one for the service time, then rates
// doubling from about one request in service at a time until success
// falls or the latency doubles (the knee crossed), the budget, the time
// or MaxRate is reached. Each probe is cut into time blocks; blocks the
// machine disturbed (the control probe saw it pause, or the generator
// sent late) are left out, a probe mostly disturbed is made again, and
// the fit's intervals come from a bootstrap over the blocks kept.
func Calibrate(ctx context.Context, o Options) (*Fit, error) {
	o.defaults()
	ts, err := targets.ReadAll(strings.NewReader(o.Target), targets.Options{})
	if err != nil {
		return nil, &BadTargetError{Msg: fmt.Sprintf("target %q: %v", o.Target, err)}
	}
	if len(ts) != 1 {
		return nil, &BadTargetError{Msg: fmt.Sprintf("target %q: want one request line such as 'GET http://127.0.0.1:8080/'", o.Target)}
	}
	began := time.Now()
	worst := o.Worst()
	c := &calibration{opts: o, targets: ts, deadline: began.Add(worst.Duration - o.Timeout)}
	f := &Fit{Target: o.Target, Worst: worst}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "calibration of %s: %s (up to %d probes of %v, and the %v timeout for the last answers); it stops at either limit\n",
			o.Target, worst, maxProbes, o.Step, o.Timeout)
	}
	defer func() { f.Requests, f.Duration = c.spent(), time.Since(began) }()
	if f.Redirect, err = c.resolve(ctx); err != nil {
		return nil, err
	}
	if rd := f.Redirect; rd != nil {
		msg := fmt.Sprintf("the target redirects (%d) to %s: calibrated there, each request sent to it directly", rd.Status, rd.To)
		if rd.Hops > 1 {
			msg = fmt.Sprintf("the target redirects (%d, %d hops) to %s: calibrated there, each request sent to it directly", rd.Status, rd.Hops, rd.To)
		}
		f.Notes = append(f.Notes, msg)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "calibration: %s\n", msg)
		}
	}
	// 1. The service time, at 10 requests a second.
	low, err := c.steady(ctx, f, 10, 0, o.Step)
	if err != nil {
		return nil, err
	}
	f.Probes = append(f.Probes, low)
	if err := failsAtLowLoad(o.Target, low); err != nil {
		return nil, err
	}
	service := c.keep(low)
	s0 := mean(service)
	p50 := quantile(service, 0.5)
	c.p50 = p50
	// 2. The ramp: from about one request in service at a time.
	rate := math.Max(20, math.Round(1/s0.Seconds()))
	var sat *Probe
	cost := func(r float64) uint64 { return uint64(r * o.Step.Seconds()) }
	for {
		if rate > o.MaxRate || !c.room(cost(rate), o.Step) {
			break
		}
		p, err := c.steady(ctx, f, rate, 0, o.Step)
		if err != nil {
			return nil, err
		}
		f.Probes = append(f.Probes, p)
		f.HighestRate = rate
		if crossed(p, p50) && c.room(cost(rate), o.Step) {
			// Once more before believing it: on a shared machine a pause
			// of the generator or the target piles requests up for a
			// moment, and a limit that only then refuses (nginx's
			// limit_conn at a tenth of its capacity) would read as the
			// knee. A transient passes the second time.
			again, err := c.steady(ctx, f, rate, 0, o.Step)
			if err != nil {
				return nil, err
			}
			f.Probes = append(f.Probes, again)
			if !crossed(again, p50) {
				p = again
			} else if again.Throughput() > p.Throughput() {
				p = again
			}
		}
		if crossed(p, p50) && p.Success() > 0.75 && 2*rate <= o.MaxRate && c.room(cost(2*rate), o.Step) {
			// The knee was crossed by latency alone, or barely (fewer
			// than a quarter refused: the probe may be within a third of
			// the capacity, where a pause leaves servers idle and Little's
			// law counts too few): twice the rate, clearly past it, keeps
			// every server busy and shows what the target does with the
			// excess (refuse it after a wait, at once, or keep it
			// waiting). If twice the rate holds, the crossing was a
			// transient: the ramp goes on from there.
			over, err := c.steady(ctx, f, 2*rate, 0, o.Step)
			if err != nil {
				return nil, err
			}
			f.Probes = append(f.Probes, over)
			f.HighestRate = over.Rate
			if !crossed(over, p50) {
				rate = 4 * rate
				continue
			}
			p = over
		}
		if crossed(p, p50) {
			sat = p
			break
		}
		if p.Rate*s0.Seconds() < 4 {
			// Still nearly idle: its answers are service times too.
			service = append(service, c.keep(p)...)
		}
		rate *= 2
	}
	if !time.Now().Before(c.deadline) {
		f.Notes = append(f.Notes, fmt.Sprintf("the calibration stopped at its announced time limit (%v): the fit rests on the probes made", worst.Duration))
	}
	service, dropped := dropOutliers(service)
	if dropped > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d service-time samples above 3× the median dropped as outliers (a paused machine or generator): a tail rarer than 2%% is not modelled", dropped, dropped+len(service)))
	}
	if err := f.setService(service); err != nil {
		return nil, err
	}
	defer c.noteLeftOut(f)
	if sat == nil {
		f.Queue = QueueNotFound
		// No limit seen: as many servers as the highest rate needs, twice.
		f.Servers = int(math.Ceil(2 * f.HighestRate * f.ServiceMean.Seconds()))
		f.Capacity = math.Inf(1)
		f.Notes = append(f.Notes, fmt.Sprintf("no limit found up to %.0f/s (%d requests): predictions above that rate assume none", f.HighestRate, c.spent()))
		c.intervals(f, nil)
		return f, nil
	}
	for _, p := range f.Probes {
		if p.Users == 0 && p.Rate == sat.Rate && crossed(p, p50) {
			c.sats = append(c.sats, p)
		}
	}
	if len(c.sats) == 0 {
		c.sats = []*Probe{sat}
	}
	c.fitQueue(f, sat)
	if err := c.fitContention(ctx, f, sat, low.keptOK()); err != nil {
		return nil, err
	}
	c.intervals(f, sat)
	if lo, hi := f.ServersCI[0], f.ServersCI[1]; hi-lo > 0.3*float64(f.Servers) {
		f.Notes = append(f.Notes, fmt.Sprintf("servers known only within %.1f..%.1f: a longer -fit-step narrows it", lo, hi))
	}
	// Contention: the service time at the highest rate held well below the
	// knee (half the capacity: little queueing) against low load.
	at := 0.0
	for _, p := range f.Probes[1:] {
		if g := mean(p.keptOK()); p.Users == 0 && p.Rate < f.Capacity/2 && !crossed(p, p50) && g > f.ServiceMean {
			if sd := float64(g-f.ServiceMean) / float64(f.ServiceMean); sd > f.Slowdown {
				f.Slowdown, at = sd, p.Rate
			}
		}
	}
	if f.Slowdown > 0.2 && (f.USL == nil || !f.USL.Significant) {
		f.Notes = append(f.Notes, fmt.Sprintf("service time grew %.0f%% between low load and %.0f/s (contention): the fitted queue keeps it constant, so predictions near and past the knee may be optimistic", 100*f.Slowdown, at))
	}
	return f, nil
}

// steady runs a constant-rate probe (users 0) or a closed one; when the
// machine disturbed more than half of its time blocks, it is made again
// (at most maxRedos in the calibration, within the budget), and the less
// disturbed one is kept.
func (c *calibration) steady(ctx context.Context, f *Fit, rate float64, users int, d time.Duration) (*Probe, error) {
	run := func() (*Probe, error) {
		if users > 0 {
			return c.closedProbe(ctx, users, d)
		}
		return c.probe(ctx, rate, d)
	}
	best, err := run()
	last := best
	for err == nil && 2*last.LeftOut > last.Blocks && c.redos < maxRedos && c.room(last.Sent, d) {
		c.redos++
		what := fmt.Sprintf("at %.0f/s", rate)
		if users > 0 {
			what = fmt.Sprintf("of %d users", users)
		}
		f.Notes = append(f.Notes, fmt.Sprintf("the probe %s was made again: the machine paused in %d of its %d time blocks (longest pause %v)", what, last.LeftOut, last.Blocks, round(last.LongestPause)))
		var again *Probe
		if again, err = run(); err != nil {
			break
		}
		if again.LeftOut*best.Blocks < best.LeftOut*again.Blocks {
			c.redone = append(c.redone, best)
			best = again
		} else {
			c.redone = append(c.redone, again)
		}
		last = again
	}
	return best, err
}

// keep returns a probe's service-time samples from its kept blocks, and
// holds those blocks for the bootstrap.
func (c *calibration) keep(p *Probe) []time.Duration {
	var all []time.Duration
	var blocks [][]time.Duration
	for _, b := range p.keptBlocks() {
		if len(b.ok) > 0 {
			blocks = append(blocks, b.ok)
			all = append(all, b.ok...)
		}
	}
	if len(all) == 0 {
		all = p.OKLatencies
		blocks = [][]time.Duration{all}
	}
	c.service = append(c.service, blocks)
	return all
}

// noteLeftOut says how many time blocks of the probes (those made again
// included) the machine disturbed and were left out.
func (c *calibration) noteLeftOut(f *Fit) {
	var pause, lag time.Duration
	f.Blocks, f.LeftOut = 0, 0
	for _, p := range append(slices.Clone(f.Probes), c.redone...) {
		f.Blocks += p.Blocks
		f.LeftOut += p.LeftOut
		if p.LeftOut > 0 {
			pause, lag = max(pause, p.LongestPause), max(lag, p.LagP99)
		}
	}
	if f.LeftOut > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d probe time blocks left out: the machine paused (longest pause %v, lag p99 %v)", f.LeftOut, f.Blocks, round(pause), round(lag)))
	}
}

// crossed reports whether a probe is past the knee: success below 97%,
// or the median latency more than twice the low-load one.
func crossed(p *Probe, p50 time.Duration) bool {
	return p.Success() < 0.97 || quantile(p.OKLatencies, 0.5) > 2*p50+time.Millisecond
}

// fitQueue reads the saturated probe: its throughput gives the servers
// (Little's law: busy servers = throughput x service time), its failures
// the queue.
func (c *calibration) fitQueue(f *Fit, sat *Probe) {
	hold := f.ServiceMean
	x := c.satThroughput()
	cEst := x * hold.Seconds()
	// A first interval: Poisson noise on the successes counted, and the
	// service mean's own interval (the contention fit's levels stop below
	// its low end); the bootstrap over the time blocks then replaces it
	// (intervals).
	rel := 1.96 / math.Sqrt(math.Max(1, float64(sat.OK)))
	lo := cEst * (1 - rel) * float64(f.ServiceMeanCI[0]) / float64(f.ServiceMean)
	hi := cEst * (1 + rel) * float64(f.ServiceMeanCI[1]) / float64(f.ServiceMean)
	f.Servers = max(1, int(math.Round(cEst)))
	f.ServersCI = [2]float64{lo, hi}
	status, n := sat.refusal()
	fails := sat.Sent - sat.OK
	switch {
	case fails == 0 || n == 0:
		// Success held but latency grew: a queue that only delays.
		f.Queue, f.QueueTimeout = QueueUnbounded, c.opts.Timeout
	case status == 0 && timeouts(sat) > n/2:
		f.Queue, f.QueueTimeout = QueueUnbounded, c.opts.Timeout
	default:
		wait := quantile(sat.FailLatencies, 0.5)
		if wait < f.ServiceMean/5 {
			// Refused at once: as fast as the target refuses (nginx's
			// limit_conn answers in a fraction of a millisecond).
			f.Queue, f.QueueTimeout = QueueNone, max(wait, time.Microsecond)
		} else {
			f.Queue, f.QueueTimeout = QueueBounded, wait
		}
		f.RefusalStatus = status
		if status == 0 {
			f.Notes = append(f.Notes, fmt.Sprintf("refused requests got no answer (%s): modelled as a status 0", describeFailures(sat)))
		}
	}
	f.Capacity = float64(f.Servers) / f.ServiceMean.Seconds()
}

// dropOutliers takes off the service-time samples above 3× the median
// when they are fewer than 2% of them: at low load, on a shared machine,
// a lone pause of the generator or the target reads as a service time
// several times the others, and through the empirical distribution would
// become every prediction's p99. A slow tail of 2% or more is kept.
func dropOutliers(service []time.Duration) ([]time.Duration, int) {
	limit := 3 * quantile(service, 0.5)
	var kept []time.Duration
	for _, l := range service {
		if l <= limit {
			kept = append(kept, l)
		}
	}
	dropped := len(service) - len(kept)
	if dropped == 0 || float64(dropped) >= 0.02*float64(len(service)) {
		return service, 0
	}
	return kept, dropped
}

// timeouts counts a probe's failures that were the client giving up.
func timeouts(p *Probe) uint64 {
	var n uint64
	for e, c := range p.Errors {
		if strings.Contains(e, "timeout") || strings.Contains(e, "deadline exceeded") {
			n += c
		}
	}
	return n
}

func describeFailures(p *Probe) string {
	type kv struct {
		k string
		v uint64
	}
	var all []kv
	for code, n := range p.Codes {
		if code != 0 && (code < 200 || code >= 400) {
			all = append(all, kv{fmt.Sprintf("status %d", code), n})
		}
	}
	for e, n := range p.Errors {
		all = append(all, kv{e, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
	var parts []string
	for i, x := range all {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%d × %s", x.v, x.k))
	}
	return strings.Join(parts, ", ")
}

// meanCI is the mean's 95% interval (normal approximation).
func meanCI(ls []time.Duration) [2]time.Duration {
	m := float64(mean(ls))
	if len(ls) < 2 {
		return [2]time.Duration{time.Duration(m), time.Duration(m)}
	}
	var ss float64
	for _, l := range ls {
		ss += (float64(l) - m) * (float64(l) - m)
	}
	se := math.Sqrt(ss/float64(len(ls)-1)) / math.Sqrt(float64(len(ls)))
	return [2]time.Duration{time.Duration(m - 1.96*se), time.Duration(m + 1.96*se)}
}
