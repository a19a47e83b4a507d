package trend

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// A run the machine disturbed is marked noisy in the trend's points and
// text; the others are not.
func TestNoisyRunsMarked(t *testing.T) {
	src := newStore(t)
	quiet := runblock.LagHealth(0, time.Millisecond, 40*time.Millisecond).WithMachine(runblock.Health{GeneratorCPU: 0.3, Busy: 0.3})
	paused := runblock.LagHealth(0, 30*time.Millisecond, 60*time.Millisecond).WithMachine(runblock.Health{GeneratorCPU: 0.3, Busy: 0.9})
	for i, h := range []runblock.Health{quiet, paused, quiet, runblock.UnknownHealth()} {
		hist := metrics.NewHistogram()
		metrics.RecordLatency(hist, 40*time.Millisecond)
		b, err := hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		f := archive.Figures{Requests: 1, Success: 1, Latencies: metrics.LatencySummary{P50: 40 * time.Millisecond, P99: 40 * time.Millisecond}}
		started := time.Unix(int64(1000+10*i), 0)
		name := "run" + string(rune('a'+i))
		_, _, err = src.Add(context.Background(), identified(t, &archive.Bundle{
			Run: archive.Run{Name: name, Source: "results", Started: started, Ended: started.Add(time.Second), Figures: f, Health: h,
				Steps: []archive.Step{{Index: 0, Scenario: "page", Figures: f, Health: h}}},
			Histograms: map[archive.StepKey][]byte{{Step: 0, Scenario: "page"}: b},
			Files:      []archive.BundleFile{{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(name)), nil }}},
		}))
		if err != nil {
			t.Fatal(err)
		}
	}
	tr, err := Compute(context.Background(), src, Options{Metric: P99})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range tr.Points {
		if (p.Noisy != "") != (i == 1) {
			t.Errorf("point %d (%s) noisy %q", i, p.Name, p.Noisy)
		}
	}
	if tr.Points[1].Health.Busy != 0.9 || tr.Points[3].Health.Known() {
		t.Errorf("points' health %+v %+v", tr.Points[1].Health, tr.Points[3].Health)
	}
	var text bytes.Buffer
	if err := WriteText(&text, tr); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(text.String(), "\n")
	if !strings.Contains(rows[4], "noisy: its own schedule lag p99") || strings.Contains(rows[3], "noisy") || !strings.Contains(text.String(), "1 run noisy: the machine disturbed it") {
		t.Errorf("text:\n%s", text.String())
	}
	var js bytes.Buffer
	WriteJSON(&js, tr)
	var back struct {
		Points []struct {
			Noisy  string          `json:"noisy"`
			Health runblock.Health `json:"health"`
		} `json:"points"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Points[1].Noisy == "" || back.Points[1].Health != paused {
		t.Errorf("json: %v %s", err, js.String())
	}
}
