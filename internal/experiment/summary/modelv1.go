package summary

import (
	"math"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/prediction"
)

// stepModelV1 is a step's model as summary.json kept it before the
// prediction had one type (no version key): seconds, and keys of its own.
// It is only read, and upgraded to the current shape.
type stepModelV1 struct {
	Error     string   `json:"error,omitempty"`
	Notes     []string `json:"notes"`
	Scenarios []struct {
		Name        string            `json:"name"`
		Requests    uint64            `json:"requests"`
		Success     float64           `json:"success"`
		Latency     latencySeconds    `json:"latency_seconds"`
		StatusCodes map[string]uint64 `json:"status_codes"`
		AnsweredBy  map[string]uint64 `json:"answered_by"`
		MaxWait     float64           `json:"max_checkout_wait_seconds"`
	} `json:"scenarios"`
	Pools []struct {
		Pool               string  `json:"pool"`
		Manager            string  `json:"manager"`
		Size               int     `json:"size"`
		Overflow           int     `json:"overflow"`
		PeakInUse          int     `json:"peak_in_use"`
		PeakWaiting        int     `json:"peak_waiting"`
		MailboxPeak        int     `json:"mailbox_peak"`
		Checkouts          uint64  `json:"checkouts"`
		Timeouts           uint64  `json:"checkout_timeouts"`
		Opened             uint64  `json:"overflow_opened"`
		Dismissed          uint64  `json:"overflow_dismissed"`
		StartCost          float64 `json:"start_cost_seconds"`
		StopCost           float64 `json:"stop_cost_seconds"`
		Checkout           float64 `json:"checkout_timeout_seconds"`
		FirstTimeout       float64 `json:"first_timeout_seconds"`
		ManagerUtilization float64 `json:"manager_utilization"`
	} `json:"pools"`
	Breakers []struct {
		Route    string `json:"route"`
		Rejected uint64 `json:"rejected"`
		States   string `json:"states"` // "closed, open at 12s, recovering at 72s, ..."
	} `json:"breakers"`
	Closed []struct {
		Pool     string  `json:"pool"`
		Workers  int     `json:"workers"`
		Latency  float64 `json:"origin_latency_seconds"`
		Rate     float64 `json:"rate"`
		Capacity float64 `json:"capacity"`
		Step     float64 `json:"step_seconds"`
		Rise     float64 `json:"rise_seconds"`
		Ceiling  float64 `json:"ceiling_seconds"`
	} `json:"closed_forms"`
	Fragile []string `json:"fragile"`
}

// upgrade is m in the current shape. Version 1 kept no series: a pool
// keeps its peaks and counts, a breaker the state changes its story
// told; a scenario's predicted minimum latency, which nothing read, is
// dropped.
func (m stepModelV1) upgrade() StepModel {
	out := StepModel{Version: StepModelVersion, Error: m.Error, Notes: m.Notes, Fragile: m.Fragile}
	for _, s := range m.Scenarios {
		l := s.Latency.summary()
		l.Min = 0 // a prediction keeps no minimum
		out.Scenarios = append(out.Scenarios, prediction.Scenario{Name: s.Name, Requests: s.Requests, Success: s.Success,
			StatusCodes: s.StatusCodes, Answered: s.AnsweredBy, MaxCheckoutWait: seconds(s.MaxWait), Latencies: l})
	}
	for _, p := range m.Pools {
		out.Pools = append(out.Pools, prediction.Pool{Pool: p.Pool, Manager: p.Manager, Size: p.Size, Overflow: p.Overflow,
			PeakInUse: p.PeakInUse, PeakWaiting: p.PeakWaiting, MailboxPeak: p.MailboxPeak, Checkouts: p.Checkouts,
			Timeouts: p.Timeouts, Opened: p.Opened, Dismissed: p.Dismissed, StartCost: seconds(p.StartCost),
			StopCost: seconds(p.StopCost), CheckoutTimeout: seconds(p.Checkout), FirstTimeout: seconds(p.FirstTimeout),
			ManagerUtilization: p.ManagerUtilization})
	}
	for _, b := range m.Breakers {
		out.Breakers = append(out.Breakers, storyBreaker(b.Route, b.Rejected, b.States))
	}
	for _, c := range m.Closed {
		out.Closed = append(out.Closed, prediction.ClosedForm{Pool: c.Pool, Workers: c.Workers, Latency: seconds(c.Latency),
			Rate: c.Rate, Capacity: c.Capacity, Step: seconds(c.Step), Rise: seconds(c.Rise), Ceiling: seconds(c.Ceiling)})
	}
	return out
}

// storyBreaker turns a version 1 breaker's story ("closed, open at 12s,
// recovering at 72s") back into its state changes, one point each: the
// story and the first opening read from them are the story's. A part
// that does not read as "state at duration" ends the series there.
func storyBreaker(route string, rejected uint64, story string) prediction.Breaker {
	b := prediction.Breaker{Route: route, Rejected: rejected}
	for i, part := range strings.Split(story, ", ") {
		if part == "" {
			break
		}
		if i == 0 {
			b.T, b.State = append(b.T, 0), append(b.State, part)
			continue
		}
		st, at, ok := strings.Cut(part, " at ")
		d, err := time.ParseDuration(at)
		if !ok || err != nil {
			break
		}
		b.T, b.State = append(b.T, d.Seconds()), append(b.State, st)
	}
	return b
}

// seconds is s seconds to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
