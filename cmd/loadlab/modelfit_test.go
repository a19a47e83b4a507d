package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/model/lab"
)

// TestModelFit: `loadlab model -fit` calibrates a live target it did not
// write (the real proxy's pool of 8 before a 50 ms origin: 160 req/s) and
// predicts through the fitted queue; -type json keeps stdout the same
// array as `model -type json`, the fit going to stderr.
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
	code, stdout, stderr := runCLI(t, nil, "model", "-fit", "-target", "GET "+box.URL+"/page", "-fit-step", "1500ms", "-timeout", "5s",
		"-rate", "80,320", "-duration", "10s", "-type", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"calibration: 10/s", "Fitted queue of GET " + box.URL, "queue          bounded", "then answers 503",
		"contention     σ ", "not significant: the service time is kept constant"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var rows []struct {
		Requests uint64            `json:"requests"`
		Success  float64           `json:"success"`
		Codes    map[string]uint64 `json:"status_codes"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if len(rows) != 2 || rows[0].Requests != 800 || rows[0].Success < 0.99 || rows[1].Success < 0.35 || rows[1].Success > 0.65 || rows[1].Codes["503"] == 0 {
		t.Errorf("80/s held, 320/s about half refused with 503; got %+v", rows)
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
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-fit-step", "300ms"}, "-target: GET http://127.0.0.1:9/: no request of 3 at 10/s succeeded (3 × "},
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-fit-step", "1h"}, "-fit-step: want 100ms to 1m"},
		{[]string{"-fit", "-target", "GET http://127.0.0.1:9/", "-fit-max-rate", "5"}, "-fit-max-rate"},
	} {
		code, _, stderr := runCLI(t, nil, append([]string{"model"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 6 {
			t.Errorf("model %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
