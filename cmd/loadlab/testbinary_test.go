package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The tests run loadlab in one of two ways, each written once here:
//
//   - runCLI: in this process (runMain), for what a command prints and
//     returns;
//   - loadlabCommand / runBinary: as a process of its own, for what only a
//     process shows (signals, pauses, a kill midway, a server left
//     running, exit codes of the real binary). The test binary is loadlab
//     itself when asBinaryEnv is set (see TestMain).

// asBinaryEnv, set to 1, makes this test binary act as loadlab: TestMain
// runs runMain on its arguments. `loadlab run` starts its components
// (origin, proxy) as copies of its own executable, so a test running a
// plan in process sets it too (t.Setenv(asBinaryEnv, "1")).
const asBinaryEnv = "LOADLAB_TEST_AS_BINARY"

// runCLI runs loadlab with args in this process and returns its exit code
// and what it wrote.
func runCLI(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runMain(args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// loadlabCommand returns loadlab with args as a process of its own (this
// test binary acting as loadlab), not yet started; ctx kills it.
func loadlabCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), asBinaryEnv+"=1")
	return cmd
}

// runBinary runs loadlab with args as a process of its own, stdin its
// input, for at most two minutes, and returns what it wrote and its exit
// code.
func runBinary(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := loadlabCommand(ctx, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// childRaceOptions makes the copies of this test binary that the tests
// start as loadlab exit as soon as they are done. Under -race every
// process sleeps atexit_sleep_ms (1 s by default) before exiting, so that
// threads still running may report a race; the tests start a few hundred
// such processes, and that sleep was more than half of this package's
// time (510 s, 246 s without). Races are still detected and reported in
// every child, which still exits with the race detector's code (66) when
// it found one; only the idle second after the command returned is gone.
// A GORACE the user set keeps its own atexit_sleep_ms.
func childRaceOptions() {
	cur := os.Getenv("GORACE")
	if strings.Contains(cur, "atexit_sleep_ms") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(cur+" atexit_sleep_ms=0"))
}
