// Package hostile is the adversarial campaign of issue 25 kept as a test
// suite: the real loadlab binary (built once) against hostile input and
// faults on loopback. Every bad input must get one line on stderr and exit
// 2, never a stack trace, and must leave every file as it was; the
// hostile peers and damaged files must get the documented safe behaviour.
package hostile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// bin is the loadlab binary built for the suite; fixtures holds files
// every case may copy (a results stream, a targets file, a recipe...).
var bin, fixtures string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "loadlab-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "loadlab")
		build := exec.Command("go", "build", "-o", bin, "github.com/loadlab/loadlab/cmd/loadlab")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building loadlab:", err)
			return 1
		}
		fixtures = filepath.Join(dir, "fixtures")
		if err := makeFixtures(fixtures); err != nil {
			fmt.Fprintln(os.Stderr, "fixtures:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// makeFixtures writes the good files the cases start from, the results
// stream from a real attack on a loopback server.
func makeFixtures(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	files := map[string]string{
		"targets.txt": "GET " + srv.URL + "/a\n",
		"recipe.json": `{"body": "ok", "stages": [{"at": 0, "status": 200}]}`,
		"proxy.yaml":  "pools: {default: {size: 2}}\nroutes:\n  - {path: /*, upstream: \"http://127.0.0.1:1\"}\n",
		"junk.lll":    "this is not a results file\n",
		"body.tmpl":   "{{seq",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "attack", "-rate=1000/s", "-duration=1200ms", "-output="+filepath.Join(dir, "r.lll"))
	cmd.Stdin = strings.NewReader("GET " + srv.URL + "/a\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("attack: %v: %s", err, out)
	}
	return nil
}

// result is what one run of the binary did.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary in dir with stdin, bounded to 20 s.
func run(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "ORIGIN_URL=http://127.0.0.1:1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("loadlab %s: still running after 20 s (killed)", strings.Join(args, " "))
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// caseDir is a fresh folder holding a copy of the fixtures plus files.
func caseDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(fixtures, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// snapshot is every file under dir (links as their targets) with a hash
// of its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case fi.IsDir():
			out[rel+"/"] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles fails t when after differs from before: a file written,
// changed or removed.
func sameFiles(t *testing.T, before, after map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range before {
		if after[k] != v {
			diffs = append(diffs, "changed or removed: "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "written: "+k)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("files touched: %s", strings.Join(diffs, "; "))
	}
}

// oneLine fails t unless stderr is exactly one line naming loadlab, with
// no stack trace.
func oneLine(t *testing.T, stderr string) {
	t.Helper()
	s := strings.TrimSuffix(stderr, "\n")
	switch {
	case s == "":
		t.Errorf("nothing on stderr")
	case strings.Contains(s, "\n"):
		t.Errorf("stderr is %d lines, want one:\n%s", strings.Count(s, "\n")+1, stderr)
	case !strings.HasPrefix(s, "loadlab"):
		t.Errorf("stderr does not start with loadlab: %q", s)
	case strings.Contains(s, "panic") || strings.Contains(s, "goroutine "):
		t.Errorf("stack trace on stderr: %q", s)
	}
}
