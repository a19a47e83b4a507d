// Package threshold parses and evaluates k6-style pass/fail criteria such as
// "p99 < 1.1s", "success > 99%" or "news: rps >= 0.9", which set the exit
// code of an experiment so it can gate a CI pipeline.
//
// Grammar: [scenario ":"] [step ":"] metric op value
//
//	metric: p50 p90 p95 p99 p99.9 (any pNN), mean, min, max  (latencies; value a duration)
//	        success, errors                                   (ratios; value "99%" or 0.99)
//	        rps (throughput, successful responses per second), requests (count)
//	        checks, check NAME                                (a flow's checks' pass ratio)
//	        sessions_failed, sessions_dropped                 (a flow's sessions, as ratios)
//	op:     <  <=  >  >=  ==
//
// A single name before ":" is a scenario's or a flow step's ("login",
// "browse/search"): the plan tells which (see Threshold.Scenario).
package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Unit says how a metric's value is expressed.
type Unit int

const (
	// Seconds is a latency, stored in seconds.
	Seconds Unit = iota
	// Ratio is a fraction between 0 and 1, written as a percentage.
	Ratio
	// Number is a plain number (requests, requests per second).
	Number
)

// Threshold is one parsed criterion.
type Threshold struct {
	Source    string  // the text as written
	Scenario  string  // "" applies to every scenario (a lone name: a scenario's or a flow step's)
	Step      string  // a flow step's figures ("" the scenario's)
	CheckName string  // metric "check": the check's name
	Metric    string  // normalised metric name: p99, mean, success, rps, checks, ...
	Op        string  // < <= > >= ==
	Value     float64 // seconds, ratio (0..1) or number
	Unit      Unit
}

// Values supplies a scenario's measured figures by metric name: latencies in
// seconds, success and errors as ratios, rps and requests as numbers.
type Values interface {
	Value(metric string) (float64, bool)
}

// Parse reads one threshold. Errors are phrased for the user.
func Parse(s string) (Threshold, error) {
	t := Threshold{Source: strings.TrimSpace(s)}
	rest := t.Source
	for n := 0; n < 2; n++ {
		i := strings.IndexByte(rest, ':')
		if i < 0 || isCheck(rest) {
			break
		}
		name := strings.TrimSpace(rest[:i])
		rest = rest[i+1:]
		if name == "" || strings.ContainsAny(name, "\t<>=") {
			return t, fmt.Errorf("threshold %q: the part before ':' must be a scenario or flow step name", t.Source)
		}
		if n == 0 {
			t.Scenario = name
		} else {
			t.Step = name
		}
	}
	opAt, opLen := -1, 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '<', '>', '=':
			opAt, opLen = i, 1
			if i+1 < len(rest) && rest[i+1] == '=' {
				opLen = 2
			}
		}
		if opAt >= 0 {
			break
		}
	}
	if opAt < 0 {
		return t, fmt.Errorf("threshold %q: no comparison; write e.g. \"p99 < 1.1s\" or \"success > 99%%\"", t.Source)
	}
	t.Op = rest[opAt : opAt+opLen]
	if t.Op == "=" {
		return t, fmt.Errorf("threshold %q: use == for equality", t.Source)
	}
	metric := strings.ToLower(strings.TrimSpace(rest[:opAt]))
	if isCheck(rest[:opAt]) {
		t.CheckName = strings.TrimSpace(strings.TrimSpace(rest[:opAt])[len("check"):])
		metric = "check"
	}
	if metric == "check" && t.CheckName == "" {
		return t, fmt.Errorf("threshold %q: check needs a check's name, e.g. \"check status 200 > 99%%\" (or \"checks\" for all of them)", t.Source)
	}
	value := strings.TrimSpace(rest[opAt+opLen:])
	if strings.ContainsAny(value, "<>=") {
		return t, fmt.Errorf("threshold %q: only one comparison per threshold", t.Source)
	}
	unit, name, err := metricUnit(metric)
	if err != nil {
		return t, fmt.Errorf("threshold %q: %v", t.Source, err)
	}
	t.Metric, t.Unit = name, unit
	if value == "" {
		return t, fmt.Errorf("threshold %q: missing value after %s", t.Source, t.Op)
	}
	switch unit {
	case Seconds:
		d, err := time.ParseDuration(value)
		if err != nil && value != "0" {
			return t, fmt.Errorf("threshold %q: %s is a latency; want a duration like 1.1s or 250ms, got %q", t.Source, name, value)
		}
		t.Value = d.Seconds()
	case Ratio:
		if strings.HasSuffix(value, "%") {
			f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(value, "%")), 64)
			if err != nil || f < 0 || f > 100 {
				return t, fmt.Errorf("threshold %q: want a percentage between 0%% and 100%%, got %q", t.Source, value)
			}
			t.Value = f / 100
		} else {
			f, err := strconv.ParseFloat(value, 64)
			if err != nil || f < 0 || f > 1 {
				return t, fmt.Errorf("threshold %q: want a percentage like 99%% or a fraction between 0 and 1, got %q", t.Source, value)
			}
			t.Value = f
		}
	case Number:
		f, err := strconv.ParseFloat(strings.TrimSuffix(value, "/s"), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return t, fmt.Errorf("threshold %q: want a non-negative number, got %q", t.Source, value)
		}
		t.Value = f
	}
	if math.IsNaN(t.Value) {
		return t, fmt.Errorf("threshold %q: value is not a number", t.Source)
	}
	return t, nil
}

