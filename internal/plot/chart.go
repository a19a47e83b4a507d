package plot

import "math"

// Kind says how a Series is drawn.
type Kind int

const (
	// Line joins the points in order; a NaN Y breaks the line.
	Line Kind = iota
	// Scatter draws each point as a dot.
	Scatter
	// Step draws a staircase: each Y holds until the next point's X.
	Step
)

// Point is one (x, y) datum in axis units (seconds, milliseconds, percent).
type Point struct{ X, Y float64 }

// Series is a named set of points drawn one way in one colour.
type Series struct {
	Name   string
	Kind   Kind
	Color  string // CSS colour; "" picks the next palette colour
	Dots   bool   // also mark every point of a Line or Step with a dot
	Points []Point
}

// Scale is how an axis maps values to positions.
type Scale int

const (
	// Linear maps values proportionally.
	Linear Scale = iota
	// PercentileLog maps a percentile p (in percent, 0 <= p < 100) to
	// log10(1/(1-p/100)), HdrHistogram's plotter axis: 0%, 90%, 99%, 99.9%
	// sit one decade apart.
	PercentileLog
	// Log maps positive values to log10(v): each power of ten takes the
	// same length. Values <= 0 are drawn at the axis' low end.
	Log
)

// Axis describes one axis. Min and Max fix the range when Max > Min;
// otherwise it is computed from the data (a linear axis then starts at 0
// when all values are positive, as latency and rate charts should).
type Axis struct {
	Label    string
	Scale    Scale
	Min, Max float64
}

// Chart is everything needed to draw one chart.
type Chart struct {
	Title  string
	X, Y   Axis
	Series []Series
	Width  int // pixels; 0 means DefaultWidth
	Height int // pixels; 0 means DefaultHeight
}

// Default chart size in pixels.
const (
	DefaultWidth  = 960
	DefaultHeight = 400
)

// Palette is the colour cycle for series without a Color (Tableau 10).
var Palette = []string{
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
}

// Colors returns the colour of every series, filling in palette colours
// for those without one.
func (c Chart) Colors() []string {
	out := make([]string, len(c.Series))
	next := 0
	for i, s := range c.Series {
		if s.Color != "" {
			out[i] = s.Color
			continue
		}
		out[i] = Palette[next%len(Palette)]
		next++
	}
	return out
}

// Size returns the chart's width and height with defaults applied.
func (c Chart) Size() (w, h int) {
	w, h = c.Width, c.Height
	if w <= 0 {
		w = DefaultWidth
	}
	if h <= 0 {
		h = DefaultHeight
	}
	return w, h
}

// NumPoints is the number of points over all series.
func (c Chart) NumPoints() int {
	n := 0
	for _, s := range c.Series {
		n += len(s.Points)
	}
	return n
}

// dataRange returns the finite extent of the data along x (or y), of its
// positive values only when positive is set.
func (c Chart) dataRange(xAxis, positive bool) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			v := p.Y
			if xAxis {
				v = p.X
			}
			if math.IsNaN(v) || math.IsInf(v, 0) || (positive && v <= 0) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi, lo <= hi
}
