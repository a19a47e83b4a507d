package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestArchivedRunRewritesFromItsTar: a real run (an origin and a proxy on
// loopback, two closed loops), archived, then fetched back from the
// results site as archive.tar and extracted while the run folder and the
// plan's own files are gone, rewrites (`run -rewrite`) to the report the
// folder itself rewrites to, byte for byte, the proxy's config and the
// origin's recipe shown from the archive's copies. A run archived as an
// older loadlab stored it (no configs, no recipe copy) still serves and
// rewrites, without them. `archive list` says the closed loops' load in
// users.
func TestArchivedRunRewritesFromItsTar(t *testing.T) {
	dir := t.TempDir()
	out, _ := closedLoopFolderCopy(t, dir)
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", out); code != 0 {
		t.Fatalf("rewrite of the run folder: exit %d: %s", code, errOut)
	}
	md, html := readText(t, filepath.Join(out, "report.md")), readText(t, filepath.Join(out, "report.html"))
	for _, want := range []string{"Origin simulator recipe:", `"latency": "50ms"`, "checkout_timeout: 2s"} {
		if !strings.Contains(md, want) {
			t.Fatalf("the run's report lacks %q", want)
		}
	}
	// An older loadlab's archive of the same run: without what it did not
	// store, in a database of its own (the content hash is the same).
	old := filepath.Join(dir, "old", "out")
	if err := os.CopyFS(old, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	var added int64
	for _, pattern := range []string{"*.yaml", "*-recipe.*"} {
		names, _ := filepath.Glob(filepath.Join(old, "components", pattern))
		for _, n := range names {
			if st, err := os.Stat(n); err == nil {
				added += st.Size()
			}
			if err := os.Remove(n); err != nil {
				t.Fatal(err)
			}
		}
	}
	if added == 0 {
		t.Fatal("the run folder holds no config nor recipe copy in components/")
	}
	t.Logf("the configs and recipe copies stored besides what an older loadlab stored: %d bytes", added)

	db, oldDB := filepath.Join(dir, "runs.db"), filepath.Join(dir, "old.db")
	id := addOne(t, db, out)
	oldID := addOne(t, oldDB, old)
	if id != oldID {
		t.Errorf("the run's ID %s differs from its older archive's %s: adding a folder an older loadlab archived would store it twice", id, oldID)
	}

	// The load in users, in the table and in JSON.
	text, errOut, code := runBinary(t, "", "archive", "list", "-db", db)
	if code != 0 || !regexp.MustCompile(`(?m)^ID .* REQUESTS +LOAD +SUCCESS`).MatchString(text) ||
		!regexp.MustCompile(`(?m)^`+id+` .* [0-9]+ +4-16 users +[0-9.]+%`).MatchString(text) {
		t.Errorf("archive list: exit %d %s\n%s", code, errOut, text)
	}
	js, _, _ := runBinary(t, "", "archive", "list", "-db", db, "-type", "json")
	var runs []struct {
		ID    string  `json:"id"`
		Rate  float64 `json:"rate"`
		Users []int   `json:"users"`
	}
	if err := json.Unmarshal([]byte(js), &runs); err != nil || len(runs) != 1 || !slices.Equal(runs[0].Users, []int{4, 16}) || runs[0].Rate == 0 {
		t.Errorf("archive list -type json: %v %s", err, js)
	}

	// Nothing left but the archives.
	if err := os.Rename(out, filepath.Join(dir, "moved-away")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "plan")); err != nil {
		t.Fatal(err)
	}
	fetched := fetchTar(t, db, id, filepath.Join(dir, "fetched"))
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", fetched); code != 0 {
		t.Fatalf("rewrite of the fetched archive: exit %d: %s", code, errOut)
	}
	if got := readText(t, filepath.Join(fetched, "report.md")); got != md {
		t.Errorf("report.md of the fetched archive differs from the run folder's:\n%s", got)
	}
	if got := readText(t, filepath.Join(fetched, "report.html")); got != html {
		t.Errorf("report.html of the fetched archive differs from the run folder's")
	}

	oldFetched := fetchTar(t, oldDB, oldID, filepath.Join(dir, "old-fetched"))
	if _, errOut, code := runBinary(t, "", "run", "-rewrite", oldFetched); code != 0 {
		t.Fatalf("rewrite of an older archive: exit %d: %s", code, errOut)
	}
	oldMD := readText(t, filepath.Join(oldFetched, "report.md"))
	if strings.Contains(oldMD, "checkout_timeout: 2s") || !strings.Contains(oldMD, "| 16 users |") {
		t.Errorf("an older archive's rewrite: shows a config it does not hold, or not its steps:\n%s", oldMD)
	}
}

// addOne adds the run folder to the archive db and returns its run's ID.
func addOne(t *testing.T, db, folder string) string {
	t.Helper()
	stdout, errOut, code := runBinary(t, "", "archive", "add", "-db", db, folder)
	ids := lines(stdout)
	if code != 0 || len(ids) != 1 {
		t.Fatalf("archive add %s: exit %d %q: %s", folder, code, ids, errOut)
	}
	return ids[0]
}

// fetchTar fetches run id's archive.tar from `archive serve` of db and
// extracts it under into, returning the run's folder there.
func fetchTar(t *testing.T, db, id, into string) string {
	t.Helper()
	_, url := startServe(t, "-db", db, "-listen", "127.0.0.1:0")
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(url + "runs/" + id + "/archive.tar")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("archive.tar: status %d", resp.StatusCode)
	}
	tr := tar.NewReader(resp.Body)
	top := ""
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := path.Clean(h.Name)
		if strings.HasPrefix(name, "../") || path.IsAbs(name) {
			t.Fatalf("tar entry %q outside its folder", h.Name)
		}
		if first, _, _ := strings.Cut(name, "/"); top == "" {
			top = first
		} else if first != top {
			t.Fatalf("tar entries in %q and %q: want one folder", top, first)
		}
		p := filepath.Join(into, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if top == "" {
		t.Fatal("archive.tar is empty")
	}
	return filepath.Join(into, top)
}
