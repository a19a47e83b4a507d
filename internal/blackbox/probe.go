package blackbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// Probe is one constant-rate attack of the calibration and what it saw.
type Probe struct {
	Rate float64 `json:"rate"` // requests per second asked for
	// Users is a closed probe's concurrency (Rate 0): that many requests
	// in flight at every moment.
	Users    int           `json:"users,omitempty"`
	Duration time.Duration `json:"duration"`
	Sent     uint64        `json:"sent"`
	OK       uint64        `json:"ok"` // 2xx and 3xx
	// Codes counts the answers by status ("0": no answer: a transport
	// error or the client's timeout).
	Codes map[int]uint64 `json:"codes"`
	// Errors counts the transport errors by text.
	Errors map[string]uint64 `json:"errors,omitempty"`
	// OKLatencies and FailLatencies are the send-to-answer latencies of the
	// successful and failed requests.
	OKLatencies   []time.Duration `json:"-"`
	FailLatencies []time.Duration `json:"-"`
	// Blocks is how many time blocks the probe was cut into, LeftOut how
	// many of them the machine disturbed (a pause met a request in
	// flight): left out of the fit. LongestPause is the longest pause
	// seen during the probe, LagP99 the 99th percentile of the
	// generator's schedule lag (sent − due).
	Blocks       int           `json:"blocks"`
	LeftOut      int           `json:"left_out"`
	LongestPause time.Duration `json:"longest_pause,omitempty"`
	LagP99       time.Duration `json:"lag_p99"`
	// firstOK and lastOK are when the first and the last successful
	// answer arrived.
	firstOK, lastOK time.Time
	// samples are the probe's requests, pauses what the control probe
	// saw, blocks the probe cut in time (see cut).
	samples []sample
	pauses  []pause
	blocks  []block
}

// Success is the ratio of successful answers.
func (p *Probe) Success() float64 {
	if p.Sent == 0 {
		return 0
	}
	return float64(p.OK) / float64(p.Sent)
}

// Throughput is the successful answers per second, between the first
// successful answer and the last: a target past its knee keeps answering
// its backlog after the probe's last request at the same pace, so this
// is its service rate, where OK / Duration would count the backlog twice.
// Time blocks the machine disturbed are left out (their answers and
// their time), unless every block was.
func (p *Probe) Throughput() float64 {
	if x, ok := throughputOf(p.paceBlocks()); ok {
		return x
	}
	if span := p.lastOK.Sub(p.firstOK); p.OK > 1 && span > 0 {
		return float64(p.OK-1) / span.Seconds()
	}
	return float64(p.OK) / p.Duration.Seconds()
}

// quantile of sorted-or-not latencies (0 when empty).
func quantile(ls []time.Duration, q float64) time.Duration {
	if len(ls) == 0 {
		return 0
	}
	s := slices.Clone(ls)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func mean(ls []time.Duration) time.Duration {
	if len(ls) == 0 {
		return 0
	}
	var sum time.Duration
	for _, l := range ls {
		sum += l
	}
	return sum / time.Duration(len(ls))
}

// refusal is the most frequent failure status of a probe (0: no answer)
// and how many failures had it.
func (p *Probe) refusal() (status int, n uint64) {
	for code, c := range p.Codes {
		if code >= 200 && code < 400 {
			continue
		}
		if c > n || c == n && code < status {
			status, n = code, c
		}
	}
	return status, n
}

// String is the probe as the calibration's log prints it.
func (p *Probe) String() string {
	var codes []string
	for _, c := range slices.Sorted(mapKeys(p.Codes)) {
		codes = append(codes, fmt.Sprintf("%d:%d", c, p.Codes[c]))
	}
	load := fmt.Sprintf("%.0f/s", p.Rate)
	if p.Users > 0 {
		load = fmt.Sprintf("%d users", p.Users)
	}
	s := fmt.Sprintf("%s for %v: %d sent, %.1f%% ok, p50 %v, p99 %v (%s)", load, p.Duration, p.Sent, 100*p.Success(),
		quantile(p.OKLatencies, 0.5).Round(time.Microsecond), quantile(p.OKLatencies, 0.99).Round(time.Microsecond), strings.Join(codes, " "))
	if p.LeftOut > 0 {
		s += fmt.Sprintf("; %d of %d blocks left out: the machine paused (longest %v, lag p99 %v)", p.LeftOut, p.Blocks, round(p.LongestPause), round(p.LagP99))
	}
	return s
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// probe attacks the target at rate for d with the real generator.
func (c *calibration) probe(ctx context.Context, rate float64, d time.Duration) (*Probe, error) {
	return c.attack(ctx, fmt.Sprintf("%g/s", rate), rate, 0, d)
}

// closedProbe attacks the target with n users for d, each sending its
// next request when the previous one is answered (-rate=0 -max-workers
// n): n requests in service at every moment.
func (c *calibration) closedProbe(ctx context.Context, n int, d time.Duration) (*Probe, error) {
	return c.attack(ctx, "0", 0, n, d)
}

// attack runs one probe: the schedule spec, the rate it stands for (0:
// closed loop of users workers). It sends no request past the
// calibration's budget (the targets end there) and stops sending at its
// deadline; the control probe watches the machine meanwhile.
func (c *calibration) attack(ctx context.Context, spec string, rate float64, users int, d time.Duration) (*Probe, error) {
	sch, err := schedule.Parse(spec, d)
	if err != nil {
		return nil, err
	}
	tr, err := targets.NewRoundRobin(c.targets)
	if err != nil {
		return nil, err
	}
	o := attack.DefaultOptions()
	o.Name = "calibration"
	o.Schedule = sch
	o.Timeout = c.opts.Timeout
	o.Redirects = -1 // a redirect was resolved before: one request here is one at the target
	if users > 0 {
		o.MaxWorkers = users
	}
	atk, err := attack.New(&capped{tr: tr, sent: &c.sent, max: c.opts.Budget}, o)
	if err != nil {
		return nil, err
	}
	c.probes++
	pctx, cancel := context.WithDeadline(ctx, c.deadline)
	defer cancel()
	p := &Probe{Rate: rate, Users: users, Duration: d, Codes: map[int]uint64{}, Errors: map[string]uint64{}}
	w := startWatch()
	err = atk.Run(pctx, func(r *results.Result) {
		if r.Dropped() {
			p.Codes[0]++
			p.Sent++
			p.Errors["dropped: generator at its workers' limit"]++
			return
		}
		p.Sent++
		p.Codes[int(r.Code)]++
		p.samples = append(p.samples, sample{due: r.Due, sent: r.Sent, latency: r.Latency, ok: r.Success()})
		if r.Success() {
			p.OK++
			p.OKLatencies = append(p.OKLatencies, r.Latency)
			done := r.Sent.Add(r.Latency)
			if p.firstOK.IsZero() || done.Before(p.firstOK) {
				p.firstOK = done
			}
			if done.After(p.lastOK) {
				p.lastOK = done
			}
			return
		}
		p.FailLatencies = append(p.FailLatencies, r.Latency)
		if r.Code == 0 && r.Error != "" {
			p.Errors[r.Error]++
		}
	})
	p.pauses = w.end()
	if err != nil && ctx.Err() == nil && pctx.Err() != nil {
		err = nil // the calibration's own deadline: the caller says so
	}
	p.cut(c.gap(p))
	if c.opts.Log != nil {
		fmt.Fprintf(c.opts.Log, "calibration: %s\n", p)
	}
	return p, err
}
