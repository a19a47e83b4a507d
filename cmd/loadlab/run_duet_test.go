package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunDuetScenario runs a plan whose scenario is a duet (duet: side B's
// base URL) against two loopback servers, B 50% slower: loadlab compare
// -duet of the run folder finds the duet and gates on it (exit 1, B
// slower). A bad duet: key exits 2 naming the field.
func TestRunDuetScenario(t *testing.T) {
	a, b := sleeper(t, 10*time.Millisecond), sleeper(t, 15*time.Millisecond)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	src := fmt.Sprintf("name: duet\ntarget: %s\nscenarios:\n  - {name: api, target: \"GET ${target}/x\", rate: 200, duration: 3s, duet: \"%s\"}\n", a.URL, b.URL)
	if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, errOut := runCLI(t, nil, "run", "-quiet", "-out", out, plan); code != 0 {
		t.Fatalf("run: exit %d: %s\n%s", code, errOut, stdout)
	}
	code, stdout, errOut := runCLI(t, nil, "compare", "-duet", out, "-fail-on-regression")
	if code != 1 || !strings.Contains(stdout, "B ("+b.URL+")") || !strings.Contains(stdout, "slower") {
		t.Errorf("compare -duet of the run folder: exit %d (want 1): %s\n%s", code, errOut, stdout)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(src, b.URL, b.URL+"/v2", 1)), 0o644)
	if code, _, errOut := runCLI(t, nil, "run", "-check", bad); code != 2 || !strings.Contains(errOut, "scenarios[0].duet: want only scheme://host:port") {
		t.Errorf("bad duet: exit %d: %s", code, errOut)
	}
}
