package blackbox

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/targets"
)

// maxProbes bounds the attacks of one calibration (the low-load probe and
// its redos, the ramp, its repeats, the closed probes of the contention
// fit): with the probe's length and the client's timeout, it bounds the
// calibration's duration.
const maxProbes = 30

// drains is how many times the worst case lets the calibration wait the
// client's whole timeout for a probe's last answers: past the deadline a
// probe stops sending and waits at most one more.
const drains = 3

// maxHops is how many redirects the calibration follows before its
// probes: the chain is resolved once, and the probes attack its end.
const maxHops = 5

// Worst is the most a calibration with these options may cost: the
// requests the target may receive and the wall time, both announced
// before it starts and never exceeded (the targets end at the budget;
// the probes stop sending at the deadline and wait at most one timeout
// for their last answers).
type Worst struct {
	Requests uint64        `json:"requests"`
	Duration time.Duration `json:"duration"`
}

// Worst returns what a calibration with o may cost at most.
func (o Options) Worst() Worst {
	o.defaults()
	return Worst{Requests: o.Budget, Duration: maxProbes*o.Step + drains*o.Timeout}
}

// String is the announcement: "at most 40000 requests and 2m30s (...)".
func (w Worst) String() string {
	return fmt.Sprintf("at most %d requests and %v", w.Requests, w.Duration)
}

// capped hands out the probe's targets until the calibration's budget is
// spent, then ends them: the attack stops sending, so the target never
// receives more than the budget, whatever the schedule.
type capped struct {
	tr   targets.Targeter
	sent *atomic.Uint64
	max  uint64
}

// Next is the next target, or io.EOF once the budget is spent.
func (c *capped) Next() (*targets.Target, error) {
	if c.sent.Add(1) > c.max {
		c.sent.Add(^uint64(0))
		return nil, io.EOF
	}
	return c.tr.Next()
}

// gap is the shortest pause that disturbs a probe: half the target's
// median service time (as the first probe measured it, or this one), at
// least minPause. Shorter stalls are in every measurement on a shared
// machine and in the target's own service.
func (c *calibration) gap(p *Probe) time.Duration {
	med := c.p50
	if med == 0 {
		med = quantile(p.OKLatencies, 0.5)
	}
	return max(minPause, med/2)
}

// Redirect is a redirect the calibration found at the target before its
// probes: From answered Status with a Location, To is where the chain
// ended; the probes calibrated To.
type Redirect struct {
	From   string `json:"from"`
	Status int    `json:"status"`
	To     string `json:"to"`
	Hops   int    `json:"hops"`
}

// resolve sends the target's request once, following its redirects by
// hand (at most maxHops, each counted in the budget), and when it
// redirects, points the calibration at the chain's end: the probes then
// send each request to it directly and follow nothing, so that one
// probe request is one request the target receives and the fit is of the
// target that answers. Only a static request (URL and body) is resolved:
// it is sent as the probes send it.
func (c *calibration) resolve(ctx context.Context) (*Redirect, error) {
	t := c.targets[0]
	if !t.URL.Static() || t.Body != nil && !t.Body.Static() {
		return nil, nil
	}
	from := t.URL.Text()
	ctx, cancel := context.WithDeadline(ctx, c.deadline)
	defer cancel()
	cl := &http.Client{Timeout: min(c.opts.Timeout, 10*time.Second),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer cl.CloseIdleConnections()
	at := from
	var rd *Redirect
	sent, last := 0, "no answer"
	defer func() {
		if c.opts.Log != nil && sent > 0 {
			fmt.Fprintf(c.opts.Log, "calibration: the first request, for redirects: %d sent, %s\n", sent, last)
		}
	}()
	for hop := 0; hop < maxHops; hop++ {
		if c.sent.Add(1) > c.opts.Budget {
			c.sent.Add(^uint64(0))
			return rd, nil
		}
		var body io.Reader
		if t.Body != nil {
			body = strings.NewReader(t.Body.Text())
		}
		req, err := http.NewRequestWithContext(ctx, t.Method, at, body)
		if err != nil {
			c.sent.Add(^uint64(0)) // not sent
			return rd, nil
		}
		for _, h := range t.Header {
			if h.Value.Static() {
				if h.Name == "Host" {
					req.Host = h.Value.Text()
				} else {
					req.Header.Add(h.Name, h.Value.Text())
				}
			}
		}
		sent++
		resp, err := cl.Do(req)
		if err != nil {
			return rd, nil // the low-load probe says what fails
		}
		last = fmt.Sprintf("status %d", resp.StatusCode)
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		loc, err := resp.Location()
		if resp.StatusCode < 300 || resp.StatusCode >= 400 || err != nil {
			break
		}
		if rd == nil {
			rd = &Redirect{From: from, Status: resp.StatusCode}
		}
		rd.Hops++
		rd.To = loc.String()
		at = loc.String()
	}
	if rd == nil || rd.To == from {
		return nil, nil
	}
	u, err := url.Parse(rd.To)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, &BadTargetError{Msg: fmt.Sprintf("%s redirects (%d) to %s: not an http(s) URL to calibrate", from, rd.Status, rd.To)}
	}
	ts, err := targets.ReadAll(strings.NewReader(strings.Replace(c.opts.Target, from, rd.To, 1)), targets.Options{})
	if err != nil || len(ts) != 1 {
		return nil, &BadTargetError{Msg: fmt.Sprintf("%s redirects (%d) to %s, which is not a target to calibrate: %v", from, rd.Status, rd.To, err)}
	}
	c.targets = ts
	return rd, nil
}

// failsAtLowLoad is the refusal of a target that fails at the lowest
// rate: more than half of the low-load probe's requests failed. A queue
// serves what it can hold; a target refusing most requests when nearly
// idle (a 403, a 404, a broken upstream) has no capacity to find.
func failsAtLowLoad(target string, p *Probe) error {
	if p.Success() >= 0.5 && p.OK > 0 {
		return nil
	}
	status, n := p.refusal()
	what := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if status == 0 {
		what = "no answer: " + describeFailures(p)
		if len(what) > 120 {
			what = what[:120] + "…"
		}
	}
	share := 0.0
	if p.Sent > 0 {
		share = 100 * float64(n) / float64(p.Sent)
	}
	return &BadTargetError{Msg: fmt.Sprintf("%s: the target fails at %.0f req/s (%s on %.0f%% of %d requests): it is not a queue to fit",
		target, p.Rate, what, share, p.Sent)}
}
