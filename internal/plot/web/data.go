package web

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/loadlab/loadlab/internal/plot"
)

// chartSpec is what the page's script turns into a uPlot chart.
type chartSpec struct {
	Title  string          `json:"title"`
	XLabel string          `json:"xlabel"`
	YLabel string          `json:"ylabel"`
	XPct   bool            `json:"xpct"` // x is 1/(1-p), drawn on a log axis labelled in percent
	YLog   bool            `json:"ylog,omitempty"`
	XMin   *float64        `json:"xmin,omitempty"`
	XMax   *float64        `json:"xmax,omitempty"`
	Height int             `json:"height"`
	Series []seriesSpec    `json:"series"`
	Data   json.RawMessage `json:"data"` // uPlot aligned data: [xs, ys1, ys2...]
}

type seriesSpec struct {
	Name  string `json:"name"`
	Color string `json:"color"`
	Kind  string `json:"kind"` // "line", "scatter" or "step"
	Dots  bool   `json:"dots,omitempty"`
}

var kindNames = map[plot.Kind]string{plot.Line: "line", plot.Scatter: "scatter", plot.Step: "step"}

// xPrecision rounds x values (seconds, or 1/(1-p)) to keep the page small.
const xDigits = 4

// spec converts a Chart into uPlot's aligned-data form: one ascending x
// array that is the union of every series' x values, and per series a y
// array with null where that series has no point.
func spec(c plot.Chart) chartSpec {
	pct := c.X.Scale == plot.PercentileLog
	_, h := c.Size()
	ylog := c.Y.Scale == plot.Log
	s := chartSpec{Title: c.Title, XLabel: c.X.Label, YLabel: c.Y.Label, XPct: pct, YLog: ylog, Height: h, Series: []seriesSpec{}}
	if c.X.Max > c.X.Min {
		lo, hi := xval(c.X.Min, pct), xval(c.X.Max, pct)
		s.XMin, s.XMax = &lo, &hi
	}
	colors := c.Colors()
	type key struct {
		x float64
		n int // occurrence of x within its series, so equal x values stay apart
	}
	cols := map[key]int{}
	var xs []key
	per := make([][]key, len(c.Series))
	for i, sr := range c.Series {
		s.Series = append(s.Series, seriesSpec{Name: sr.Name, Color: colors[i], Kind: kindNames[sr.Kind], Dots: sr.Dots})
		seen := map[float64]int{}
		for _, p := range sr.Points {
			if !finite(p.X) {
				continue
			}
			x := round(xval(p.X, pct), xDigits)
			k := key{x, seen[x]}
			seen[x]++
			per[i] = append(per[i], k)
			if _, ok := cols[k]; !ok {
				cols[k] = 0
				xs = append(xs, k)
			}
		}
	}
	sort.Slice(xs, func(i, j int) bool {
		if xs[i].x != xs[j].x {
			return xs[i].x < xs[j].x
		}
		return xs[i].n < xs[j].n
	})
	for i, k := range xs {
		cols[k] = i
	}
	b := []byte{'['}
	b = appendArray(b, len(xs), func(i int) (float64, bool) { return xs[i].x, true })
	for i, sr := range c.Series {
		ys := make([]float64, len(xs))
		has := make([]bool, len(xs))
		j := 0
		for _, p := range sr.Points {
			if !finite(p.X) {
				continue
			}
			col := cols[per[i][j]]
			j++
			if finite(p.Y) && (!ylog || p.Y > 0) { // a log axis cannot show 0
				ys[col], has[col] = p.Y, true
			}
		}
		b = append(b, ',')
		b = appendArray(b, len(xs), func(i int) (float64, bool) { return ys[i], has[i] })
	}
	s.Data = append(b, ']')
	return s
}

func xval(v float64, pct bool) float64 {
	if !pct {
		return v
	}
	p := math.Min(math.Max(v, 0), 100*(1-1e-9)) / 100
	return 1 / (1 - p)
}

func appendArray(b []byte, n int, at func(int) (float64, bool)) []byte {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		v, ok := at(i)
		if !ok {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, significant(v), 'g', -1, 64)
	}
	return append(b, ']')
}

// significant keeps 7 significant digits, plenty for a chart.
func significant(v float64) float64 {
	if v == 0 {
		return 0
	}
	d := 6 - int(math.Floor(math.Log10(math.Abs(v))))
	return round(v, d)
}

func round(v float64, digits int) float64 {
	if digits > 15 || digits < -15 {
		return v
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
