// Package bench holds the checks of the benchmark scripts' settings
// (bench/args.sh); the benchmarks themselves are the programs and scripts
// in its folders, run by hand (bench/README.md).
package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// script runs a bench script with env and args, and nothing else on its
// PATH but dirname: a setting the script fails to refuse reaches its
// first tool check ("nginx not found") or command, and nothing can start.
func script(t *testing.T, env []string, name string, args ...string) (code int, stderr string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	dirname, err := exec.LookPath("dirname")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(dirname, filepath.Join(bin, "dirname")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, append([]string{name}, args...)...)
	cmd.Env = append([]string{"PATH=" + bin, "HOME=" + t.TempDir()}, env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, errb.String()
}

// TestScriptSettings: a benchmark setting nothing matches (an unknown
// part or scenario, overhead paths not led by the direct one, a perf
// directory that does not exist, no variant to compare) is refused before
// anything starts, in one line naming the variable, exit 2, where it ran
// nothing and exited 0, or measured against the wrong path. Settings
// that are right get past the checks to the scripts' own tool checks.
func TestScriptSettings(t *testing.T) {
	for _, c := range []struct {
		script string
		env    []string
		args   []string
		want   string // the line, from its start
	}{
		{"proxy/run.sh", []string{"ONLY=overheads"}, nil, "bench/proxy: ONLY: unknown value 'overheads' (want one of: overhead knee ab)"},
		{"proxy/run.sh", []string{"PATHS=loadlab-serial direct nginx"}, nil, "bench/proxy: PATHS: must start with direct"},
		{"proxy/run.sh", []string{"PATHS=direct nginx-2w"}, nil, "bench/proxy: PATHS: unknown path 'nginx-2w'"},
		{"proxy/run.sh", []string{"PATHS=direct floor-relay-raw+managr"}, nil, "bench/proxy: PATHS: floor-relay-raw+managr: unknown floor option 'managr'"},
		{"proxy/run.sh", []string{"PATHS=direct floor-uring"}, nil, "bench/proxy: PATHS: floor-uring: unknown floor mode 'uring'"},
		{"proxy/run.sh", []string{"PERF=stat recrod"}, nil, "bench/proxy: PERF: unknown value 'recrod'"},
		{"proxy/run.sh", []string{"PERF_DIR=/nonexistent/perf"}, nil, "bench/proxy: PERF_DIR: '/nonexistent/perf' is not a directory"},
		{"proxy/run.sh", []string{"ONLY=ab", "AB_BIN=/nonexistent/loadlab"}, nil, "bench/proxy: ONLY=ab needs AB_BIN, an executable loadlab build, nginx or floor-MODE[+OPTION...] (got '/nonexistent/loadlab')"},
		{"proxy/run.sh", []string{"ONLY=ab", "AB_BIN=floor-relay-raw+bogus"}, nil, "bench/proxy: AB_BIN: floor-relay-raw+bogus: unknown floor option 'bogus'"},
		{"proxy/run.sh", []string{"ONLY=ab", "AB_BIN=nginx", "AB_LATENCY=20"}, nil, "bench/proxy: AB_LATENCY: want a duration such as 20ms or 0s (got '20')"},
		{"origin/run.sh", []string{"ONLY=latency"}, nil, "bench/origin: ONLY: unknown value 'latency' (want one of: lat tput)"},
		{"attack/run.sh", []string{"SCENARIOS=max precison"}, nil, "bench/attack: SCENARIOS: unknown value 'precison'"},
		{"attack/run.sh", []string{"SCENARIOS= "}, nil, "bench/attack: SCENARIOS: empty"},
		{"attack/ab.sh", nil, []string{"5000", "args_test.go", "5s"}, "bench/attack/ab.sh: arguments: want RATE TARGETS DURATION BIN:FLAGS..."},
		{"attack/ab.sh", nil, []string{"5000", "no-such-targets.txt", "5s", "./loadlab:"}, "bench/attack/ab.sh: TARGETS: 'no-such-targets.txt' is not a readable file"},
		{"duet/run.sh", nil, []string{"3"}, "bench/duet: seconds: want a whole number of seconds, 4 or more, got '3'"},
		{"duet/run.sh", []string{"RATE=fast"}, nil, "bench/duet: RATE: want a whole number of requests a second, 10 or more, got 'fast'"},
		{"duet/run.sh", []string{"NEIGHBOUR=yes"}, nil, "bench/duet: NEIGHBOUR: unknown value 'yes' (want one of: 0 1)"},
		{"flow/run.sh", []string{"SCENARIOS=cpu inflite"}, nil, "bench/flow: SCENARIOS: unknown value 'inflite' (want some of: cpu inflight)"},
		{"flow/run.sh", []string{"PEERS=loadlab k6"}, nil, "bench/flow: PEERS: unknown value 'k6' (want some of: loadlab locust artillery)"},
		{"flow/run.sh", []string{"RATE=fast"}, nil, "bench/flow: RATE: want a whole number above 0, got 'fast'"},
		// Right settings reach the first tool check (none is on PATH).
		{"flow/run.sh", []string{"SCENARIOS=cpu", "PEERS=loadlab locust", "RATE=300"}, nil, "bench/flow: curl not found"},
		{"duet/run.sh", []string{"RATE=100", "NEIGHBOUR=1"}, []string{"10"}, "bench/duet: go not found"},
		{"proxy/run.sh", []string{"ONLY=overhead", "PATHS=direct nginx-1w floor-relay-raw+manager+nodefer", "PERF=stat record", "PERF_DIR=" + t.TempDir()}, nil, "bench/proxy: PERF: perf not found"},
		{"proxy/run.sh", []string{"ONLY=knee", "PATHS=direct loadlab-serial"}, nil, "bench/proxy: nginx not found"},
		{"proxy/run.sh", []string{"ONLY=ab", "AB_BIN=floor-relay-raw+nodefer", "AB_LATENCY=20ms"}, nil, "bench/proxy: taskset not found"},
		{"origin/run.sh", []string{"ONLY=tput"}, nil, "bench/origin: wrk not found"},
	} {
		code, stderr := script(t, c.env, c.script, c.args...)
		if code != 2 || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s %v %v: exit %d, stderr %q; want exit 2 and one line %q...", c.script, c.env, c.args, code, stderr, c.want)
		}
	}
}
