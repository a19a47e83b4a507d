package main

import (
	"path/filepath"
	"regexp"
	"testing"
)

// TestArchiveClosedLoopSlug: a closed-loop run is named in the archive by
// its users (users-3s-4-16users-<id>), where a paced run is named by its
// rate; the rate a closed loop achieved is not what it was asked for. The
// slug is the run's page on the results site, redirecting to its ID.
func TestArchiveClosedLoopSlug(t *testing.T) {
	dir := t.TempDir()
	out, _ := sharedClosedLoopFolder(t)
	db := filepath.Join(dir, "runs.db")
	if _, errOut, code := loadlabBin(t, "", "archive", "add", "-db", db, out); code != 0 {
		t.Fatalf("archive add: exit %d: %s", code, errOut)
	}
	runs := listJSON(t, db)
	if len(runs) != 1 {
		t.Fatalf("%d runs archived, want 1", len(runs))
	}
	want := regexp.MustCompile(`^users-[0-9]+s-4-16users-` + regexp.QuoteMeta(runs[0].ID) + `$`)
	if !want.MatchString(runs[0].Slug) {
		t.Errorf("slug %q, want users-<seconds>s-4-16users-%s", runs[0].Slug, runs[0].ID)
	}
}
