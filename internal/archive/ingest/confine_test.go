//go:build unix

package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

// bundlesWithin runs Bundles on paths, failing t if it has not returned
// within 20 s (a FIFO waited on, /dev/zero read).
func bundlesWithin(t *testing.T, ctx context.Context, paths ...string) (int, []string, error) {
	t.Helper()
	type out struct {
		n     int
		warns []string
		err   error
	}
	done := make(chan out, 1)
	go func() {
		bs, warns, err := Bundles(ctx, paths, Options{})
		done <- out{len(bs), warns, err}
	}()
	select {
	case o := <-done:
		return o.n, o.warns, o.err
	case <-time.After(20 * time.Second):
		t.Fatalf("archive add of %v still running after 20 s", paths)
	}
	return 0, nil, nil
}

// editSummary rewrites the run folder's summary.json through edit.
func editSummary(t *testing.T, dir string, edit func(s map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	edit(s)
	if data, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstStep is summary.json's first step.
func firstStep(s map[string]any) map[string]any {
	return s["steps"].([]any)[0].(map[string]any)
}

// replace removes dir/name and puts what make makes in its place.
func replace(t *testing.T, dir, name string, make func(p string) error) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := make(p); err != nil {
		t.Fatal(err)
	}
}

func linkTo(target string) func(string) error {
	return func(p string) error { return os.Symlink(target, p) }
}

func fifo(p string) error { return syscall.Mkfifo(p, 0o644) }

// Files a run folder names or holds that are not its own regular files
// are refused, each with one line naming it, before anything is read:
// links leaving the folder (from the folder's own files, summary.json's
// results, logs and step folders), FIFOs, /dev/zero, and names in
// summary.json that are absolute or climb out with `..`. A FIFO is never
// waited on, /dev/zero never read.
func TestOutsideAndSpecialFilesRefused(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("root:x:0:0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outside, "ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "ssh", "id_rsa"), []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(runDir, "steps", "01-build-2020-01-09", "page.lll")
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string // in the error
	}{
		{"plan.yaml a link out", func(t *testing.T, dir string) { replace(t, dir, "plan.yaml", linkTo(secret)) }, "plan.yaml: is a link to outside the run folder"},
		{"report.md a link out", func(t *testing.T, dir string) { replace(t, dir, "report.md", linkTo(secret)) }, "report.md: is a link to outside the run folder"},
		{"a component's log a link out", func(t *testing.T, dir string) {
			replace(t, dir, "components/build-2020-01-09-step01.log", linkTo(secret))
		}, "build-2020-01-09-step01.log: is a link to outside the run folder"},
		{"results a link out", func(t *testing.T, dir string) {
			abs, _ := filepath.Abs(results)
			replace(t, dir, "steps/01-build-2020-01-09/page.lll", linkTo(abs))
		}, "page.lll: is a link to outside the run folder"},
		{"a step folder a link out", func(t *testing.T, dir string) {
			replace(t, dir, "steps/01-build-2020-01-09", linkTo(filepath.Join(outside, "ssh")))
		}, "01-build-2020-01-09"},
		{"samples.json a link to /dev/zero", func(t *testing.T, dir string) { replace(t, dir, "samples.json", linkTo("/dev/zero")) }, "samples.json: is a link to outside the run folder"},
		{"samples.json a FIFO", func(t *testing.T, dir string) { replace(t, dir, "samples.json", fifo) }, "samples.json: is a FIFO"},
		{"report.md a FIFO", func(t *testing.T, dir string) { replace(t, dir, "report.md", fifo) }, "report.md: is a FIFO"},
		{"summary.json a link to /dev/zero", func(t *testing.T, dir string) { replace(t, dir, "summary.json", linkTo("/dev/zero")) }, "summary.json: is a link to outside the run folder"},
		{"results ../", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s map[string]any) {
				firstStep(s)["scenarios"].([]any)[0].(map[string]any)["results"] = "../outside.lll"
			})
		}, `steps[0].scenarios[0].results: "../outside.lll" is outside the run folder`},
		{"results absolute", func(t *testing.T, dir string) {
			abs, _ := filepath.Abs(results)
			editSummary(t, dir, func(s map[string]any) { firstStep(s)["scenarios"].([]any)[0].(map[string]any)["results"] = abs })
		}, "steps[0].scenarios[0].results"},
		{"a step folder through ..", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s map[string]any) { firstStep(s)["dir"] = "../" + filepath.Base(outside) + "/ssh" })
		}, "steps[0].dir"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := copyRun(t)
			tc.setup(t, dir)
			_, _, err := bundlesWithin(t, context.Background(), dir)
			if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v; want one line of bad input saying %q", err, tc.want)
			}
		})
	}
}

