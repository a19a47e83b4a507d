package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
)

// TestRewriteNeedsOnlyTheFolder: `run -rewrite` reads the run folder
// alone. A real closed-loop run's folder, made to look as an older
// loadlab wrote it (summary.json without the users), is moved and the
// plan's own files (its recipe and proxy config) are gone: the rewrite
// still says 4 and 16 users with the throughput they achieved (not "RPS
// 0"), shows the recipe and the proxy's config from the folder's copies,
// and gives the run's report byte for byte.
func TestRewriteNeedsOnlyTheFolder(t *testing.T) {
	dir := t.TempDir()
	out, sum := closedLoopFolderCopy(t, dir)
	md := readText(t, filepath.Join(out, "report.md"))
	for _, want := range []string{"Origin simulator recipe:", `"latency": "50ms"`, "checkout_timeout: 2s"} {
		if !strings.Contains(md, want) {
			t.Fatalf("the run's report lacks %q", want)
		}
	}

	// summary.json as a loadlab that kept no users wrote it.
	dropUsers(t, out)
	// The plan's files gone, the folder moved.
	if err := os.RemoveAll(filepath.Join(dir, "plan")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, "archive", "users-run")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(out, moved); err != nil {
		t.Fatal(err)
	}
	// The archive reads the old summary as the rewrite does: a closed
	// loop of 4 to 16 users, named by them (users from the plan's copy).
	db := filepath.Join(dir, "runs.db")
	if _, errOut, code := runBinary(t, "", "archive", "add", "-db", db, moved); code != 0 {
		t.Fatalf("archive add: exit %d: %s", code, errOut)
	}
	if runs := listJSON(t, db); len(runs) != 1 || !regexp.MustCompile(`-4-16users-`).MatchString(runs[0].Slug) {
		t.Errorf("the old folder archived as %+v, want one run named by its 4-16 users", runs)
	}
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", moved); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut)
	}
	again := readText(t, filepath.Join(moved, "report.md"))
	for i, st := range sum.Steps {
		sc := st.Scenarios[0]
		if row := fmt.Sprintf("| %d users | %d users, %s req/s |", sc.Users, sc.Users, load.FmtRate(sc.Throughput)); !strings.Contains(again, row) {
			t.Errorf("step %d: the rewritten report has no row %q", i+1, row)
		}
	}
	if strings.Contains(again, "| RPS |") || strings.Contains(again, " at 0 for ") {
		t.Errorf("the rewritten report says the closed loops ran at rate 0")
	}
	if again != md {
		t.Errorf("the rewrite of the moved folder differs from the run's report:\n%s", again)
	}
}

// TestRewriteReadsComponentCopiesOnlyFromItsFolder: a run folder copied
// elsewhere without its components' copies (the proxy's rendered configs,
// the origin's recipe), while the original folder now holds another run's
// (a new run written where it was), rewrites without reading the
// original's: the report says each copy is missing from the folder, and
// never shows the other run's config or recipe. Given its copies back, it
// rewrites to the run's report byte for byte.
func TestRewriteReadsComponentCopiesOnlyFromItsFolder(t *testing.T) {
	dir := t.TempDir()
	out, _ := closedLoopFolderCopy(t, dir)
	md := readText(t, filepath.Join(out, "report.md"))
	copied := filepath.Join(dir, "copied")
	if err := os.CopyFS(copied, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{} // the copy's configs and recipe, by name
	for _, pattern := range []string{"*.yaml", "*-recipe.*"} {
		names, _ := filepath.Glob(filepath.Join(copied, "components", pattern))
		for _, n := range names {
			kept[filepath.Base(n)] = readText(t, n)
			if err := os.Remove(n); err != nil {
				t.Fatal(err)
			}
			// Another run's files where the original run kept its own.
			other := strings.NewReplacer("checkout_timeout: 2s", "checkout_timeout: 7s", `"latency": "50ms"`, `"latency": "70ms"`).Replace(kept[filepath.Base(n)])
			if err := os.WriteFile(filepath.Join(out, "components", filepath.Base(n)), []byte(other), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(kept) < 2 {
		t.Fatalf("the run kept %d configs and recipes in components/, want the proxy's and the origin's", len(kept))
	}
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", copied); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut)
	}
	again := readText(t, filepath.Join(copied, "report.md"))
	for _, other := range []string{"checkout_timeout: 7s", `"latency": "70ms"`} {
		if strings.Contains(again, other) {
			t.Errorf("the rewrite of the copy shows the other run's %q", other)
		}
	}
	// The Config section shows each component once: the proxy's first
	// step's config, the origin's recipe.
	for _, name := range []string{"proxy-step01.yaml", "origin-recipe.json"} {
		if _, ok := kept[name]; !ok {
			t.Fatalf("the run kept %v in components/, not %s", slices.Collect(maps.Keys(kept)), name)
		}
		kind := "Config"
		if strings.Contains(name, "-recipe.") {
			kind = "Origin simulator recipe"
		}
		if want := kind + ": missing from the run folder (the run kept it as components/" + name + ")."; !strings.Contains(again, want) {
			t.Errorf("the rewrite does not say %q", want)
		}
	}

	for name, text := range kept {
		if err := os.WriteFile(filepath.Join(copied, "components", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", copied); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut)
	}
	if again := readText(t, filepath.Join(copied, "report.md")); again != md {
		t.Errorf("the copy, its files back, rewrites to another report than the run's:\n%s", again)
	}
}

// TestRewriteAppliesTheRunsOverrides: a closed loop run with `-set
// users=8` over a plan whose matrix lists 4 and 16 users, its folder made
// to look as an older loadlab wrote it (summary.json without the users),
// rewrites with the 8 users it ran (the overrides recorded in summary.json
// applied to the plan's copy as the run applied them), not the plan
// file's, and gives the run's report byte for byte.
func TestRewriteAppliesTheRunsOverrides(t *testing.T) {
	dir := t.TempDir()
	out, sum := closedLoopRun(t, dir, []int{4, 16}, []string{"users=8"}, []int{8})
	if !slices.Contains(sum.RunArgs, "users=8") {
		t.Fatalf("summary.json records the run's arguments as %q", sum.RunArgs)
	}
	md := readText(t, filepath.Join(out, "report.md"))
	dropUsers(t, out)
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", out); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut)
	}
	again := readText(t, filepath.Join(out, "report.md"))
	sc := sum.Steps[0].Scenarios[0]
	if row := fmt.Sprintf("| 8 users | 8 users, %s req/s |", load.FmtRate(sc.Throughput)); !strings.Contains(again, row) {
		t.Errorf("the rewritten report has no row %q", row)
	}
	if again != md {
		t.Errorf("the rewrite differs from the run's report:\n%s", again)
	}
	if re, err := summary.Load(out); err != nil {
		t.Error(err)
	} else if u := re.Steps[0].Scenarios[0].Users; u != 8 {
		t.Errorf("the rewritten summary.json says %d users, want 8", u)
	}
}
