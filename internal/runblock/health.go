package runblock

import (
	"strconv"
	"strings"
	"time"
)

// UnknownHealth is the health of a run nothing was measured of (a run
// archived before the archive kept it, an empty stream): every share and
// lag Unknown, Noise 0.
func UnknownHealth() Health {
	return Health{LagP50: time.Duration(Unknown), LagP99: time.Duration(Unknown),
		GeneratorCPU: Unknown, GeneratorSaturated: Unknown, Busy: Unknown, Steal: Unknown}
}

// LagHealth is the health the results alone tell: the lag percentiles and
// Noise (lagP99 over latencyP99, the latency from due); the machine's
// shares Unknown.
func LagHealth(lagP50, lagP99, latencyP99 time.Duration) Health {
	h := UnknownHealth()
	h.LagP50, h.LagP99 = lagP50, lagP99
	if latencyP99 > 0 {
		h.Noise = float64(lagP99) / float64(latencyP99)
	}
	return h
}

// WithMachine is h with the machine's part (generator CPU, saturation,
// busy and steal shares) taken from m, as a Probe measured it, and the
// pacer's mode and fallback, as the attack recorded them.
func (h Health) WithMachine(m Health) Health {
	h.GeneratorCPU, h.GeneratorSaturated, h.Busy, h.Steal = m.GeneratorCPU, m.GeneratorSaturated, m.Busy, m.Steal
	h.Pacer, h.PacerFallback = m.Pacer, m.PacerFallback
	return h
}

// Known reports whether anything of h was measured.
func (h Health) Known() bool {
	return h.LagP99 >= 0 || known(h.GeneratorCPU) || known(h.Busy) || known(h.Steal)
}

// Short is h in a few words for a table column: "noisy" when Judge says
// so, else the lag's share of the p99 and the machine's busy share ("lag
// 3% busy 40%"), "-" when nothing was measured.
func (h Health) Short() string {
	if noisy, _ := h.Judge(); noisy {
		return "noisy"
	}
	var parts []string
	if h.LagP99 >= 0 {
		parts = append(parts, "lag "+percent(h.Noise))
	}
	if known(h.Busy) {
		parts = append(parts, "busy "+percent(h.Busy))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// Line is h as one line for a report or a run's page: "generator CPU
// 0.42 cores, busy 31%, steal 0%, lag p99 1.2ms (3% of p99)", with
// "noisy: <why>" appended when Judge says so; "" when nothing was
// measured.
func (h Health) Line() string {
	var parts []string
	if known(h.GeneratorCPU) {
		p := "generator CPU " + strconv.FormatFloat(h.GeneratorCPU, 'f', 2, 64) + " cores"
		if known(h.GeneratorSaturated) && h.GeneratorSaturated > 0 {
			p += " (saturated " + percent(h.GeneratorSaturated) + " of the time)"
		}
		parts = append(parts, p)
	}
	if known(h.Busy) {
		parts = append(parts, "busy "+percent(h.Busy))
	}
	if known(h.Steal) {
		parts = append(parts, "steal "+percent(h.Steal))
	}
	if h.LagP99 >= 0 {
		parts = append(parts, "lag p99 "+h.LagP99.Round(10*time.Microsecond).String()+" ("+percent(h.Noise)+" of p99)")
	}
	switch {
	case h.PacerFallback != "":
		parts = append(parts, "pacer "+h.PacerFallback)
	case h.Pacer != "":
		parts = append(parts, "pacer "+h.Pacer)
	}
	if len(parts) == 0 {
		return ""
	}
	line := strings.Join(parts, ", ")
	if noisy, why := h.Judge(); noisy {
		line += "; noisy: " + why
	}
	return line
}

// Combine is the health of a whole made of parts that ran one after the
// other (a run's steps) or at once (a step's scenarios), each weighted
// by its wall time: the machine's shares and the generator's CPU are the
// weighted means of the parts that measured them; the lag and Noise are
// the worst part's, since one noisy part is enough to doubt the whole;
// so is the pacer (batched if any part was) and its first fallback.
func Combine(parts []Health, weights []time.Duration) Health {
	out := UnknownHealth()
	var sum [4]float64
	var wsum [4]float64
	for i, p := range parts {
		w := 1.0
		if i < len(weights) && weights[i] > 0 {
			w = weights[i].Seconds()
		}
		for j, v := range [4]float64{p.GeneratorCPU, p.GeneratorSaturated, p.Busy, p.Steal} {
			if known(v) {
				sum[j] += v * w
				wsum[j] += w
			}
		}
		if out.PacerFallback == "" {
			out.PacerFallback = p.PacerFallback
		}
		if out.Pacer == "" || p.Pacer == "batched" {
			out.Pacer = p.Pacer
		}
		if p.LagP99 >= 0 {
			out.LagP50 = max(out.LagP50, p.LagP50)
			out.LagP99 = max(out.LagP99, p.LagP99)
			out.Noise = max(out.Noise, p.Noise)
		}
	}
	dst := [4]*float64{&out.GeneratorCPU, &out.GeneratorSaturated, &out.Busy, &out.Steal}
	for j := range dst {
		if wsum[j] > 0 {
			*dst[j] = sum[j] / wsum[j]
		}
	}
	return out
}