// A FIFO named on the command line is refused at once.
func TestFIFOArgumentRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.lll")
	if err := fifo(p); err != nil {
		t.Fatal(err)
	}
	_, _, err := bundlesWithin(t, context.Background(), p)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "is a FIFO") {
		t.Fatalf("err %v, want a FIFO refused", err)
	}
}

// Inside the folders walked (a step's folder, components/), what is not
// a regular file is skipped with a warning naming it, and the rest is
// stored; a link that stays inside the folder is followed.
func TestWalkedFoldersSkipSpecialEntries(t *testing.T) {
	dir, _ := copyRun(t)
	step := "steps/01-build-2020-01-09/"
	replace(t, dir, step+"extra.fifo", fifo)
	replace(t, dir, step+"passwd", linkTo("/etc/passwd"))
	replace(t, dir, "report.md", linkTo("steps/01-build-2020-01-09/page.txt")) // inside: followed
	bs, warns, err := Bundles(context.Background(), []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warns, "\n")
	for _, w := range []string{step + "extra.fifo: skipped, a FIFO", step + "passwd: skipped, a link"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warns, w)
		}
	}
	for _, b := range bs {
		for _, f := range b.Files {
			if strings.HasSuffix(f.Name, "extra.fifo") || strings.HasSuffix(f.Name, "passwd") {
				t.Errorf("%s stored", f.Name)
			}
		}
	}
}

// A file that changes under the add (a FIFO put in place of a file found
// regular) is refused when opened, without waiting on it; one that
// shrank is an error; one that grew is read to its size when found.
func TestFileSwappedAfterFound(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, err := argFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := os.WriteFile(p, []byte("0123456789 and more"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ref.readAll(ctx, 100); err != nil || string(b) != "0123456789" {
		t.Fatalf("grown: %q, %v; want its first 10 bytes", b, err)
	}
	if err := os.WriteFile(p, []byte("01234"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ref.readAll(ctx, 100); err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("shrunk: %v", err)
	}
	os.Remove(p)
	if err := fifo(p); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ref.open(ctx); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is a FIFO") {
			t.Fatalf("swapped for a FIFO: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("opening a FIFO put in place of the file waits")
	}
}

// Cancelling (Ctrl-C) stops an add reading a huge file within a chunk:
// Bundles returns the context's error long before the file is read.
func TestCancelStopsReading(t *testing.T) {
	dir, _ := copyRun(t)
	f, err := os.Create(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	// 60 GiB sparse: reading and hashing it all takes minutes
	if err := f.Truncate(60 << 30); err != nil {
		t.Skip("no sparse file of 60 GiB here:", err)
	}
	f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, _, err := Bundles(ctx, []string{dir}, Options{}); done <- err }()
	time.Sleep(300 * time.Millisecond) // reading has begun (a cancel before it ends the same way)
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
		t.Logf("returned %v after the cancel", time.Since(cancelled))
	case <-time.After(20 * time.Second):
		t.Fatal("still reading 20 s after the cancel")
	}
}

// FuzzFolderNames gives the folder's name checks any name summary.json
// could hold: a name they accept, and a file the root then finds, is
// always inside the folder.
func FuzzFolderNames(f *testing.F) {
	for _, s := range []string{"../outside.lll", "/etc/passwd", "steps/01/page.lll", "a/../../b", "a/./b", "..", ".", "", "c:\\x", "steps/../steps/x"} {
		f.Add(s)
	}
	base := f.TempDir()
	dir := filepath.Join(base, "run")
	if err := os.MkdirAll(filepath.Join(dir, "steps"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "outside.lll"), []byte("x"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("../outside.lll", filepath.Join(dir, "steps", "out.lll")); err != nil {
		f.Fatal(err)
	}
	fo, err := openFolder(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if fo.checkName("field", name) != nil {
			return
		}
		abs := filepath.Join(dir, filepath.FromSlash(name))
		if rel, err := filepath.Rel(dir, abs); err != nil || !filepath.IsLocal(rel) && rel != "." {
			t.Fatalf("%q accepted, it is %s", name, abs)
		}
		if ref, err := fo.stat(name); err == nil {
			b, err := ref.readAll(context.Background(), 1<<20)
			if err == nil && string(b) == "x" {
				t.Fatalf("%q read the file outside the folder", name)
			}
		}
	})
}
