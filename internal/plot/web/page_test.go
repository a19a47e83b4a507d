package web

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/plot"
	"github.com/loadlab/loadlab/internal/results"
)

func sampleCharts() []plot.Chart {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	c := plot.NewCollector(200)
	for i := 0; i < 3000; i++ {
		r := results.Result{Sent: t0.Add(time.Duration(i) * 10 * time.Millisecond), Latency: time.Duration(2+i%7) * time.Millisecond, Code: 200}
		if i%50 == 0 {
			r.Code, r.Error = 503, "503 Service Unavailable"
		}
		if i%333 == 0 {
			r.Code, r.Error, r.Latency = 0, "connection refused", 100*time.Microsecond
		}
		c.Add(&r)
	}
	ta := c.Axis()
	d := plot.Distribution{Name: "run </script>", Percentiles: []plot.Percentile{
		{Percent: 0, Value: time.Millisecond}, {Percent: 50, Value: 2 * time.Millisecond},
		{Percent: 90, Value: 4 * time.Millisecond}, {Percent: 99.9, Value: 9 * time.Millisecond},
	}}
	slow := plot.Distribution{Name: "slow build", Percentiles: []plot.Percentile{
		{Percent: 0, Value: 0}, {Percent: 50, Value: 2 * time.Second},
		{Percent: 90, Value: 5 * time.Second}, {Percent: 99.9, Value: 30 * time.Second},
	}}
	return []plot.Chart{
		plot.LatencyChart("Latency", ta, c.Latency),
		plot.ThroughputChart("Throughput", ta, c.Timeline),
		plot.StatusChart("Status codes", ta, c.Timeline),
		plot.PercentileChart("Percentiles", d, slow),
	}
}

var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`)

func TestWriteSelfContained(t *testing.T) {
	charts := sampleCharts()
	var buf bytes.Buffer
	p := Page{Title: "Plot <test>", Sections: []Section{
		{Title: "Run", Text: "Requests [total] 3000", Tables: []Table{{Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}}, Charts: charts[:3]},
		{Title: "Compare", Charts: charts[3:]},
		{Title: "Empty", Charts: []plot.Chart{{Title: "no data"}}},
	}}
	if err := Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	if dir := os.Getenv("LOADLAB_PLOT_OUT"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "page.html"), buf.Bytes(), 0o644)
	}
	if m := externalRef.FindString(html); m != "" {
		t.Errorf("page references something outside itself: %q", m)
	}
	for _, want := range []string{"<title>Plot &lt;test&gt;</title>", "var uPlot=", ".uplot", `id="chart-0"`, `id="chart-3"`, "<td>2</td>", "Requests [total] 3000"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Count(html, "</script>") != 3 {
		t.Errorf("%d </script> tags, want 3 (a series name must not close the script)", strings.Count(html, "</script>"))
	}
	// The chart data parses back with one aligned array per series plus x.
	i := strings.Index(html, "window.LOADLAB_CHARTS = ")
	j := strings.Index(html[i:], ";</script>")
	var specs []chartSpec
	if err := json.Unmarshal([]byte(html[i+len("window.LOADLAB_CHARTS = "):i+j]), &specs); err != nil {
		t.Fatalf("chart data: %v", err)
	}
	if len(specs) != len(charts)+1 || specs[len(charts)].Series == nil {
		t.Fatalf("%d charts, want %d, the last one empty but with a series list", len(specs), len(charts)+1)
	}
	specs = specs[:len(charts)]
	for k, s := range specs {
		var data [][]*float64
		if err := json.Unmarshal(s.Data, &data); err != nil {
			t.Fatal(err)
		}
		if len(data) != len(charts[k].Series)+1 {
			t.Errorf("chart %d: %d arrays, want %d", k, len(data), len(charts[k].Series)+1)
		}
		points := 0
		for si, ys := range data {
			if len(ys) != len(data[0]) {
				t.Errorf("chart %d series %d: %d values for %d xs", k, si, len(ys), len(data[0]))
			}
			if si > 0 {
				for _, y := range ys {
					if y != nil {
						points++
					}
				}
			}
		}
		want := charts[k].NumPoints()
		if specs[k].YLog {
			want-- // the slow build's 0 ms cannot sit on a log axis
		}
		if points != want {
			t.Errorf("chart %d: %d points, want %d", k, points, want)
		}
		for x := 1; x < len(data[0]); x++ {
			if *data[0][x] < *data[0][x-1] {
				t.Fatalf("chart %d: x not ascending at %d", k, x)
			}
		}
	}
	if !specs[3].XPct || specs[2].XPct || !specs[3].YLog || specs[0].YLog {
		t.Errorf("axis flags wrong: %+v", specs)
	}
}

func TestUPlotVersion(t *testing.T) {
	if v := UPlotVersion(); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("UPlotVersion() = %q", v)
	}
}
