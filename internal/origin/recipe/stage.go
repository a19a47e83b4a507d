package recipe

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

func parseStage(raw json.RawMessage, field string) (Stage, error) {
	st := Stage{Latency: Fixed(0), Faults: Faults{SlowRate: DefaultSlowRate, TruncateFraction: DefaultTruncateFraction}}
	m, err := object(raw, field, "want a stage object, e.g. {\"at\": 0, \"status\": 200, \"latency\": \"100ms\"}")
	if err != nil {
		return st, err
	}
	for k := range m {
		if !slices.Contains(stageFields, k) {
			return st, bad(field+"."+k, m[k], "unknown field (known: %s)", strings.Join(stageFields, ", "))
		}
	}
	if v, ok := present(m, "at"); ok {
		if st.At, err = parseMillisOrDuration(v, field+".at"); err != nil {
			return st, err
		}
	}
	v, ok := present(m, "status")
	if !ok {
		return st, bad(field+".status", nil, "missing: want a status code (e.g. 200) or a weighted mix (e.g. {\"200\": 95, \"503\": 5})")
	}
	if st.Status, err = parseStatus(v, field+".status"); err != nil {
		return st, err
	}
	if v, ok := present(m, "latency"); ok {
		if st.Latency, err = parseLatency(v, field+".latency"); err != nil {
			return st, err
		}
	}
	if v, ok := present(m, "faults"); ok {
		if err = parseFaults(v, field+".faults", &st.Faults); err != nil {
			return st, err
		}
	}
	if v, ok := present(m, "contention"); ok {
		if st.Contention, err = parseContention(v, field+".contention"); err != nil {
			return st, err
		}
	}
	return st, nil
}

// parseMillisOrDuration reads 0, a number of milliseconds or a duration
// string.
func parseMillisOrDuration(v json.RawMessage, field string) (time.Duration, error) {
	switch kind(v) {
	case '"':
		s, _ := str(v, field)
		d, err := ParseDuration(s)
		if err != nil {
			return 0, bad(field, v, "%v", err)
		}
		return d, nil
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f < 0 || math.IsNaN(f) || f*float64(time.Millisecond) > float64(MaxDuration) {
			return 0, bad(field, v, "want 0, a number of milliseconds up to %v, or a duration like \"100ms\"", MaxDuration)
		}
		return time.Duration(f * float64(time.Millisecond)), nil
	}
	return 0, bad(field, v, "want 0, a number of milliseconds or a duration like \"100ms\" or \"2s\"")
}

func parseStatus(v json.RawMessage, field string) (StatusMix, error) {
	switch kind(v) {
	case '0', '"':
		s := string(v)
		if kind(v) == '"' {
			s, _ = str(v, field)
		}
		c, ok := statusCode(s)
		if !ok {
			return StatusMix{}, bad(field, v, "want an HTTP status code from 200 to 599")
		}
		return NewStatusMix(map[int]float64{c: 1}), nil
	case '{':
		m, err := object(v, field, "")
		if err != nil {
			return StatusMix{}, err
		}
		weights := map[int]float64{}
		total := 0.0
		for k, w := range m {
			c, ok := statusCode(k)
			if !ok {
				return StatusMix{}, bad(field+"."+k, jsonString(k), "want an HTTP status code from 200 to 599 as the key")
			}
			f, err := strconv.ParseFloat(string(w), 64)
			if kind(w) != '0' || err != nil || f < 0 || math.IsInf(f, 0) {
				return StatusMix{}, bad(field+"."+k, w, "want a weight >= 0")
			}
			weights[c] += f
			total += f
		}
		if total <= 0 || math.IsInf(total, 0) {
			return StatusMix{}, bad(field, v, "want weights that add up to more than 0")
		}
		return NewStatusMix(weights), nil
	}
	return StatusMix{}, bad(field, v, "want a status code (e.g. 200) or a weighted mix (e.g. {\"200\": 95, \"503\": 5})")
}

func statusCode(s string) (int, bool) {
	c, err := strconv.Atoi(strings.TrimSpace(s))
	return c, err == nil && c >= 200 && c <= 599
}

var latencyForms = `want 0, a duration ("100ms", "2s"), a range ("100ms..500ms") or a distribution object`

func parseLatency(v json.RawMessage, field string) (Latency, error) {
	switch kind(v) {
	case '0':
		d, err := parseMillisOrDuration(v, field)
		return Fixed(d), err
	case '"':
		s, _ := str(v, field)
		lo, hi, err := ParseDurationRange(s)
		if err != nil {
			return nil, bad(field, v, "%v", err)
		}
		if strings.Contains(s, "..") {
			return Uniform{Min: lo, Max: hi}, nil
		}
		return Fixed(lo), nil
	case '{':
		return parseDistribution(v, field)
	}
	return nil, bad(field, v, "%s", latencyForms)
}

var distFields = map[string][]string{
	"fixed":     {"value"},
	"uniform":   {"min", "max"},
	"normal":    {"mean", "stddev", "max"},
	"lognormal": {"p50", "p99", "max"},
	"pareto":    {"min", "alpha", "max"},
}

