package model

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/prediction"
)

// StepPrediction is one step's prediction with what names it.
type StepPrediction struct {
	Step          int    // 1-based
	Name          string // the step's name
	Configuration string // the component variants, "" when none
	Prediction    *Prediction
	ClosedForms   []prediction.ClosedForm
	Notes         []string // what the model left out
	Err           error    // the step could not be modelled
	// Interval, when the prediction rests on measured parameters (a
	// fitted queue), is its range over their intervals; Fit is those
	// parameters, as JSON rows carry them.
	Interval *Interval
	Fit      any
	// Costs says which of the serial manager's costs the prediction
	// assumed (measured on this machine, or a reference machine's).
	Costs string
}

// Row is one step and scenario in the JSON output. Its names are stable:
// scripts read them.
type Row struct {
	Step          int    `json:"step"`
	StepName      string `json:"step_name"`
	Configuration string `json:"configuration,omitempty"`
	*ScenarioPrediction
	Pools       []prediction.Pool       `json:"pools,omitempty"`
	Breakers    []prediction.Breaker    `json:"breakers,omitempty"`
	ClosedForms []prediction.ClosedForm `json:"closed_forms,omitempty"`
	Unsupported []string                `json:"unsupported,omitempty"`
	Knee        *Knee                   `json:"knee,omitempty"`
	Interval    *Interval               `json:"interval,omitempty"`
	Fit         any                     `json:"fit,omitempty"`
	Costs       string                  `json:"costs,omitempty"`
}

// Rows flattens steps into one row per step and scenario.
func Rows(steps []StepPrediction) []Row {
	rows := []Row{}
	for _, sp := range steps {
		if sp.Prediction == nil {
			continue
		}
		for _, s := range sp.Prediction.Scenarios {
			rows = append(rows, Row{Step: sp.Step, StepName: sp.Name, Configuration: sp.Configuration,
				ScenarioPrediction: s, Pools: sp.Prediction.Pools, Breakers: sp.Prediction.Breakers,
				ClosedForms: sp.ClosedForms, Unsupported: sp.Notes, Interval: sp.Interval, Fit: sp.Fit, Costs: sp.Costs})
		}
	}
	return rows
}

