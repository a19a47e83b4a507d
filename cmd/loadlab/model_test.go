package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelJSONKeys: `loadlab model -type json` prints one array, an
// object per step and scenario, with the names scripts rely on, and the
// pool staircase's figures.
func TestModelJSONKeys(t *testing.T) {
	t.Parallel() // the plan in virtual time: nothing shared, nothing timed
	code, stdout, stderr := runCLI(t, nil, "model", "-type", "json", "../../examples/003-pool-staircase-full-scale/plan.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("not one JSON array: %v\n%s", err, stdout)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want one per step (3)", len(rows))
	}
	for _, k := range []string{"step", "scenario", "success", "status_codes", "latencies", "pools"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("row lacks %q: %v", k, rows[0])
		}
	}
	lat := rows[2]["latencies"].(map[string]any)
	for _, k := range []string{"mean", "50th", "90th", "95th", "99th", "max"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("latencies lack %q", k)
		}
	}
	// 300 req/s into 768 workers of a 5 s origin: the ceiling 11 s, and
	// about 57% success (the staircase's example measured 57.08%).
	if s := rows[2]["success"].(float64); s < 0.55 || s > 0.59 {
		t.Errorf("success at 300/s = %v, want about 0.57", s)
	}
	if mx := lat["max"].(float64) / 1e9; mx < 10.9 || mx > 11.01 {
		t.Errorf("max latency at 300/s = %vs, want the 11 s ceiling", mx)
	}
}

// TestModelQuickAndKnee: without a plan, -config/-recipe/-rate give a
// prediction; -knee searches the highest rate meeting the SLO.
func TestModelQuickAndKnee(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	rec := filepath.Join(dir, "origin.json")
	os.WriteFile(cfg, []byte(`pools:
  default: {size: 20, overflow: 0, checkout_timeout: 100ms}
routes:
  - {name: all, path: /*, upstream: "http://127.0.0.1:9", pool: default, request_timeout: 2s}
`), 0o644)
	os.WriteFile(rec, []byte(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "500ms"}]}`), 0o644)
	code, stdout, stderr := runCLI(t, nil, "model", "-config", cfg, "-recipe", rec, "-rate", "30/s", "-duration", "20s", "-path", "/search?q=x", "-knee")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Success       [ratio]                          100.00%", "capacity W/L = 20 / 500ms = 40.0 req/s", "Knee of the system: attack holds up to"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// 20 workers of a 500 ms origin carry 40 req/s: the knee is just below.
	i := strings.Index(stdout, "holds up to ")
	var knee float64
	if _, err := fmt.Sscan(stdout[i+len("holds up to "):], &knee); err != nil || knee < 38 || knee > 41 {
		t.Errorf("knee %v (%v), want about 40 req/s:\n%s", knee, err, stdout)
	}
}

// TestModelRateList: -rate takes a list (one prediction per rate, as a
// sweep) and -steps one stepped attack, as loadlab attack does; 20
// workers of a 500 ms origin hold 30/s and fail at 80/s.
func TestModelRateList(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	rec := filepath.Join(dir, "origin.json")
	os.WriteFile(cfg, []byte(`pools:
  default: {size: 20, overflow: 0, checkout_timeout: 100ms}
routes:
  - {name: all, path: /*, upstream: "http://127.0.0.1:9", pool: default, request_timeout: 2s}
`), 0o644)
	os.WriteFile(rec, []byte(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "500ms"}]}`), 0o644)
	code, stdout, stderr := runCLI(t, nil, "model", "-type", "json", "-config", cfg, "-recipe", rec, "-rate", "30, 80/s", "-duration", "10s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var steps []struct {
		Requests uint64  `json:"requests"`
		Success  float64 `json:"success"`
	}
	if err := json.Unmarshal([]byte(stdout), &steps); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if len(steps) != 2 || steps[0].Requests != 300 || steps[1].Requests != 800 || steps[0].Success < 0.99 || steps[1].Success > 0.7 {
		t.Fatalf("two predictions, 300 requests all held and 800 mostly refused; got %+v", steps)
	}
	code, stdout, stderr = runCLI(t, nil, "model", "-type", "json", "-config", cfg, "-recipe", rec, "-steps", "10,20", "-step-duration", "5s")
	if code != 0 || json.Unmarshal([]byte(stdout), &steps) != nil || len(steps) != 1 || steps[0].Requests != 150 {
		t.Fatalf("-steps 10,20 x 5s: one attack of 150 requests; exit %d, %s %s", code, stdout, stderr)
	}
}

// TestModelBadInput: one line naming the flag or file, exit 2.
func TestModelBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-type", "xml", "plan.yaml"}, "-type: want text or json"},
		{[]string{}, "-recipe: give a plan file"},
		{[]string{"-recipe", "nope.json"}, "nope.json"},
		{[]string{"nope.yaml"}, "nope.yaml"},
		{[]string{"-precision", "2", "x.yaml"}, "-precision"},
		{[]string{"-recipe", "r.json", "-rate", "10,abc"}, `-rate: bad rate "abc"`},
		{[]string{"-recipe", "r.json", "-rate", "10", "-steps", "1,2", "-step-duration", "1s"}, "-steps: give -rate"},
	} {
		code, _, stderr := runCLI(t, nil, append([]string{"model"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("model %v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}
