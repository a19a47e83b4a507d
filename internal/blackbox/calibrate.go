package blackbox

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
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
	// ServiceMean its mean with a 95% interval.
	Service       recipe.Empirical `json:"-"`
	ServiceMean   time.Duration    `json:"service_mean"`
	ServiceMeanCI [2]time.Duration `json:"service_mean_ci"`
	// Queue is what happens to a request that finds every server busy;
	// QueueTimeout how long it waits before it is refused with
	// RefusalStatus (bounded), or the client's timeout (unbounded).
	Queue         string        `json:"queue"`
	QueueTimeout  time.Duration `json:"queue_timeout"`
	RefusalStatus int           `json:"refusal_status"`
	// Capacity is Servers / ServiceMean: the highest rate it holds.
	Capacity float64 `json:"capacity"`
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
	// Requests is what the calibration cost; HighestRate the highest rate
	// it tried.
	Requests    uint64   `json:"requests"`
	HighestRate float64  `json:"highest_rate"`
	Probes      []*Probe `json:"probes"`
	// Notes say where the fit is uncertain or the queue cannot express
	// what was seen.
	Notes []string `json:"notes,omitempty"`
}

// calibration is one Calibrate call's state.
type calibration struct {
	opts    Options
	targets []*targets.Target
	spent   uint64
}

// BadTargetError is a calibration that could not start or judge: the
// target is unreachable, answers nothing but errors, or the options are
// out of range. Its message is one line for the user.
type BadTargetError struct{ Msg string }

func (e *BadTargetError) Error() string { return e.Msg }

// Calibrate measures the target and fits its queue. Probes run one after
// the other: a low-rate one for the service time, then rates doubling
// from about one request in service at a time until success falls or the
// latency doubles (the knee crossed), the budget or MaxRate is reached.
func Calibrate(ctx context.Context, o Options) (*Fit, error) {
	o.defaults()
	ts, err := targets.ReadAll(strings.NewReader(o.Target), targets.Options{})
	if err != nil {
		return nil, &BadTargetError{Msg: fmt.Sprintf("target %q: %v", o.Target, err)}
	}
	if len(ts) != 1 {
		return nil, &BadTargetError{Msg: fmt.Sprintf("target %q: want one request line such as 'GET http://127.0.0.1:8080/'", o.Target)}
	}
	c := &calibration{opts: o, targets: ts}
	f := &Fit{Target: o.Target}
	// 1. The service time, at 10 requests a second.
	low, err := c.probe(ctx, 10, o.Step)
	if err != nil {
		return nil, err
	}
	f.Probes = append(f.Probes, low)
	if low.OK == 0 {
		return nil, &BadTargetError{Msg: fmt.Sprintf("%s: no request of %d at 10/s succeeded (%s): nothing to calibrate", o.Target, low.Sent, describeFailures(low))}
	}
	service := append([]time.Duration(nil), low.OKLatencies...)
	s0 := mean(service)
	p50 := quantile(service, 0.5)
	// 2. The ramp: from about one request in service at a time.
	rate := math.Max(20, math.Round(1/s0.Seconds()))
	var good, sat *Probe
	good = low
	for {
		if rate > o.MaxRate || c.spent+uint64(rate*o.Step.Seconds()) > o.Budget {
			break
		}
		p, err := c.probe(ctx, rate, o.Step)
		if err != nil {
			return nil, err
		}
		f.Probes = append(f.Probes, p)
		f.HighestRate = rate
		if crossed(p, p50) && c.spent+uint64(rate*o.Step.Seconds()) <= o.Budget {
			// Once more before believing it: on a shared machine a pause
			// of the generator or the target piles requests up for a
			// moment, and a limit that only then refuses (nginx's
			// limit_conn at a tenth of its capacity) would read as the
			// knee. A transient passes the second time.
			again, err := c.probe(ctx, rate, o.Step)
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
		if crossed(p, p50) && p.Success() > 0.75 && 2*rate <= o.MaxRate && c.spent+uint64(2*rate*o.Step.Seconds()) <= o.Budget {
			// The knee was crossed by latency alone, or barely (fewer
			// than a quarter refused: the probe may be within a third of
			// the capacity, where a pause leaves servers idle and Little's
			// law counts too few): twice the rate, clearly past it, keeps
			// every server busy and shows what the target does with the
			// excess (refuse it after a wait, at once, or keep it
			// waiting). If twice the rate holds, the crossing was a
			// transient: the ramp goes on from there.
			over, err := c.probe(ctx, 2*rate, o.Step)
			if err != nil {
				return nil, err
			}
			f.Probes = append(f.Probes, over)
			f.HighestRate = over.Rate
			if !crossed(over, p50) {
				good = over
				rate = 4 * rate
				continue
			}
			p = over
		}
		if crossed(p, p50) {
			sat = p
			break
		}
		good = p
		if good.Rate*s0.Seconds() < 4 {
			// Still nearly idle: its answers are service times too.
			service = append(service, p.OKLatencies...)
		}
		rate *= 2
	}
	f.Requests = c.spent
	service, dropped := dropOutliers(service)
	if dropped > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d service-time samples above 3× the median dropped as outliers (a paused machine or generator): a tail rarer than 2%% is not modelled", dropped, dropped+len(service)))
	}
	emp, err := recipe.NewEmpirical(service, 200)
	if err != nil {
		return nil, err
	}
	f.Service = emp
	f.ServiceMean = mean(service)
	f.ServiceMeanCI = meanCI(service)
	if sat == nil {
		f.Queue = QueueNotFound
		// No limit seen: as many servers as the highest rate needs, twice.
		f.Servers = int(math.Ceil(2 * f.HighestRate * f.ServiceMean.Seconds()))
		f.Capacity = math.Inf(1)
		f.Notes = append(f.Notes, fmt.Sprintf("no limit found up to %.0f/s (%d requests, the budget): predictions above that rate assume none", f.HighestRate, f.Requests))
		return f, nil
	}
	c.fitQueue(f, sat)
	if err := c.fitContention(ctx, f, sat, low.OKLatencies); err != nil {
		return nil, err
	}
	if lo, hi := f.ServersCI[0], f.ServersCI[1]; hi-lo > 0.3*float64(f.Servers) {
		f.Notes = append(f.Notes, fmt.Sprintf("servers known only within %.1f..%.1f: a longer -fit-step narrows it", lo, hi))
	}
	// Contention: the service time at the highest rate held well below the
	// knee (half the capacity: little queueing) against low load.
	at := 0.0
	for _, p := range f.Probes[1:] {
		if g := mean(p.OKLatencies); p.Rate < f.Capacity/2 && !crossed(p, p50) && g > f.ServiceMean {
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
	x := sat.Throughput()
	cEst := x * hold.Seconds()
	// The interval: Poisson noise on the successes counted, and the
	// service mean's own interval.
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
