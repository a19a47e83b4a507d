package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/model/lab"
)

// TestModelFit: `loadlab model -fit` calibrates a live target it did not
// write (the real proxy's pool of 8 before a 50 ms origin: 160 req/s) and
// predicts through the fitted queue; -type json keeps stdout the same
// array as `model -type json`, the fit's text going to stderr, and each
// row carries the fitted parameters with their intervals and the
// prediction's interval, wider at the knee (160/s) than below it. The
// calibration saved with -fit-save predicts the same once the target is
// gone (-fit-load).
func TestModelFit(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates a live target for about 10 s")
	}
	box, err := lab.Start(`pools:
  default: {size: 8, overflow: 0, checkout_timeout: 300ms, timeout_status: 503, manager: concurrent}
routes:
  - {path: /*, upstream: "`+lab.UpstreamPlaceholder+`", pool: default, request_timeout: 5s}
`, `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "50ms"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	saved := filepath.Join(t.TempDir(), "fit.json")
	code, stdout, stderr := runCLI(t, nil, "model", "-fit", "-target", "GET "+box.URL+"/page", "-fit-step", "1500ms", "-timeout", "5s",
		"-rate", "80,320,160", "-duration", "10s", "-type", "json", "-fit-save", saved)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"calibration: 10/s", "Fitted queue of GET " + box.URL, "queue          bounded", "then answers 503",
		"contention     σ ", "not significant: the service time is kept constant"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	type row struct {
		Requests uint64            `json:"requests"`
		Success  float64           `json:"success"`
		Codes    map[string]uint64 `json:"status_codes"`
		Interval *struct {
			Success [2]float64       `json:"success"`
			P99     [2]time.Duration `json:"p99"`
		} `json:"interval"`
		Fit *struct {
			Servers     int        `json:"servers"`
			ServersCI   [2]float64 `json:"servers_ci"`
			Capacity    float64    `json:"capacity"`
			CapacityCI  [2]float64 `json:"capacity_ci"`
			Queue       string     `json:"queue"`
			ServiceTime struct {
				P99   time.Duration    `json:"p99"`
				P99CI [2]time.Duration `json:"p99_ci"`
			} `json:"service_time"`
			USL *struct {
				SigmaCI [2]float64 `json:"sigma_ci"`
				KappaCI [2]float64 `json:"kappa_ci"`
			} `json:"usl"`
			Requests uint64        `json:"requests"`
			Duration time.Duration `json:"duration"`
			Worst    struct {
				Requests uint64 `json:"requests"`
			} `json:"worst"`
		} `json:"fit"`
	}
	var rows []row
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if len(rows) != 3 || rows[0].Requests != 800 || rows[0].Success < 0.99 || rows[1].Success < 0.35 || rows[1].Success > 0.65 || rows[1].Codes["503"] == 0 {
		t.Fatalf("80/s held, 320/s about half refused with 503; got %+v", rows)
	}
	f := rows[0].Fit
	if f == nil || f.Servers < 6 || f.Servers > 10 || f.ServersCI[0] > float64(f.Servers) || f.ServersCI[1] < float64(f.Servers) ||
		f.CapacityCI[0] <= 0 || f.CapacityCI[0] > f.Capacity || f.CapacityCI[1] < f.Capacity || f.Queue != "bounded" ||
		f.ServiceTime.P99 < 40*time.Millisecond || f.ServiceTime.P99CI[1] < f.ServiceTime.P99CI[0] || f.USL == nil ||
		f.Requests == 0 || f.Requests > f.Worst.Requests || f.Duration <= 0 {
		t.Fatalf("the rows' fit lacks its parameters, intervals or cost: %+v", f)
	}
	width := func(r row) time.Duration { return r.Interval.P99[1] - r.Interval.P99[0] }
	for _, r := range rows {
		if r.Interval == nil || r.Interval.Success[0] > r.Success || r.Interval.Success[1] < r.Success {
			t.Fatalf("a prediction's interval is missing or leaves it out: %+v", r)
		}
	}
	if width(rows[2]) <= width(rows[0]) {
		t.Errorf("the p99 interval at the knee (160/s: %v) is not wider than below it (80/s: %v)", rows[2].Interval.P99, rows[0].Interval.P99)
	}
	// The saved calibration, the target gone: the same predictions.
	box.Close()
	code, again, stderr := runCLI(t, nil, "model", "-fit", "-fit-load", saved, "-timeout", "5s", "-rate", "80,320,160", "-duration", "10s", "-type", "json")
	predictions := func(s string) string {
		var rows []map[string]any
		if err := json.Unmarshal([]byte(s), &rows); err != nil {
			t.Fatalf("%v:\n%s", err, s)
		}
		for _, r := range rows {
			fit := r["fit"].(map[string]any)
			delete(fit, "loaded")
		}
		b, _ := json.Marshal(rows)
		return string(b)
	}
	if code != 0 || predictions(again) != predictions(stdout) {
		t.Errorf("-fit-load: exit %d, %s\nstdout differs from the calibration's:\n%s\nvs\n%s", code, stderr, again, stdout)
	}
	if !strings.Contains(stderr, "reused from "+saved) {
		t.Errorf("-fit-load does not say the calibration was reused:\n%s", stderr)
	}
}

// TestModelFitBadInput: one line, exit 2.
func TestModelFitBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-fit"}, "-target: give the request line"},
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-recipe", "r.json"}, "-fit: calibrates a live -target"},
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-fit-step", "300ms"}, "-target: GET http://127.0.0.1:9/: the target fails at 10 req/s (no answer: 3 × "},
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-fit-step", "1h"}, "-fit-step: want 100ms to 1m"},
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-fit-max-rate", "5"}, "-fit-max-rate"},
	} {
		code, _, stderr := runCLI(t, nil, append([]string{"model"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 6 {
			t.Errorf("model %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestModelFitLoadBadFile: a file that is not a saved fit, of another
// version, or with a field out of range is refused in one line naming
// the file and the field, exit 2.
func TestModelFitLoadBadFile(t *testing.T) {
	dir := t.TempDir()
	good := `{"format": "loadlab model fit", "version": 1, "saved": "2026-01-02T03:04:05Z", "service_quantiles": [1000000, 2000000],
	  "fit": {"target": "GET http://127.0.0.1:9/", "servers": 4, "service_mean": 1500000, "queue": "bounded", "queue_timeout": 100000000, "refusal_status": 503, "capacity": 2666}}`
	for _, c := range []struct{ name, body, want string }{
		{"good", good, ""},
		{"foreign", `{"format": "something else", "version": 1}`, `field format: want "loadlab model fit"`},
		{"version", strings.Replace(good, `"version": 1`, `"version": 7`, 1), "field version: want 1, got 7"},
		{"servers", strings.Replace(good, `"servers": 4`, `"servers": 0`, 1), "field fit.servers: want 1 to 1000000, got 0"},
		{"queue", strings.Replace(good, `"bounded"`, `"lifo"`, 1), `field fit.queue: want "bounded"`},
		{"quantiles", strings.Replace(good, `[1000000, 2000000]`, `[2000000, 1000000]`, 1), "field service_quantiles: want ascending durations"},
		{"type", strings.Replace(good, `"servers": 4`, `"servers": "four"`, 1), "field fit.servers: want int, got a JSON string"},
		{"json", `{"format": `, "not a saved fit (JSON)"},
	} {
		file := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(file, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, nil, "model", "-fit", "-fit-load", file, "-rate", "100", "-duration", "2s")
		if c.want == "" {
			if code != 0 || !strings.Contains(stdout, "reused from "+file) || !strings.Contains(stdout, "Interval") {
				t.Errorf("%s: exit %d\n%s%s", c.name, code, stdout, stderr)
			}
			continue
		}
		if code != 2 || !strings.Contains(stderr, file+": ") || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line naming %s and %q", c.name, code, stderr, file, c.want)
		}
	}
}