// isCheck reports whether s (what follows the names) starts with the
// metric "check NAME", whose name may hold ':'.
func isCheck(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "check ") || strings.HasPrefix(s, "check\t")
}

// Flow reports whether the threshold is judged on a flow's figures: a
// step's, its checks' or its sessions'.
func (t Threshold) Flow() bool {
	switch t.Metric {
	case "checks", "check", "sessions_failed", "sessions_dropped":
		return true
	}
	return t.Step != ""
}

// Key is the name Check asks Values for: Metric, or for the metric
// "check" "check " and the check's name.
func (t Threshold) Key() string {
	if t.Metric == "check" {
		return "check " + t.CheckName
	}
	return t.Metric
}

func metricUnit(m string) (Unit, string, error) {
	switch m {
	case "checks", "checks_ratio":
		return Ratio, "checks", nil
	case "check":
		return Ratio, "check", nil
	case "sessions_failed", "sessions_dropped":
		return Ratio, m, nil
	case "mean", "avg", "min", "max":
		if m == "avg" {
			m = "mean"
		}
		return Seconds, m, nil
	case "success", "success_ratio":
		return Ratio, "success", nil
	case "errors", "error", "error_ratio", "errors_ratio":
		return Ratio, "errors", nil
	case "rps", "throughput":
		return Number, "rps", nil
	case "requests":
		return Number, "requests", nil
	}
	if p, ok := strings.CutPrefix(m, "p"); ok {
		if p, ok = strings.CutPrefix(p, "("); ok {
			p = strings.TrimSuffix(p, ")")
		}
		f, err := strconv.ParseFloat(p, 64)
		if err == nil && f > 0 && f <= 100 {
			return Seconds, "p" + strconv.FormatFloat(f, 'f', -1, 64), nil
		}
	}
	if m == "" {
		return 0, "", fmt.Errorf("missing metric before the comparison")
	}
	return 0, "", fmt.Errorf("unknown metric %q (known: pNN such as p99, mean, min, max, success, errors, rps, requests, checks, check NAME, sessions_failed, sessions_dropped)", m)
}

// Applies reports whether the threshold concerns the scenario.
func (t Threshold) Applies(scenario string) bool {
	return t.Scenario == "" || t.Scenario == scenario
}

// Check evaluates the threshold against v. It returns the measured value and
// whether the criterion holds; ok is false when v lacks the metric.
func (t Threshold) Check(v Values) (actual float64, pass, ok bool) {
	actual, ok = v.Value(t.Key())
	if !ok {
		return 0, false, false
	}
	switch t.Op {
	case "<":
		pass = actual < t.Value
	case "<=":
		pass = actual <= t.Value
	case ">":
		pass = actual > t.Value
	case ">=":
		pass = actual >= t.Value
	case "==":
		pass = actual == t.Value
	}
	return actual, pass, true
}

// Format writes a value in the threshold's unit: 1.234s, 99.12%, 12.5.
func (t Threshold) Format(v float64) string {
	switch t.Unit {
	case Seconds:
		return time.Duration(v * float64(time.Second)).Round(time.Microsecond).String()
	case Ratio:
		return strconv.FormatFloat(v*100, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
