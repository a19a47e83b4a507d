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
	"slices"
	"strings"
	"testing"
	"time"
)

// targets are the platforms loadlab must build on (README, install).
var targets = []string{
	"linux/amd64", "linux/arm64", "linux/386", "linux/arm",
	"darwin/arm64", "darwin/amd64", "windows/amd64", "freebsd/amd64",
}

// TestBuildsOnEveryPlatform cross-compiles loadlab and type-checks its
// packages, tests included, with go vet (go build ./... would add little
// and link the 15 bench programs for each platform).
//
// With LOADLAB_PORTABILITY=all (`make portability`) it checks the whole
// module and builds the binary for every target. Measured 2026-11-27 on
// the 2-core machine: 27 s in all with a warm build cache, but with a cold
// one each platform first compiles every dependency (the Kubernetes API,
// sqlite, pgx, the standard library): 70 s for one platform on a quiet
// machine, 80-190 s on a loaded one, over ten minutes for the eight. That
// is too long for `make test` on a fresh machine, so by default it checks
// what can break and costs least: for macOS (arm64) and Windows, the
// packages that call the system (they import syscall or x/sys/unix, or
// hold files for other systems) but cmd/loadlab and internal/experiment,
// whose dependencies are most of that cost (27 s cold for both targets'
// share each); and, on Linux with the loadlab_portable tag (the _other.go
// fallbacks built here), the whole module, which notices a fast path
// added to a _linux.go file without its fallback anywhere, those two
// packages included.
//
// It stops, failing, when the test binary's deadline comes near, rather
// than being killed by the timeout: the platforms checked so far stay in
// the cache, and the next run goes on from there.
func TestBuildsOnEveryPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cross-compiling takes half a minute with a warm build cache, minutes with a cold one")
	}
	root := moduleRoot(t)
	checks := []check{{target: "linux/amd64", tags: portableTag, pkgs: []string{"./..."}}}
	if os.Getenv("LOADLAB_PORTABILITY") == "all" {
		for _, target := range targets {
			checks = append(checks, check{target: target, pkgs: []string{"./..."}, binary: true})
		}
	} else {
		pkgs := systemPackages(t, root, "github.com/loadlab/loadlab/cmd/loadlab", "github.com/loadlab/loadlab/internal/experiment")
		for _, target := range quickTargets {
			checks = append(checks, check{target: target, pkgs: pkgs})
		}
	}
	start := time.Now()
	for i, c := range checks {
		if d, ok := t.Deadline(); ok && time.Until(d) < 3*time.Minute {
			t.Fatalf("%d of %d checks left undone (from %s): the test's deadline is %s away, and with a cold build cache one platform can take minutes; the %d done took %s and stay in the cache, so run it again",
				len(checks)-i, len(checks), c.target, time.Until(d).Round(time.Second), i, time.Since(start).Round(time.Second))
		}
		name := strings.ReplaceAll(c.target, "/", "-")
		if c.tags != "" {
			name += "-" + c.tags
		}
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			if err := crossCheck(root, c); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d package patterns vetted in %.1f s", c.target, len(c.pkgs), time.Since(start).Seconds())
		})
	}
}

// quickTargets are the platforms `make test` checks: the two that differ
// most from Linux (a BSD-like Unix and Windows).
var quickTargets = []string{"darwin/arm64", "windows/amd64"}

// check is one cross-check: the packages to vet for target with the build
// tags given, and whether to build loadlab's binary there too.
type check struct {
	target, tags string
	pkgs         []string
	binary       bool
}

// systemPackages lists the module's packages that call the system: they
// import syscall or golang.org/x/sys/unix, or hold files this platform
// leaves out (files for other systems); except skip.
func systemPackages(t *testing.T, root string, skip ...string) []string {
	t.Helper()
	cmd := exec.Command(goTool(), "list", "-f", `{{.ImportPath}} {{len .IgnoredGoFiles}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || slices.Contains(skip, f[0]) {
			continue
		}
		if f[1] != "0" || slices.Contains(f[2:], "syscall") || slices.Contains(f[2:], "golang.org/x/sys/unix") {
			pkgs = append(pkgs, f[0])
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages that call the system, expected the dozen or more loadlab has: %q", len(pkgs), pkgs)
	}
	return pkgs
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
	// Linux on this machine's architecture: its standard library is in
	// the build cache already (a second Linux architecture cost its own
	// cold compile of the standard library, and checked nothing more).
	linux := "linux/" + runtime.GOARCH
	if err := crossCheck(dir, check{target: linux, pkgs: []string{"./..."}}); err != nil {
		t.Fatalf("%s has TCP_CORK: %v", linux, err)
	}
	err := crossCheck(dir, check{target: "darwin/arm64", pkgs: []string{"./..."}})
	if err == nil {
		t.Fatal("darwin/arm64: built a use of syscall.TCP_CORK")
	}
	for _, want := range []string{"darwin/arm64: go vet ./...: ", "cork.go:6:89: undefined: syscall.TCP_CORK"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// crossCheck vets c's packages of the module at dir, tests included, for
// c's target with c's build tags, then builds loadlab's binary there when
// c asks. The error names the target, the command and the compiler's
// first error.
func crossCheck(dir string, c check) error {
	goos, goarch, _ := strings.Cut(c.target, "/")
	steps := [][]string{append([]string{"vet"}, c.pkgs...)}
	if c.binary {
		steps = append(steps, []string{"build", "-o", os.DevNull, "./cmd/loadlab"})
	}
	name := c.target
	if c.tags != "" {
		name += " -tags " + c.tags
	}
	for _, args := range steps {
		// -p: as many packages at once as there are processors, the
		// targets one after the other (they would only compete).
		flags := []string{args[0], "-p", fmt.Sprint(runtime.NumCPU())}
		if c.tags != "" {
			flags = append(flags, "-tags", c.tags)
		}
		cmd := exec.Command(goTool(), append(flags, args[1:]...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "GOWORK=off")
		if c.target != runtime.GOOS+"/"+runtime.GOARCH {
			cmd.Env = append(cmd.Env, "CGO_ENABLED=0") // no C cross-compiler needed
		}
		out, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		what := strings.Join(args, " ")
		if len(args) > 4 {
			what = strings.Join(args[:3], " ") + fmt.Sprintf(" (and %d more)", len(args)-3)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return fmt.Errorf("%s: go %s: %v", name, what, err)
		}
		first, more := firstError(out)
		return fmt.Errorf("%s: go %s: %s (%d more lines of output)", name, what, first, more)
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
