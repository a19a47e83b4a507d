package plot

import (
	"math"
	"strconv"
	"strings"
)

// Tick is one labelled position on an axis, in axis (untransformed) units.
type Tick struct {
	Value float64
	Label string
}

// resolved is an axis with its range and ticks settled, in transformed units
// (identity for Linear, log10(1/(1-p)) for PercentileLog).
type resolved struct {
	scale  Scale
	lo, hi float64 // transformed range
	ticks  []Tick
}

// pos maps v (axis units) to [0, 1] along the axis.
func (r *resolved) pos(v float64) float64 {
	t := transform(r.scale, v)
	if r.hi == r.lo {
		return 0.5
	}
	return (t - r.lo) / (r.hi - r.lo)
}

// minLog is where a Log axis clamps values <= 0.
const minLog = 1e-300

// maxPercentile is where PercentileLog clamps 100% (1 in 10^9).
const maxPercentile = 100 * (1 - 1e-9)

// transform maps an axis value into the space where the scale is linear.
func transform(s Scale, v float64) float64 {
	switch s {
	case PercentileLog:
		p := math.Min(math.Max(v, 0), maxPercentile) / 100
		return math.Log10(1 / (1 - p))
	case Log:
		return math.Log10(math.Max(v, minLog))
	}
	return v
}

// resolve settles an axis's range and ticks from the data extent [lo, hi].
func resolve(a Axis, lo, hi float64, ok bool, nticks int) resolved {
	if a.Max > a.Min {
		lo, hi, ok = a.Min, a.Max, true
	}
	switch a.Scale {
	case PercentileLog:
		return resolvePercentile(lo, hi, ok)
	case Log:
		return resolveLog(lo, hi, ok)
	}
	if !ok {
		lo, hi = 0, 1
	}
	if a.Max <= a.Min && lo > 0 {
		lo = 0 // quantities charted here (latency, rates) read best from zero
	}
	ticks, tlo, thi := NiceTicks(lo, hi, nticks)
	if a.Max > a.Min { // a fixed range is kept exactly
		tlo, thi = a.Min, a.Max
		ticks = inRange(ticks, tlo, thi)
	}
	return resolved{scale: Linear, lo: tlo, hi: thi, ticks: ticks}
}

func inRange(ts []Tick, lo, hi float64) []Tick {
	out := ts[:0:0]
	eps := (hi - lo) * 1e-9
	for _, t := range ts {
		if t.Value >= lo-eps && t.Value <= hi+eps {
			out = append(out, t)
		}
	}
	return out
}

// resolvePercentile gives ticks 0%, 90%, 99%, ... up to the decade that
// contains the highest percentile plotted.
func resolvePercentile(_, hi float64, ok bool) resolved {
	top := 2.0 // at least up to 99%
	if ok {
		top = math.Max(top, math.Ceil(transform(PercentileLog, hi)-1e-9))
	}
	top = math.Min(top, 9)
	var ticks []Tick
	for d := 0.0; d <= top; d++ {
		ticks = append(ticks, Tick{Value: 100 * (1 - math.Pow(10, -d)), Label: PercentileLabel(d)})
	}
	return resolved{scale: PercentileLog, lo: 0, hi: top, ticks: ticks}
}

// resolveLog covers [lo, hi] (positive) with whole decades, ticked at
// 1, 2 and 5 times each power of ten when there are at most three decades.
func resolveLog(lo, hi float64, ok bool) resolved {
	if !ok {
		lo, hi = 1, 10
	}
	dlo, dhi := math.Floor(math.Log10(lo)+1e-9), math.Ceil(math.Log10(hi)-1e-9)
	if dhi <= dlo {
		dhi = dlo + 1
	}
	mults := []float64{1}
	if dhi-dlo <= 3 {
		mults = []float64{1, 2, 5}
	}
	var ticks []Tick
	for d := dlo; d <= dhi; d++ {
		for _, m := range mults {
			v := m * math.Pow(10, d)
			if math.Log10(v) > dhi+1e-9 {
				break
			}
			ticks = append(ticks, Tick{Value: v, Label: formatTick(v, max(0, int(-d)))})
		}
	}
	return resolved{scale: Log, lo: dlo, hi: dhi, ticks: ticks}
}

// PercentileLabel names the percentile d decades along a PercentileLog
// axis: 0 -> "0%", 1 -> "90%", 2 -> "99%", 3 -> "99.9%".
func PercentileLabel(d float64) string {
	n := int(d)
	if n <= 0 {
		return "0%"
	}
	if n == 1 {
		return "90%"
	}
	s := "99"
	if n > 2 {
		s += "." + strings.Repeat("9", n-2)
	}
	return s + "%"
}

// NiceTicks picks about n round tick values (1, 2 or 5 times a power of ten
// apart) covering [lo, hi], and returns them with the rounded-out range.
func NiceTicks(lo, hi float64, n int) (ticks []Tick, nlo, nhi float64) {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
		}
	}
	if n < 2 {
		n = 2
	}
	step := niceStep((hi - lo) / float64(n-1))
	nlo = math.Floor(lo/step) * step
	nhi = math.Ceil(hi/step) * step
	decimals := decimalsFor(step)
	for i := 0; i <= 4*n; i++ { // bounded even when the range overflows
		v := nlo + float64(i)*step
		if v > nhi+step/2 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, Tick{Value: v, Label: formatTick(v, decimals)})
	}
	return ticks, nlo, nhi
}

// niceStep rounds raw up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag*(1+1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// decimalsFor is the number of decimals that prints multiples of step exactly.
func decimalsFor(step float64) int {
	for d := 0; d < 12; d++ {
		v := step * math.Pow(10, float64(d))
		if math.Abs(v-math.Round(v)) < 1e-6*v {
			return d
		}
	}
	return 12
}

// formatTick prints v with at most decimals decimals and no trailing zeros.
func formatTick(v float64, decimals int) string {
	if a := math.Abs(v); a >= 1e9 || (a > 0 && a < 1e-6) || decimals > 9 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	p := math.Pow(10, float64(decimals))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}
