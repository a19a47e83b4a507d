package main

// The differential harness against vegeta itself: the same command lines
// run through the real vegeta (built from the Go module proxy, see
// vegetaBinary) and through loadlab, against recording servers on
// loopback; what reached the servers (vegetawire_test.go), the results
// recorded (vegetaanswers_test.go) and what report, encode and plot make
// of vegeta's files (vegetareport_test.go) must be the same, or be one of
// the known differences (vegetadiffs_test.go), each of which is a row of
// docs/attack.md.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// vegetaVersion is the vegeta release the harness compares against.
const vegetaVersion = "v12.13.0"

// vegetaBinary finds vegeta: $LOADLAB_VEGETA, else the cache folder
// `make vegeta` (and .ci/run) installs it into, else $PATH. Missing, the
// test fails under CI and is skipped elsewhere, saying how to get it.
func vegetaBinary(t *testing.T) string {
	t.Helper()
	cands := []string{os.Getenv("LOADLAB_VEGETA")}
	if cache, err := os.UserCacheDir(); err == nil {
		cands = append(cands, filepath.Join(cache, "loadlab", "vegeta", "vegeta"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, filepath.Join(home, ".cache", "loadlab", "vegeta", "vegeta"))
	}
	if p, err := exec.LookPath("vegeta"); err == nil {
		cands = append(cands, p)
	}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c
		}
	}
	msg := "vegeta " + vegetaVersion + " not found: `make vegeta` installs it into ~/.cache/loadlab/vegeta (or set LOADLAB_VEGETA)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (CI is set: the differential tests against vegeta must run)")
	}
	t.Skip(msg)
	return ""
}

// tool is one of the two programs under comparison.
type tool struct {
	name string   // "vegeta" or "loadlab"
	argv []string // the program and its leading arguments
	env  []string // extra environment
}

func compareTools(t *testing.T) []tool {
	return []tool{
		{name: "vegeta", argv: []string{vegetaBinary(t)}},
		{name: "loadlab", argv: []string{os.Args[0]}, env: []string{asBinaryEnv + "=1"}},
	}
}

// run runs the tool's subcommand with args in dir, stdin given, and
// returns stdout; a failure is fatal, with stderr.
func (tl tool) run(t *testing.T, dir string, env []string, stdin []byte, args ...string) []byte {
	t.Helper()
	out, errOut, err := tl.try(dir, env, stdin, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", tl.name, strings.Join(args, " "), err, errOut)
	}
	return out
}

// try runs the tool, bounded to a minute.
func (tl tool) try(dir string, env []string, stdin []byte, args ...string) (stdout, stderr []byte, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tl.argv[0], append(append([]string{}, tl.argv[1:]...), args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), tl.env...), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// cleanEnv is the environment without proxy settings (vegeta always
// honours them; the cases that want a proxy set their own).
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", asBinaryEnv:
			continue
		}
		out = append(out, kv)
	}
	return out
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
