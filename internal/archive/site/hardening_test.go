package site

import (
	"archive/tar"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"html"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/archive/pgtest"
)

// newArchive adds basic.bin and withbody.bin (vegeta's results) with the
// given labels to a new archive at dsn and returns their IDs.
func newArchive(t *testing.T, dsn string, labels ...map[string]string) []string {
	t.Helper()
	ctx := context.Background()
	store, err := archive.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var ids []string
	for i, path := range []string{"testdata/basic.bin", "testdata/withbody.bin"} {
		var l map[string]string
		if i < len(labels) {
			l = labels[i]
		}
		bs, _, err := ingest.Bundles(ctx, []string{path}, ingest.Options{Labels: l})
		if err != nil {
			t.Fatal(err)
		}
		id, _, err := store.Add(ctx, identified(t, bs[0]))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// noDetails fails t when an error page shows the database's details.
func noDetails(t *testing.T, what, body string, secrets ...string) {
	t.Helper()
	for _, s := range append([]string{"SELECT", "FROM runs", "sqlite", "postgres://", ".db", "/tmp", os.TempDir()}, secrets...) {
		if s != "" && strings.Contains(body, s) {
			t.Errorf("%s: the error page shows %q: %s", what, s, body)
		}
	}
}

// A site serving as many requests as it may answers the next 503 with
// Retry-After once it has waited, and serves again when one is done.
func TestBusySiteAnswers503(t *testing.T) {
	fixture(t)
	h := New(fix.store, Options{MaxInFlight: 1, Wait: time.Millisecond})
	srv := httptest.NewServer(h)
	defer srv.Close()
	h.slots <- struct{}{} // a request being served
	resp, body := get(t, srv, "GET", "/", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a busy site: %s, Retry-After %q: %s", resp.Status, resp.Header.Get("Retry-After"), body)
	}
	<-h.slots
	mustGet(t, srv, "/")
}

// Postgres stopped while the site serves: 503 with Retry-After, the page
// naming neither the address, the password nor SQL; the details go to
// the server's log.
func TestPostgresDownMidServe(t *testing.T) {
	pg, err := pgtest.Start()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("postgres: %v", err)
		}
		t.Skipf("postgres: %v", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			pg.Stop()
		}
	}()
	dsn, err := pg.CreateDB("sitedown")
	if err != nil {
		t.Fatal(err)
	}
	ids := newArchive(t, dsn)
	store, err := archive.OpenExisting(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var logged bytes.Buffer
	srv := httptest.NewServer(New(store, Options{ErrorLog: log.New(&logged, "", 0)}))
	defer srv.Close()
	mustGet(t, srv, "/runs/"+ids[0])
	pg.Stop()
	stopped = true
	for _, path := range []string{"/", "/runs/" + ids[0], "/trend?by=source&metric=p99", "/compare?ids=" + ids[0] + "," + ids[1]} {
		resp, body := get(t, srv, "GET", path, nil)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("GET %s with Postgres down: %s, Retry-After %q: %.300s", path, resp.Status, resp.Header.Get("Retry-After"), body)
		}
		noDetails(t, path, body, pgtest.Password, pgtest.User, "127.0.0.1:")
	}
	if !strings.Contains(logged.String(), "Postgres") || strings.Contains(logged.String(), pgtest.Password) {
		t.Errorf("the server's log: %q", logged.String())
	}
}

// A damaged SQLite archive: 500, without the file's name or SQL.
func TestDamagedArchive500(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.db")
	newArchive(t, p)
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	var root, size int64
	if err := db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = 'runs'").Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, int(size)), (root-1)*size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	store, err := archive.OpenExisting(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(New(store, Options{}))
	defer srv.Close()
	resp, body := get(t, srv, "GET", "/", nil)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("a damaged archive: %s: %.300s", resp.Status, body)
	}
	noDetails(t, "/", body, dir, "runs.db")
}

