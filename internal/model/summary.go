package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Summary is the step's prediction as summary.json keeps it.
func (sp StepPrediction) Summary() *summary.StepModel {
	m := &summary.StepModel{Notes: sp.Notes}
	if sp.Err != nil {
		m.Error = sp.Err.Error()
		return m
	}
	p := sp.Prediction
	for _, s := range p.Scenarios {
		l := s.Latencies
		if s.Fragile != "" {
			m.Fragile = append(m.Fragile, s.Fragile)
		}
		m.Scenarios = append(m.Scenarios, summary.PredictedScenario{
			Name: s.Scenario, Requests: s.Requests, Success: s.Success, StatusCodes: s.StatusCodes, AnsweredBy: s.Answered,
			MaxCheckoutWait: s.MaxCheckoutWait.Seconds(),
			Latency: summary.LatencySummary{Min: s.min.Seconds(), Mean: l.Mean.Seconds(), P50: l.P50.Seconds(), P90: l.P90.Seconds(),
				P95: l.P95.Seconds(), P99: l.P99.Seconds(), Max: l.Max.Seconds()},
		})
	}
	for _, ps := range p.Pools {
		m.Pools = append(m.Pools, summary.PredictedPool{Pool: ps.Pool, Manager: ps.Manager, Size: ps.Size, Overflow: ps.Overflow,
			PeakInUse: peak(ps.InUse), PeakWaiting: peak(ps.Waiting), MailboxPeak: ps.MailboxPeak, Checkouts: ps.Checkouts,
			Timeouts: ps.Timeouts, Opened: ps.Opened, Dismissed: ps.Dismissed, StartCost: ps.StartCost.Seconds(),
			StopCost: ps.StopCost.Seconds(), Checkout: ps.CheckoutTimeout.Seconds(), FirstTimeout: ps.FirstTimeout.Seconds(),
			ManagerUtilization: ps.ManagerUtilization})
	}
	for _, b := range p.Breakers {
		pb := summary.PredictedBreaker{Route: b.Route, Rejected: b.Rejected, States: breakerStory(b)}
		for i, st := range b.State {
			if st == "open" {
				pb.Opened = b.T[i]
				break
			}
		}
		m.Breakers = append(m.Breakers, pb)
	}
	for _, c := range sp.ClosedForms {
		m.Closed = append(m.Closed, summary.ClosedForm{Pool: c.Pool, Workers: c.Workers, Latency: c.Latency.Seconds(),
			Rate: c.Rate, Capacity: c.Capacity, Step: c.Step.Seconds(), Rise: c.Rise.Seconds(), Ceiling: c.Ceiling.Seconds()})
	}
	return m
}

// breakerStory lists a breaker's state changes: "closed, open at 12s, ...".
func breakerStory(b BreakerSeries) string {
	var parts []string
	last := ""
	for i, st := range b.State {
		if st != last {
			if last == "" {
				parts = append(parts, st)
			} else {
				parts = append(parts, fmt.Sprintf("%s at %s", st, time.Duration(b.T[i]*float64(time.Second))))
			}
			last = st
		}
	}
	return strings.Join(parts, ", ")
}