// WriteJSON writes one JSON array, an object per step and scenario; a
// knee searched for a step's configuration and scenario is in its rows.
func WriteJSON(w io.Writer, steps []StepPrediction, knees []Knee) error {
	rows := Rows(steps)
	for i := range rows {
		for j := range knees {
			if knees[j].Configuration == rows[i].Configuration && knees[j].Scenario == rows[i].Name {
				rows[i].Knee = &knees[j]
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// WriteText writes the predictions as loadlab report does its figures.
func WriteText(w io.Writer, steps []StepPrediction, knees []Knee) {
	for _, sp := range steps {
		title := fmt.Sprintf("Step %d: %s", sp.Step, sp.Name)
		if sp.Configuration != "" && !strings.Contains(sp.Name, sp.Configuration) {
			title += " (" + sp.Configuration + ")"
		}
		fmt.Fprintln(w, title)
		if sp.Err != nil {
			fmt.Fprintf(w, "  not modelled: %v\n\n", sp.Err)
			continue
		}
		for _, n := range sp.Notes {
			fmt.Fprintf(w, "  not modelled: %s\n", n)
		}
		for _, s := range sp.Prediction.Scenarios {
			writeScenario(w, s)
			if sp.Interval != nil && len(sp.Prediction.Scenarios) == 1 {
				writeInterval(w, sp.Interval)
			}
		}
		for _, ps := range sp.Prediction.Pools {
			writePool(w, ps)
		}
		for _, bs := range sp.Prediction.Breakers {
			writeBreaker(w, bs)
		}
		for _, cf := range sp.ClosedForms {
			writeClosedForm(w, cf)
		}
		if sp.Costs != "" {
			fmt.Fprintf(w, "  costs: %s\n", sp.Costs)
		}
		fmt.Fprintln(w)
	}
	for _, k := range knees {
		WriteKnee(w, k)
	}
}

func writeScenario(w io.Writer, s *ScenarioPrediction) {
	l := s.Latencies
	rate := 0.0
	if s.Duration > 0 {
		rate = float64(s.Requests) / s.Duration.Seconds()
	}
	fmt.Fprintf(w, "  %s\n", s.Name)
	fmt.Fprintf(w, "    Requests      [total, rate]                    %d, %.2f\n", s.Requests, rate)
	fmt.Fprintf(w, "    Latencies     [mean, 50, 90, 95, 99, max]      %s, %s, %s, %s, %s, %s\n",
		round(l.Mean), round(l.P50), round(l.P90), round(l.P95), round(l.P99), round(l.Max))
	fmt.Fprintf(w, "    Success       [ratio]                          %.2f%%\n", s.Success*100)
	fmt.Fprintf(w, "    Status Codes  [code:count]                     %s\n", counts(s.StatusCodes))
	fmt.Fprintf(w, "    Answered by   [origin:count]                   %s\n", counts(s.Answered))
	if s.MaxCheckoutWait > 0 {
		fmt.Fprintf(w, "    Checkout wait [max]                            %s\n", round(s.MaxCheckoutWait))
	}
	if s.Fragile != "" {
		fmt.Fprintf(w, "    Fragile: %s\n", s.Fragile)
	}
}

func writePool(w io.Writer, p prediction.Pool) {
	fmt.Fprintf(w, "  pool %s (%s manager, %d + %d workers): peak in use %d, peak waiting %d, peak mailbox %d; %d checkouts, %d checkout timeouts, %d overflow workers started",
		p.Pool, p.Manager, p.Size, p.Overflow, p.PeakInUse, p.PeakWaiting, p.MailboxPeak, p.Checkouts, p.Timeouts, p.Opened)
	if p.Manager == "serial" && p.ManagerUtilization > 0.01 {
		fmt.Fprintf(w, "; manager busy %.0f%% of the time", 100*p.ManagerUtilization)
		if p.ManagerUtilization >= EdgeUtilization && p.ManagerUtilization < 1 {
			fmt.Fprint(w, " (at its capacity's edge: a prediction here is fragile)")
		}
	}
	fmt.Fprintln(w)
}

func writeBreaker(w io.Writer, b prediction.Breaker) {
	fmt.Fprintf(w, "  breaker on route %s: %s; %d requests rejected\n", b.Route, b.Story(), b.Rejected)
}

func writeClosedForm(w io.Writer, c prediction.ClosedForm) {
	fmt.Fprintf(w, "  closed form for pool %s: capacity W/L = %d / %s = %.1f req/s", c.Pool, c.Workers, round(c.Latency), c.Capacity)
	if c.Overloaded() {
		fmt.Fprintf(w, "; at %.1f req/s latency climbs in steps of W/R = %s, each L - W/R = %s higher, to the ceiling %s",
			c.Rate, round(c.Step), round(c.Rise), round(c.Ceiling))
	}
	fmt.Fprintln(w)
}

// WriteKnee writes one knee search's answer and its points.
func WriteKnee(w io.Writer, k Knee) {
	who := k.Configuration
	if who == "" {
		who = "the system"
	}
	switch {
	case k.Rate == 0:
		fmt.Fprintf(w, "Knee of %s: no rate of %s meets %s (%s)\n", who, k.Scenario, strings.Join(k.Thresholds, ", "), k.Broken)
	case k.Unbounded:
		fmt.Fprintf(w, "Knee of %s: %s still meets %s at %.0f req/s, the search's top\n", who, k.Scenario, strings.Join(k.Thresholds, ", "), k.Rate)
	default:
		fmt.Fprintf(w, "Knee of %s: %s holds up to %.1f req/s ± %.0f%% (%s); above it %s fails\n",
			who, k.Scenario, k.Rate, k.Precision*100, strings.Join(k.Thresholds, ", "), k.Broken)
	}
	if k.Latency != "" {
		fmt.Fprintf(w, "  latency: %s\n", k.Latency)
	}
	for _, p := range k.Points {
		mark := "fails"
		if p.Pass {
			mark = "holds"
		}
		fmt.Fprintf(w, "  %10.1f req/s  success %6.2f%%  p50 %-10s p99 %-10s %s\n", p.Rate, p.Success*100, round(p.P50), round(p.P99), mark)
	}
}

// round shortens a duration for reading, as the report does.
func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.String()
}

func counts(m map[string]uint64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, ea := strconv.Atoi(keys[i])
		b, eb := strconv.Atoi(keys[j])
		if ea == nil && eb == nil {
			return a < b
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
