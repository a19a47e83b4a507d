package plot

import (
	"math/bits"
	"sort"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// BucketsPerDoubling is the latency resolution LatencyPoints keeps while
// collecting: 32 cells per doubling of latency (at most 3.1% apart).
const BucketsPerDoubling = 32

// LatencyPoints collects the points of a latency-over-time scatter, one
// series per attack and status class, downsampled so that the chart looks
// the same as if every result were drawn while the number of points stays
// bounded whatever the number of results.
//
// Time is cut into columns (at least columns and fewer than 2*columns over
// the whole run; the column width doubles as the run grows) and latency
// into cells of 1/BucketsPerDoubling of a doubling. Every occupied (column,
// cell) of every series keeps exactly one point: its slowest result (ties go
// to the earliest). Series then merges the cells of a column that fall in
// the same row of a linear grid of Rows rows from 0 to the slowest latency,
// the resolution of a chart's y axis, again keeping the slowest point.
//
// So each column's slowest result is kept exactly, every error and every
// status class present in a column shows up (each class is its own series),
// a lone error is never hidden by the successes around it, and the output
// does not depend on the order results are added in. A series yields at
// most 2*columns*Rows points whatever the number of results; a steady
// latency gives one or two per column.
type LatencyPoints struct {
	// UseDue plots DueLatency (from the scheduled time, without coordinated
	// omission) instead of Latency. Set it before the first Add.
	UseDue bool
	// Rows is the latency resolution of Series: the y axis from 0 to the
	// slowest result is cut into Rows rows (DefaultRows when 0).
	Rows int

	columns int
	width   int64 // nanoseconds per column, a power of two times 1ms
	minCol  int64
	maxCol  int64
	start   int64 // earliest Sent, unix ns
	end     int64 // latest Sent, unix ns
	n       int64
	series  map[seriesKey]*seriesCells
	last    *seriesCells // cache: the series of the previous point
	lastKey seriesKey
}

// seriesCells holds a series' cells by column, remembering the column of
// the previous point since consecutive results mostly share one.
type seriesCells struct {
	cols    map[int64]map[int32]cell
	lastCol int64
	last    map[int32]cell
}

func (sc *seriesCells) column(col int64) map[int32]cell {
	if sc.last != nil && sc.lastCol == col {
		return sc.last
	}
	c := sc.cols[col]
	if c == nil {
		c = make(map[int32]cell, 4)
		sc.cols[col] = c
	}
	sc.lastCol, sc.last = col, c
	return c
}

type seriesKey struct {
	attack string
	class  Class
}

type cell struct{ t, lat int64 }

// Default resolutions of LatencyPoints, fit for a DefaultWidth SVG chart
// whose dots are 3.5 pixels wide: a column or a row is 1 to 3 pixels.
const (
	DefaultColumns = 300
	DefaultRows    = 120
)

// NewLatencyPoints returns an empty collector that keeps between columns
// and 2*columns time columns (DefaultColumns when columns <= 0).
func NewLatencyPoints(columns int) *LatencyPoints {
	if columns <= 0 {
		columns = DefaultColumns
	}
	return &LatencyPoints{columns: columns, width: int64(time.Millisecond), series: map[seriesKey]*seriesCells{}}
}

// Add records one result. Results without a send time are ignored.
func (lp *LatencyPoints) Add(r *results.Result) {
	if r.Sent.IsZero() {
		return
	}
	lat := r.Latency
	if lp.UseDue {
		lat = r.DueLatency()
	}
	lp.AddPoint(r.Attack, ClassOf(r.Code), r.Sent, lat)
}

// AddPoint records one request of attack, sent at t, with the given class
// and latency.
func (lp *LatencyPoints) AddPoint(attack string, class Class, t time.Time, latency time.Duration) {
	ns := t.UnixNano()
	col := floorDiv(ns, lp.width)
	if lp.n == 0 {
		lp.minCol, lp.maxCol, lp.start, lp.end = col, col, ns, ns
	} else {
		lp.minCol, lp.maxCol = min(lp.minCol, col), max(lp.maxCol, col)
		lp.start, lp.end = min(lp.start, ns), max(lp.end, ns)
	}
	lp.n++
	for lp.maxCol-lp.minCol+1 >= int64(2*lp.columns) {
		lp.coarsen()
		col = floorDiv(ns, lp.width)
	}
	lat := max(int64(latency), 0)
	key := seriesKey{attack, class}
	sc := lp.last
	if sc == nil || key != lp.lastKey {
		sc = lp.series[key]
		if sc == nil {
			sc = &seriesCells{cols: map[int64]map[int32]cell{}}
			lp.series[key] = sc
		}
		lp.last, lp.lastKey = sc, key
	}
	cells := sc.column(col)
	b := bucketOf(lat)
	if old, ok := cells[b]; !ok || better(cell{ns, lat}, old) {
		cells[b] = cell{ns, lat}
	}
}

// better reports whether a should represent a cell instead of b: the slower
// point wins, then the earlier one.
func better(a, b cell) bool {
	if a.lat != b.lat {
		return a.lat > b.lat
	}
	return a.t < b.t
}

// coarsen doubles the column width, merging pairs of columns.
func (lp *LatencyPoints) coarsen() {
	lp.width *= 2
	lp.minCol, lp.maxCol = lp.minCol>>1, lp.maxCol>>1
	for _, sc := range lp.series {
		merged := make(map[int64]map[int32]cell, len(sc.cols)/2+1)
		for col, cells := range sc.cols {
			into := merged[col>>1]
			if into == nil {
				merged[col>>1] = cells
				continue
			}
			for b, c := range cells {
				if old, ok := into[b]; !ok || better(c, old) {
					into[b] = c
				}
			}
		}
		sc.cols, sc.last = merged, nil
	}
}

// bucketOf maps a latency in ns to its cell: exact below 32ns, then 32
// linear cells per doubling, like an HdrHistogram with 5 bits of
// sub-buckets (at most 3.1% apart).
func bucketOf(lat int64) int32 {
	if lat < BucketsPerDoubling {
		return int32(max(lat, 0))
	}
	shift := bits.Len64(uint64(lat)) - 6
	sub := (lat >> shift) & (BucketsPerDoubling - 1)
	return int32((shift+1)*BucketsPerDoubling) + int32(sub)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Count is the number of points added.
func (lp *LatencyPoints) Count() int64 { return lp.n }

// Cells is the number of cells held while collecting, before Series
// merges them into rows; memory use is proportional to it.
func (lp *LatencyPoints) Cells() int {
	k := 0
	for _, sc := range lp.series {
		for _, cells := range sc.cols {
			k += len(cells)
		}
	}
	return k
}

// Start is the earliest send time seen (zero when nothing was added).
func (lp *LatencyPoints) Start() time.Time {
	if lp.n == 0 {
		return time.Time{}
	}
	return time.Unix(0, lp.start)
}

// End is the latest send time seen (zero when nothing was added).
func (lp *LatencyPoints) End() time.Time {
	if lp.n == 0 {
		return time.Time{}
	}
	return time.Unix(0, lp.end)
}

// ColumnWidth is the current width of a time column.
func (lp *LatencyPoints) ColumnWidth() time.Duration { return time.Duration(lp.width) }

// Series returns the kept points as scatter series, X in seconds since
// origin and Y in milliseconds, ordered by attack then status class, each
// coloured by its class (by attack too when there are several attacks).
func (lp *LatencyPoints) Series(origin time.Time) []Series {
	keys := make([]seriesKey, 0, len(lp.series))
	attacks := map[string]bool{}
	for k := range lp.series {
		keys = append(keys, k)
		attacks[k.attack] = true
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].attack != keys[j].attack {
			return keys[i].attack < keys[j].attack
		}
		return keys[i].class < keys[j].class
	})
	o := origin.UnixNano()
	rows := lp.Rows
	if rows <= 0 {
		rows = DefaultRows
	}
	var slowest int64 = 1
	for _, sc := range lp.series {
		for _, cells := range sc.cols {
			for _, c := range cells {
				slowest = max(slowest, c.lat)
			}
		}
	}
	out := make([]Series, 0, len(keys))
	attackIdx := map[string]int{}
	for _, k := range keys {
		type gridKey struct {
			col int64
			row int64
		}
		grid := map[gridKey]cell{}
		for col, cells := range lp.series[k].cols {
			for _, c := range cells {
				gk := gridKey{col, min(c.lat*int64(rows)/slowest, int64(rows-1))}
				if old, ok := grid[gk]; !ok || better(c, old) {
					grid[gk] = c
				}
			}
		}
		pts := make([]cell, 0, len(grid))
		for _, c := range grid {
			pts = append(pts, c)
		}
		sort.Slice(pts, func(i, j int) bool {
			if pts[i].t != pts[j].t {
				return pts[i].t < pts[j].t
			}
			return pts[i].lat < pts[j].lat
		})
		s := Series{Name: k.class.String(), Kind: Scatter, Color: k.class.Color(), Points: make([]Point, len(pts))}
		if len(attacks) > 1 || k.attack != "" {
			s.Name = k.attack + " " + s.Name
			if _, ok := attackIdx[k.attack]; !ok {
				attackIdx[k.attack] = len(attackIdx)
			}
			if len(attacks) > 1 && k.class == Class2xx {
				s.Color = okColors[attackIdx[k.attack]%len(okColors)]
			}
		}
		for i, c := range pts {
			s.Points[i] = Point{X: float64(c.t-o) / 1e9, Y: float64(c.lat) / 1e6}
		}
		out = append(out, s)
	}
	return out
}

// okColors tell successful responses of several attacks apart, avoiding
// the reds and purples of error classes.
var okColors = []string{"#2ca02c", "#1f77b4", "#17becf", "#bcbd22", "#8c564b", "#7f7f7f", "#e377c2"}
