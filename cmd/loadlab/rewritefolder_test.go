package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
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
	out, sum := closedLoopFolder(t, dir)
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
	if _, errOut, code := loadlabBin(t, "", "run", "-rewrite", moved); code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, errOut)
	}
	again := readText(t, filepath.Join(moved, "report.md"))
	for i, st := range sum.Steps {
		sc := st.Scenarios[0]
		if row := fmt.Sprintf("| %d users | %d users, %s req/s |", sc.Users, sc.Users, summary.FmtRate(sc.Throughput)); !strings.Contains(again, row) {
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