// The redirect that drops ?token= stays on the site whatever the path.
func TestTokenRedirectStaysOnSite(t *testing.T) {
	fixture(t)
	h := New(fix.store, Options{Token: "tok"})
	for _, p := range []string{"//evil.example/x", "/\\evil.example/x", "///evil.example", "/runs/a"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = &url.URL{Path: p, RawQuery: "token=tok&sort=name"}
		req.RequestURI = p + "?token=tok&sort=name"
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		loc := rec.Header().Get("Location")
		u, err := url.Parse(loc)
		if rec.Code != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") ||
			strings.HasPrefix(loc, "/\\") || u.Host != "" || strings.Contains(loc, "token") {
			t.Errorf("%s: %d, Location %q", p, rec.Code, loc)
		}
		base, _ := url.Parse("http://127.0.0.1:8099/")
		if got := base.ResolveReference(u); got.Host != "127.0.0.1:8099" {
			t.Errorf("%s: the redirect leads to %s", p, got)
		}
	}
}

// Labels whose values hold spaces filter the index and the trend, and
// the index's label links lead back to them.
func TestLabelsWithSpaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "runs.db")
	ids := newArchive(t, p, map[string]string{"team": "search infra", "build": "1"}, map[string]string{"team": "search", "build": "2"})
	store, err := archive.OpenExisting(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(New(store, Options{}))
	defer srv.Close()
	listed := func(path string) []string {
		var out []string
		for _, m := range idCell.FindAllStringSubmatch(mustGet(t, srv, path), -1) {
			out = append(out, m[1])
		}
		return out
	}
	for _, q := range []string{"label=" + url.QueryEscape("team=search infra"), "label=" + url.QueryEscape("build=1 team=search infra"),
		"label=" + url.QueryEscape("team=search infra build=1")} {
		if got := listed("/?" + q); len(got) != 1 || got[0] != ids[0] {
			t.Errorf("/?%s lists %v, want [%s]", q, got, ids[0])
		}
	}
	if got := listed("/?label=team%3Dsearch"); len(got) != 1 || got[0] != ids[1] {
		t.Errorf("team=search lists %v, want [%s]", got, ids[1])
	}
	page := mustGet(t, srv, "/")
	link := regexp.MustCompile(`<a class="label" href="([^"]+)">team=search infra</a>`).FindStringSubmatch(page)
	if link == nil {
		t.Fatalf("no label link for team=search infra on the index")
	}
	if got := listed(html.UnescapeString(link[1])); len(got) != 1 || got[0] != ids[0] {
		t.Errorf("the label link %s lists %v, want [%s]", link[1], got, ids[0])
	}
	if body := mustGet(t, srv, "/trend?by=build&metric=p99&label="+url.QueryEscape("team=search infra")); !strings.Contains(body, "1 run") {
		t.Errorf("the trend of team=search infra: %.300s", body)
	}
}

// Stored file names become tar entries inside the run's folder: no ..,
// no absolute name, no control characters.
func TestTarEntryNames(t *testing.T) {
	for in, want := range map[string]string{
		"../../etc/passwd": "etc/passwd",
		"/abs/x.lll":       "abs/x.lll",
		"a\x1b[2Jb.txt":    "a_[2Jb.txt",
		"..\\..\\win.txt":  "win.txt",
		"..":               "_",
		"step-1/r.lll":     "step-1/r.lll",
		"x/./y/../z":       "x/y/z",
		"\u009b31mred.txt": "_31mred.txt",
	} {
		if got := tarName(in); got != want {
			t.Errorf("tarName(%q) = %q, want %q", in, got, want)
		}
	}
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	bs, _, err := ingest.Bundles(ctx, []string{"testdata/basic.bin"}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := bs[0]
	for _, name := range []string{"../../escape.txt", "/abs.txt", "evil\x1b]0;title\x07.txt"} {
		data := []byte("x")
		b.Files = append(b.Files, archive.BundleFile{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
	}
	id, _, err := store.Add(ctx, identified(t, b))
	if err != nil {
		t.Skipf("the store refuses such names itself: %v", err)
	}
	srv := httptest.NewServer(New(store, Options{}))
	defer srv.Close()
	resp, body := get(t, srv, "GET", "/runs/"+id+"/archive.tar", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("archive.tar: %s", resp.Status)
	}
	tr := tar.NewReader(strings.NewReader(body))
	n := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if strings.Contains(h.Name, "..") || strings.HasPrefix(h.Name, "/") || strings.ContainsFunc(h.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("tar entry %q", h.Name)
		}
	}
	if n < 4 {
		t.Errorf("%d tar entries, want the run's file and the three added", n)
	}
}
