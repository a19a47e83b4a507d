package plot

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loadlab/loadlab/internal/results"
)

// svgStats parses an SVG with encoding/xml and counts its elements.
type svgStats struct {
	elems map[string]int
	dots  int // scatter dots ("h0" segments) over all paths
	texts []string
}

func parseSVG(t *testing.T, b []byte) svgStats {
	t.Helper()
	st := svgStats{elems: map[string]int{}}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var inText bool
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			st.elems[e.Name.Local]++
			inText = e.Name.Local == "text"
			if e.Name.Local == "path" {
				for _, a := range e.Attr {
					if a.Name.Local == "d" {
						st.dots += strings.Count(a.Value, "h0")
					}
				}
			}
		case xml.CharData:
			if inText {
				st.texts = append(st.texts, string(e))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if st.elems["svg"] == 0 {
		t.Fatal("no svg element")
	}
	return st
}

func render(t *testing.T, c Chart, name string) svgStats {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSVG(&buf, c); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("LOADLAB_PLOT_OUT"); dir != "" { // to look at the charts
		if err := os.WriteFile(filepath.Join(dir, name+".svg"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return parseSVG(t, buf.Bytes())
}

func has(texts []string, s string) bool {
	for _, t := range texts {
		if t == s {
			return true
		}
	}
	return false
}

func TestChartsFromStaircase(t *testing.T) {
	rs := staircase(180, 60)
	c := NewCollector(400)
	for i := range rs {
		c.Add(&rs[i])
	}
	ta := c.Axis()
	if ta.Span < 60 || ta.Span > 61.1 {
		t.Fatalf("span = %v, want about 61s", ta.Span)
	}
	lat := LatencyChart("Latency over time", ta, c.Latency)
	thr := ThroughputChart("Throughput", ta, c.Timeline)
	codes := StatusChart("Status codes", ta, c.Timeline)

	tests := []struct {
		name       string
		chart      Chart
		series     []string
		minPaths   int
		wantLabels []string
		maxDots    int
	}{
		{"latency", lat, []string{"2xx", "5xx", "error"}, 3, []string{"latency (ms)", "time (s)", "0", "60"}, lat.NumPoints()},
		{"throughput", thr, []string{"sent/s", "success/s (throughput)"}, 2, []string{"per second"}, 0},
		{"codes", codes, []string{"0 (no response)", "200", "500"}, 3, []string{"responses per second"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.chart.Series) != len(tc.series) {
				t.Fatalf("%d series, want %d", len(tc.chart.Series), len(tc.series))
			}
			for i, s := range tc.chart.Series {
				if s.Name != tc.series[i] {
					t.Errorf("series %d = %q, want %q", i, s.Name, tc.series[i])
				}
			}
			st := render(t, tc.chart, tc.name)
			if st.elems["path"] < tc.minPaths {
				t.Errorf("%d paths, want >= %d", st.elems["path"], tc.minPaths)
			}
			for _, l := range append(tc.wantLabels, tc.series...) {
				if !has(st.texts, l) {
					t.Errorf("label %q missing from %v", l, st.texts)
				}
			}
			if st.dots != tc.maxDots {
				t.Errorf("%d dots drawn, want %d", st.dots, tc.maxDots)
			}
		})
	}
	// Throughput at steady state is the rate.
	sent := thr.Series[0].Points
	if got := sent[10].Y; got != 180 {
		t.Errorf("sent/s at 10s = %v, want 180", got)
	}
}

func TestPercentileChart(t *testing.T) {
	var dists []Distribution
	for i, scale := range []int64{1, 2, 4} {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for v := int64(1); v <= 10000; v++ {
			_ = h.RecordValue(v * 100 * scale) // µs
		}
		d := DistributionFromHistogram([]string{"fast", "slower", "slowest"}[i], h, time.Microsecond)
		last := d.Percentiles[len(d.Percentiles)-1]
		if last.Percent >= 100 || last.Value < time.Duration(1000*scale)*time.Millisecond*99/100 {
			t.Fatalf("last point %+v: want the max below 100%%", last)
		}
		dists = append(dists, d)
	}
	c := PercentileChart("HDR", dists...)
	st := render(t, c, "percentiles")
	for _, l := range []string{"0%", "90%", "99%", "99.9%", "99.99%", "fast", "slowest"} {
		if !has(st.texts, l) {
			t.Errorf("label %q missing from %v", l, st.texts)
		}
	}
	if st.elems["path"] != 3 {
		t.Errorf("%d paths, want 3", st.elems["path"])
	}
}

func TestMetricChartSharesTimeAxis(t *testing.T) {
	ta := TimeAxis{Origin: t0, Span: 30}
	var workers, overflow []Sample
	for s := 0; s <= 30; s++ {
		workers = append(workers, Sample{t0.Add(time.Duration(s) * time.Second), math.Min(float64(s)*60, 512)})
		overflow = append(overflow, Sample{t0.Add(time.Duration(s) * time.Second), math.Max(0, math.Min(float64(s)*60-512, 256))})
	}
	c := MetricChart("Pool workers", ta, Metric{"used workers", "workers", workers}, Metric{"overflow", "workers", overflow})
	if c.X.Min != 0 || c.X.Max != 30 {
		t.Fatalf("x axis %+v, want 0..30", c.X)
	}
	st := render(t, c, "metric")
	if !has(st.texts, "30") || !has(st.texts, "workers") || st.elems["path"] != 4 || st.dots != 62 { // 2 lines + their 31 dots each
		t.Errorf("texts %v paths %d dots %d", st.texts, st.elems["path"], st.dots)
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []string
	}{
		{0, 11000, []string{"0", "2500", "5000", "7500", "10000", "12500"}},
		{0, 1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{0, 0.9, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{0, 61, []string{"0", "20", "40", "60", "80"}},
		{0, 1.2, []string{"0", "0.25", "0.5", "0.75", "1", "1.25"}},
		{5, 5, []string{"2", "3", "4", "5", "6", "7", "8"}},
	}
	for _, tc := range tests {
		ticks, _, _ := NiceTicks(tc.lo, tc.hi, 6)
		var got []string
		for _, tk := range ticks {
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("NiceTicks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestPercentileLabel(t *testing.T) {
	for d, want := range []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"} {
		if got := PercentileLabel(float64(d)); got != want {
			t.Errorf("PercentileLabel(%d) = %q, want %q", d, got, want)
		}
	}
}

func TestEmptyChartIsWellFormed(t *testing.T) {
	st := render(t, Chart{Title: `a <b> & "c"`}, "empty")
	if !has(st.texts, `a <b> & "c"`) {
		t.Errorf("title not escaped/kept: %v", st.texts)
	}
}

var _ = results.Result{}

// Report 004: builds 600 times apart are drawn on a log latency axis.
func TestPercentileChartLogWhenFarApart(t *testing.T) {
	mk := func(name string, ms float64) Distribution {
		h := hdrhistogram.New(1, 3_600_000_000, 3)
		for v := 1; v <= 5000; v++ {
			_ = h.RecordValue(int64(ms * 1000 * (0.5 + float64(v)/5000))) // µs
		}
		return DistributionFromHistogram(name, h, time.Microsecond)
	}
	tests := []struct {
		name   string
		dists  []Distribution
		scale  Scale
		labels []string
	}{
		{"alike", []Distribution{mk("09 Jan", 9), mk("03 Feb", 10)}, Linear, []string{"0", "5", "10", "15"}},
		{"regression", []Distribution{mk("09 Jan", 9), mk("04 Feb", 9000)}, Log, []string{"1", "10", "100", "1000", "10000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := PercentileChart("HDR", tc.dists...)
			if c.Y.Scale != tc.scale {
				t.Fatalf("y scale %v, want %v", c.Y.Scale, tc.scale)
			}
			st := render(t, c, "percentiles-"+tc.name)
			for _, l := range tc.labels {
				if !has(st.texts, l) {
					t.Errorf("tick %q missing from %v", l, st.texts)
				}
			}
		})
	}
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0.3, 40, "0.1 0.2 0.5 1 2 5 10 20 50 100"},
		{2, 30000, "1 10 100 1000 10000 100000"},
		{5, 5, "1 2 5 10"},
	}
	for _, tc := range tests {
		r := resolveLog(tc.lo, tc.hi, true)
		var got []string
		for _, tk := range r.ticks {
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("resolveLog(%v, %v) = %v, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}
