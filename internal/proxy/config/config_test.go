package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

const goodConfig = `
pools:
  default: {size: 512, overflow: 256}
  search:
    size: 1024
    checkout_timeout: 3s
routes:
  - name: search
    path: /search*
    upstream: http://127.0.0.1:9000
    pool: search
    breaker: {threshold: 500}
  - path: /news
    upstream: http://127.0.0.1:9001/base/
    cache: true
    fallback: true
  - path: /own*
    upstream: http://127.0.0.1:9002
    pool: {size: 2, overflow: 1, checkout_timeout: 100ms, timeout_status: 503, worker_start_cost: 20ms}
`

func TestParseDefaults(t *testing.T) {
	cfg, err := Parse([]byte(goodConfig), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := cfg.Pools["default"]
	if def.CheckoutTimeout.D() != 6*time.Second || def.TimeoutStatus != 500 || def.Overflow != 256 {
		t.Errorf("default pool %+v", def)
	}
	if cfg.Pools["search"].Overflow != 0 || cfg.Pools["search"].CheckoutTimeout.D() != 3*time.Second {
		t.Errorf("search pool %+v", cfg.Pools["search"])
	}
	r0, r1, r2 := cfg.Routes[0], cfg.Routes[1], cfg.Routes[2]
	if r0.RequestTimeout.D() != 5*time.Second || r0.Breaker.Window.D() != time.Minute || r0.Breaker.Recovery != "ramp" ||
		r0.Breaker.Status != 500 || len(r0.Breaker.Ramp) != 3 {
		t.Errorf("route 0 %+v breaker %+v", r0, r0.Breaker)
	}
	if r1.Name != "/news" || r1.Pool.Name != "default" {
		t.Errorf("route 1 name %q pool %q", r1.Name, r1.Pool.Name)
	}
	if name, pc := cfg.PoolFor(r2); name != "route:/own*" || pc.Size != 2 || pc.TimeoutStatus != 503 ||
		pc.Manager != ManagerSerial || pc.WorkerStartCost.D() != 20*time.Millisecond || pc.WorkerStopCost.D() != 5*time.Millisecond {
		t.Errorf("inline pool %s %+v", name, pc)
	}
	if def.Manager != ManagerSerial || def.WorkerStartCost != 0 || def.WorkerStopCost != 0 {
		t.Errorf("default manager %+v", def)
	}
	if cfg.Cache.MaxEntries != 10000 || cfg.Cache.StaleFor.D() != time.Hour {
		t.Errorf("cache %+v", cfg.Cache)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		want       string // in the message
	}{
		{"empty", "", 0, "empty"},
		{"not yaml", "routes: [", 1, "did not find"},
		{"unknown top field", "pool: {}\n", 1, "p.yaml:1: pool: unknown field (known: pools, routes, cache)"},
		{"unknown pool field", "pools:\n  a:\n    size: 1\n    sise: 2\n", 4, "pools.a.sise: unknown field (known: size, overflow, checkout_timeout, timeout_status, manager, worker_start_cost, worker_stop_cost)"},
		{"bad duration", "pools:\n  a: {size: 1, checkout_timeout: 5x}\nroutes: []\n", 2, `"5x" is not a duration`},
		{"bad duration names its field", "pools:\n  a: {size: 1, checkout_timeout: 5x}\nroutes: []\n", 2, `pools.a.checkout_timeout: "5x" is not a duration`},
		{"negative size", "pools:\n  a:\n    size: -1\nroutes:\n  - {path: /, upstream: http://h, pool: a}\n", 3, "pools.a.size: must be >= 0"},
		{"missing size", "pools:\n  a:\n    overflow: 3\nroutes:\n  - {path: /, upstream: http://h, pool: a}\n", 2, "size is required"},
		{"no workers", "pools:\n  a: {size: 0}\nroutes:\n  - {path: /, upstream: http://h, pool: a}\n", 2, "at least 1"},
		{"no routes", "pools:\n  a: {size: 1}\n", 1, "at least one route"},
		{"bad upstream", "pools:\n  default: {size: 1}\nroutes:\n  - path: /\n    upstream: ftp://h\n", 5, "routes[0].upstream"},
		{"unknown pool", "pools:\n  default: {size: 1}\nroutes:\n  - path: /\n    upstream: http://h\n    pool: nope\n", 6, `no pool named "nope"`},
		{"no default pool", "routes:\n  - {path: /, upstream: http://h}\n", 2, `no pool named "default"`},
		{"path without slash", "pools:\n  default: {size: 1}\nroutes:\n  - {path: news, upstream: http://h}\n", 4, "must start with /"},
		{"inner star", "pools:\n  default: {size: 1}\nroutes:\n  - {path: /a*b, upstream: http://h}\n", 4, "trailing"},
		{"duplicate name", "pools:\n  default: {size: 1}\nroutes:\n  - {path: /a, upstream: http://h}\n  - {path: /a, upstream: http://h}\n", 5, "already used"},
		{"bad recovery", "pools:\n  default: {size: 1}\nroutes:\n  - path: /a\n    upstream: http://h\n    breaker:\n      threshold: 1\n      recovery: sometimes\n", 8, "want ramp or half_open"},
		{"missing threshold", "pools:\n  default: {size: 1}\nroutes:\n  - path: /a\n    upstream: http://h\n    breaker: {window: 1s}\n", 6, "threshold is required"},
		{"bad ramp", "pools:\n  default: {size: 1}\nroutes:\n  - path: /a\n    upstream: http://h\n    breaker: {threshold: 1, ramp: [50, 20, 100]}\n", 6, "rise strictly"},
		{"inline pool unknown key", "routes:\n  - path: /a\n    upstream: http://h\n    pool: {size: 1, szie: 2}\n", 4, "routes[0].pool.szie: unknown field (known: size, overflow"},
		{"bad status", "pools:\n  default: {size: 1, timeout_status: 1000}\nroutes:\n  - {path: /a, upstream: http://h}\n", 2, "timeout_status"},
		{"bad manager", "pools:\n  default:\n    size: 1\n    manager: parallel\nroutes:\n  - {path: /a, upstream: http://h}\n", 4, `pools.default.manager: "parallel": want serial`},
		{"bad start cost", "pools:\n  default:\n    size: 1\n    worker_start_cost: soon\nroutes:\n  - {path: /a, upstream: http://h}\n", 4, `"soon" is not a duration`},
		{"bad start cost names its field", "pools:\n  default:\n    size: 1\n    worker_start_cost: soon\nroutes:\n  - {path: /a, upstream: http://h}\n", 4, `pools.default.worker_start_cost: "soon" is not a duration`},
		{"bad inline timeout", "routes:\n  - path: /a\n    upstream: http://h\n    pool: {size: 1, checkout_timeout: -1s}\n", 4, `routes[0].pool.checkout_timeout: duration "-1s" is negative`},
		{"start cost too big", "pools:\n  default:\n    size: 1\n    worker_start_cost: 1m\nroutes:\n  - {path: /a, upstream: http://h}\n", 4, "pools.default.worker_start_cost: above 10s"},
		{"stop cost without serial", "pools:\n  default:\n    size: 1\n    manager: concurrent\n    worker_stop_cost: 5ms\nroutes:\n  - {path: /a, upstream: http://h}\n", 5, "worker_stop_cost: only the serial manager"},
		{"inline start cost without serial", "routes:\n  - path: /a\n    upstream: http://h\n    pool:\n      size: 1\n      manager: concurrent\n      worker_start_cost: 5ms\n", 7, "routes[0].pool.worker_start_cost: only the serial"},
		{"wrong type", "pools:\n  default: {size: many}\nroutes:\n  - {path: /a, upstream: http://h}\n", 2, `pools.default.size: want a whole number, got text "many"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "p.yaml")
			var be *badinput.Error
			if !errors.As(err, &be) {
				t.Fatalf("err %v (%T), want *badinput.Error", err, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "p.yaml") || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("message %q, want p.yaml: ...%s... on one line", msg, tc.want)
			}
			if be.Line != tc.line {
				t.Errorf("line %d, want %d (%s)", be.Line, tc.line, msg)
			}
		})
	}
}

func TestLoadFiles(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); !badinput.Is(err) || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	// The shipped examples parse.
	files, _ := filepath.Glob("../../../examples/proxy/*.yaml")
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(goodConfig))
	for _, name := range []string{"testdata/fuzz-seed-1.yaml"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("routes:\n  - {path: /, upstream: http://h, pool: {size: 1}}\n"))
	f.Add([]byte("pools: {a: {size: 1}}\nroutes: [{path: /a*, upstream: 'http://h', pool: a, breaker: {threshold: 0, recovery: half_open}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("error not bad input: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		for _, r := range cfg.Routes {
			if name, pc := cfg.PoolFor(r); pc == nil || pc.Size+pc.Overflow < 1 || pc.CheckoutTimeout <= 0 {
				t.Fatalf("route %s: pool %s not resolved: %+v", r.Name, name, pc)
			}
		}
	})
}

func TestReservedRouteAndZeroCheckoutRefused(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"pools: {default: {size: 1}}\nroutes: [{path: /metrics, upstream: \"http://127.0.0.1:1\"}]", "routes[0].path: \"/metrics\" is reserved"},
		{"pools: {default: {size: 1}}\nroutes: [{path: /status, upstream: \"http://127.0.0.1:1\"}]", "is reserved"},
		{"pools: {default: {size: 1}}\nroutes: [{path: /metrics*, upstream: \"http://127.0.0.1:1\"}]", "routes[0].path: \"/metrics*\" matches /metrics, which the proxy serves itself"},
		{"pools: {default: {size: 1}}\nroutes: [{path: /st*, upstream: \"http://127.0.0.1:1\"}]", "matches /status"},
		{"pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:99999\"}]", "routes[0].upstream: \"http://127.0.0.1:99999\": port 99999 is not between 1 and 65535"},
		{"pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:0\"}]", "port 0 is not between"},
		{"pools: {default: {size: 1, checkout_timeout: 0s}}\nroutes: [{path: /*, upstream: \"http://127.0.0.1:1\"}]", "checkout_timeout: must be positive"},
	} {
		if _, err := Parse([]byte(c.yaml), "p.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.yaml, err, c.want)
		}
	}
}
