package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelClosedLoop: -rate=0 -workers N predicts N users each sending
// the next request when the previous is answered. 16 users on a pool of
// 8 workers in front of a 50 ms origin: the pool sets the pace (8 / 50 ms
// = 160/s) and each request waits about one service for a worker (p50
// about 100 ms); 4 users go through at 4 / 50 ms = 80/s. A closed loop
// without its users, or users with a rate, is one line, exit 2.
func TestModelClosedLoop(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	rec := filepath.Join(dir, "origin.json")
	os.WriteFile(cfg, []byte(`pools:
  default: {size: 8, overflow: 0, checkout_timeout: 300ms, timeout_status: 503, manager: concurrent}
routes:
  - {path: /*, upstream: "http://127.0.0.1:9", pool: default, request_timeout: 5s}
`), 0o644)
	os.WriteFile(rec, []byte(`{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "50ms"}]}`), 0o644)
	for _, c := range []struct {
		users   string
		rate    float64
		p50, ok float64 // ms, ratio
	}{{"16", 160, 100, 1}, {"4", 80, 50, 1}} {
		code, stdout, stderr := runCLI(t, nil, "model", "-config", cfg, "-recipe", rec, "-rate=0", "-workers", c.users, "-duration", "20s", "-type", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var rows []struct {
			Requests  float64            `json:"requests"`
			Success   float64            `json:"success"`
			Latencies map[string]float64 `json:"latencies"`
		}
		if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("want one row: %v\n%s", err, stdout)
		}
		r := rows[0]
		rate, p50 := r.Requests/20, r.Latencies["50th"]/1e6
		if rate < 0.97*c.rate || rate > 1.03*c.rate || p50 < 0.97*c.p50 || p50 > 1.05*c.p50 || r.Success != c.ok {
			t.Errorf("%s users: %.1f/s at p50 %.1f ms, %.1f%% ok; want about %.0f/s at %.0f ms, all ok", c.users, rate, p50, 100*r.Success, c.rate, c.p50)
		}
	}
	for _, args := range [][]string{{"-rate=0"}, {"-rate", "10/s", "-workers", "3"}, {"-rate=0", "-workers", "-1"}} {
		code, _, stderr := runCLI(t, nil, append([]string{"model", "-config", cfg, "-recipe", rec, "-duration", "5s"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "-workers") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want one line naming -workers, exit 2", args, code, stderr)
		}
	}
}
