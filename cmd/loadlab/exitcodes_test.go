package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Setup errors exit 2 with one line naming the flag: 1 is kept for "a
// threshold was crossed", so a CI gate never reads a typo as a
// performance failure.
func TestSetupErrorsExit2(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(plan, []byte("name: p\ntarget: http://127.0.0.1:9\nscenarios:\n  - name: s\n    rate: 1/s\n    duration: 100ms\n    targets: GET http://127.0.0.1:9/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	previous := filepath.Join(dir, "previous")
	if err := os.MkdirAll(filepath.Join(previous, "steps"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"max-workers 0", []string{"attack", "-rate=1/s", "-duration=100ms", "-max-workers=0"}, "GET http://127.0.0.1:9/\n", "-max-workers: want 1 or more"},
		{"max-workers -1", []string{"attack", "-rate=1/s", "-duration=100ms", "-max-workers=-1"}, "GET http://127.0.0.1:9/\n", "-max-workers: want 1 or more"},
		{"catch-up -1s", []string{"attack", "-rate=1/s", "-duration=100ms", "-catch-up=-1s"}, "GET http://127.0.0.1:9/\n", "-catch-up: want a positive duration"},
		{"run into a previous run", []string{"run", "-quiet", "-out", previous, plan}, "", "-out: output folder"},
		{"run into /proc", []string{"run", "-quiet", "-out", "/proc/nope", plan}, "", "-out:"},
		{"origin on a busy port", []string{"origin", "-listen", busy, "-quiet"}, "", "-listen:"},
		{"proxy -procs -1", []string{"proxy", "-config", "../../examples/proxy/belfrage.yaml", "-procs", "-1"}, "", "-procs: want 0 (every core) or more"},
		{"proxy on a busy port", []string{"proxy", "-config", "../../examples/proxy/belfrage.yaml", "-listen", busy}, "", "-listen:"},
		{"proxy -upstream with a path", []string{"proxy", "-config", "../../examples/proxy/belfrage.yaml", "-upstream", "http://127.0.0.1:9/x", "-check"}, "", "-upstream: \"http://127.0.0.1:9/x\" is not an http:// or https:// URL with a host and no path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, []byte(c.stdin), c.args...)
			msg := strings.TrimSpace(stderr)
			if code != 2 || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, msg, c.want)
			}
		})
	}
}
