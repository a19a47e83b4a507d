package portability

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// targets are the platforms loadlab must build on (README, install).
var targets = []string{
	"linux/amd64", "linux/arm64", "linux/386", "linux/arm",
	"darwin/arm64", "darwin/amd64", "windows/amd64", "freebsd/amd64",
}

// TestBuildsOnEveryPlatform cross-compiles loadlab for each target and
// type-checks every package of the module, tests included, with go vet
// (go build ./... would add little and link the 15 bench programs for each
// platform). Both go through the build cache. Measured 2026-11-27 on the
// shared 2-core machine (load average 4-7): 27 s in all with a warm cache;
// 60-100 s after a change to a package most others import (it and they
// are compiled again for every platform); with a cold cache each platform
// first compiles every dependency, 80-190 s each, over 10 minutes in all.
// So it stops, failing, when the test binary's deadline comes near, rather
// than being killed by the timeout: the platforms checked so far stay in
// the cache, and the next run goes on from there.
func TestBuildsOnEveryPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cross-compiling for", len(targets), "platforms takes half a minute with a warm build cache, minutes with a cold one")
	}
	root := moduleRoot(t)
	start := time.Now()
	for i, target := range targets {
		if d, ok := t.Deadline(); ok && time.Until(d) < 3*time.Minute {
			t.Fatalf("%d of %d platforms left unchecked (%s): the test's deadline is %s away, and with a cold build cache one platform can take minutes; the %d checked took %s and stay in the cache, so run it again",
				len(targets)-i, len(targets), strings.Join(targets[i:], " "), time.Until(d).Round(time.Second), i, time.Since(start).Round(time.Second))
		}
		t.Run(strings.ReplaceAll(target, "/", "-"), func(t *testing.T) {
			start := time.Now()
			if err := crossCheck(root, target, ""); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: built and vetted in %.1f s", target, time.Since(start).Seconds())
		})
	}
	// The fallbacks selected on Linux, as `make test` runs some of them.
	t.Run("linux-amd64-"+portableTag, func(t *testing.T) {
		if err := crossCheck(root, "linux/amd64", portableTag); err != nil {
			t.Fatal(err)
		}
	})
}

// portableTag builds the portable fallbacks (the _other.go files) on Linux
// too, instead of the Linux fast paths.
const portableTag = "loadlab_portable"

// TestCrossCheckNamesTargetAndError runs the check on a small module that
// only builds on Linux, as origin/cork.go did before it had a file per
// system: it must fail for macOS naming the platform and the compiler's
// error, and pass for Linux.
func TestCrossCheckNamesTargetAndError(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles the standard library for macOS when the build cache lacks it")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod": "module example.com/corked\n\ngo 1.22\n",
		"cork.go": `package corked

import "syscall"

// Cork sets TCP_CORK on fd.
func Cork(fd int) error { return syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_CORK, 1) }
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := crossCheck(dir, "linux/arm64", ""); err != nil {
		t.Fatalf("linux/arm64 has TCP_CORK: %v", err)
	}
	err := crossCheck(dir, "darwin/arm64", "")
	if err == nil {
		t.Fatal("darwin/arm64: built a use of syscall.TCP_CORK")
	}
	for _, want := range []string{"darwin/arm64: go vet ./...: ", "cork.go:6:89: undefined: syscall.TCP_CORK"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// crossCheck vets every package of the module at dir, tests included, for
// target ("GOOS/GOARCH") with the build tags given, then builds loadlab's
// binary there when the module is loadlab. The error names the target,
// the command and the compiler's first error.
func crossCheck(dir, target, tags string) error {
	goos, goarch, _ := strings.Cut(target, "/")
	steps := [][]string{{"vet", "./..."}}
	if _, err := os.Stat(filepath.Join(dir, "cmd", "loadlab")); err == nil {
		steps = append(steps, []string{"build", "-o", os.DevNull, "./cmd/loadlab"})
	}
	name := target
	if tags != "" {
		name += " -tags " + tags
	}
	for _, args := range steps {
		// -p: as many packages at once as there are processors, the
		// targets one after the other (they would only compete).
		flags := []string{args[0], "-p", fmt.Sprint(runtime.NumCPU())}
		if tags != "" {
			flags = append(flags, "-tags", tags)
		}
		cmd := exec.Command(goTool(), append(flags, args[1:]...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "GOWORK=off")
		if target != runtime.GOOS+"/"+runtime.GOARCH {
			cmd.Env = append(cmd.Env, "CGO_ENABLED=0") // no C cross-compiler needed
		}
		out, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("%s: go %s: %v", name, strings.Join(args, " "), err)
		}
		first, more := firstError(out)
		return fmt.Errorf("%s: go %s: %s (%d more lines of output)", name, strings.Join(args, " "), first, more)
	}
	return nil
}

// compilerError is a line of the compiler's or vet's: "file.go:12:3: ...",
// possibly after "vet: ".
var compilerError = regexp.MustCompile(`^(?:vet: )?(\S+\.go:\d+(?::\d+)?: .*)$`)

// firstError picks the first compiler error in go's output (else its first
// line) and counts the other lines.
func firstError(out []byte) (first string, more int) {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		if m := compilerError.FindStringSubmatch(l); m != nil {
			return m[1], len(lines) - 1
		}
	}
	if len(lines) == 0 || lines[0] == "" {
		return "failed without output", 0
	}
	return lines[0], len(lines) - 1
}

// goTool is the go command: go test puts its own toolchain's first in the
// PATH of the tests it runs.
func goTool() string { return "go" }

// moduleRoot is the folder of loadlab's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(goTool(), "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := string(bytes.TrimSpace(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("go env GOMOD: not inside loadlab's module")
	}
	return filepath.Dir(gomod)
}
