package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/loadlab/loadlab/internal/results"
)

// TestArchiveClosedLoopSlug: a closed-loop run is named in the archive by
// its users (users-3s-4-16users-<id>), where a paced run is named by its
// rate; the rate a closed loop achieved is not what it was asked for. The
// slug is the run's page on the results site, redirecting to its ID.
func TestArchiveClosedLoopSlug(t *testing.T) {
	dir := t.TempDir()
	out, _ := sharedClosedLoopFolder(t)
	db := filepath.Join(dir, "runs.db")
	if _, errOut, code := runBinary(t, "", "archive", "add", "-db", db, out); code != 0 {
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

// TestArchiveClosedLoopAttackSlug: `attack -rate=0 -max-workers 4` is a
// closed loop of 4 concurrent requests: its results file's header records
// the 4 users, and the archive names the run by them
// (closed-1s-4users-<id>, "4 users" in archive list's LOAD column), not by
// the rate they achieved; a paced attack's file records none and is named
// by its rate.
func TestArchiveClosedLoopAttackSlug(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	for _, tc := range []struct {
		name  string
		flags []string
		users int
		slug  string
		load  string
	}{
		{"closed", []string{"-rate=0", "-max-workers=4"}, 4, `^closed-1s-4users-`, `4 users`},
		{"paced", []string{"-rate=50/s"}, 0, `^paced-1s-[0-9]+rps-`, `[0-9.]+/s`},
	} {
		file := filepath.Join(dir, tc.name+".lll")
		args := append([]string{"attack", "-duration=1s", "-output", file}, tc.flags...)
		if _, errOut, code := runBinary(t, "GET "+srv.URL+"/\n", args...); code != 0 {
			t.Fatalf("%s attack: exit %d: %s", tc.name, code, errOut)
		}
		src, err := results.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		users, _ := src.Meta.Load.Bounds()
		src.Close()
		if users != tc.users {
			t.Errorf("%s: the results header records %d users, want %d", tc.name, users, tc.users)
		}
		id := addOne(t, db, file)
		var slug string
		for _, r := range listJSON(t, db) {
			if r.ID == id {
				slug = r.Slug
			}
		}
		if !regexp.MustCompile(tc.slug + regexp.QuoteMeta(id) + `$`).MatchString(slug) {
			t.Errorf("%s: slug %q, want %s<id>", tc.name, slug, tc.slug)
		}
		text, errOut, code := runBinary(t, "", "archive", "list", "-db", db)
		if code != 0 || !regexp.MustCompile(`(?m)^`+id+` .* [0-9]+ +`+tc.load+` +[0-9.]+%`).MatchString(text) {
			t.Errorf("%s: archive list (exit %d %s) does not give the load as %q:\n%s", tc.name, code, errOut, tc.load, text)
		}
	}
}