func parseDistribution(v json.RawMessage, field string) (Latency, error) {
	m, err := object(v, field, "")
	if err != nil {
		return nil, err
	}
	dv, ok := present(m, "distribution")
	if !ok {
		return nil, bad(field+".distribution", nil, "missing: want one of fixed, uniform, normal, lognormal, pareto")
	}
	name, err := str(dv, field+".distribution")
	if err != nil {
		return nil, err
	}
	allowed, ok := distFields[name]
	if !ok {
		return nil, bad(field+".distribution", dv, "want one of fixed, uniform, normal, lognormal, pareto")
	}
	for k := range m {
		if k != "distribution" && !slices.Contains(allowed, k) {
			return nil, bad(field+"."+k, m[k], "unknown field for %s (known: %s)", name, strings.Join(allowed, ", "))
		}
	}
	dur := func(k string, required bool) (time.Duration, error) {
		x, ok := present(m, k)
		if !ok {
			if required {
				return 0, bad(field+"."+k, nil, "missing: the %s distribution needs %s", name, strings.Join(allowed, ", "))
			}
			return 0, nil
		}
		return parseMillisOrDuration(x, field+"."+k)
	}
	var max time.Duration
	if slices.Contains(allowed, "max") && name != "uniform" {
		if max, err = dur("max", false); err != nil {
			return nil, err
		}
	}
	switch name {
	case "fixed":
		d, err := dur("value", true)
		return Fixed(d), err
	case "uniform":
		lo, err := dur("min", true)
		if err != nil {
			return nil, err
		}
		hi, err := dur("max", true)
		if err != nil {
			return nil, err
		}
		if hi < lo {
			return nil, bad(field+".max", m["max"], "smaller than min")
		}
		return Uniform{Min: lo, Max: hi}, nil
	case "normal":
		mean, err := dur("mean", true)
		if err != nil {
			return nil, err
		}
		sd, err := dur("stddev", true)
		if err != nil {
			return nil, err
		}
		return Normal{Mean: mean, StdDev: sd, Max: max}, nil
	case "lognormal":
		p50, err := dur("p50", true)
		if err != nil {
			return nil, err
		}
		p99, err := dur("p99", true)
		if err != nil {
			return nil, err
		}
		if p50 <= 0 {
			return nil, bad(field+".p50", m["p50"], "want a median above 0")
		}
		if p99 < p50 {
			return nil, bad(field+".p99", m["p99"], "smaller than p50")
		}
		return LogNormal{P50: p50, P99: p99, Max: max}, nil
	default: // pareto
		lo, err := dur("min", true)
		if err != nil {
			return nil, err
		}
		if lo <= 0 {
			return nil, bad(field+".min", m["min"], "want a scale above 0")
		}
		av, ok := present(m, "alpha")
		if !ok {
			return nil, bad(field+".alpha", nil, "missing: the pareto distribution needs min and alpha")
		}
		a, perr := strconv.ParseFloat(string(av), 64)
		if kind(av) != '0' || perr != nil || a <= 0 || math.IsInf(a, 0) {
			return nil, bad(field+".alpha", av, "want a shape above 0, e.g. 1.5")
		}
		return Pareto{Min: lo, Alpha: a, Max: max}, nil
	}
}

func parseFaults(v json.RawMessage, field string, f *Faults) error {
	m, err := object(v, field, "want an object such as {\"reset\": 0.01, \"slow_body\": {\"probability\": 0.1, \"rate\": \"10kb\"}}")
	if err != nil {
		return err
	}
	sum := 0.0
	for k, fv := range m {
		kf := field + "." + k
		fault, ok := ParseFault(k)
		if !ok || fault == None || k == "slow" {
			return bad(kf, fv, "unknown fault (known: reset, close, hang, slow_body, truncate)")
		}
		var p json.RawMessage
		switch kind(fv) {
		case 'n':
			continue
		case '0':
			p = fv
		case '{':
			fm, err := object(fv, kf, "")
			if err != nil {
				return err
			}
			params := map[Fault][]string{SlowBody: {"rate"}, Truncate: {"fraction"}}[fault]
			for pk := range fm {
				if pk != "probability" && !slices.Contains(params, pk) {
					return bad(kf+"."+pk, fm[pk], "unknown field (known: %s)", strings.Join(append([]string{"probability"}, params...), ", "))
				}
			}
			p = fm["probability"]
			if p == nil {
				return bad(kf+".probability", nil, "missing: want a probability from 0 to 1")
			}
			kf += ".probability"
			if rv, ok := present(fm, "rate"); ok {
				s, err := str(rv, field+"."+k+".rate")
				if err != nil {
					return err
				}
				n, perr := ParseSize(s)
				if perr != nil || n <= 0 {
					return bad(field+"."+k+".rate", rv, "want a size per second above 0, e.g. \"10kb\"")
				}
				f.SlowRate = n
			}
			if fv2, ok := present(fm, "fraction"); ok {
				x, perr := strconv.ParseFloat(string(fv2), 64)
				if kind(fv2) != '0' || perr != nil || x < 0 || x >= 1 {
					return bad(field+"."+k+".fraction", fv2, "want the part of the body to send, from 0 up to (not including) 1")
				}
				f.TruncateFraction = x
			}
		default:
			return bad(kf, fv, "want a probability from 0 to 1, or an object with \"probability\"")
		}
		x, perr := strconv.ParseFloat(string(p), 64)
		if kind(p) != '0' || perr != nil || x < 0 || x > 1 {
			return bad(kf, p, "want a probability from 0 to 1")
		}
		f.Prob[fault] = x
		sum += x
	}
	if sum > 1+1e-9 {
		return bad(field, v, "the fault probabilities add up to more than 1")
	}
	return nil
}
