package hostile

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // to write the rows an older loadlab stored, and another program's database

	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/results"
)

// serveArchive starts loadlab archive serve on db and returns its URL; the
// server is stopped when the test ends.
func serveArchive(t *testing.T, dir, db string, extra ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"archive", "serve", "-db", db, "-listen", "127.0.0.1:0"}, extra...)...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`archive site: (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatal("archive serve ended without serving")
		}
		u, _, _ = strings.Cut(u, "?") // the token, when one was given
		return strings.TrimSuffix(u, "/")
	case <-time.After(20 * time.Second):
		t.Fatal("archive serve did not start in 20 s")
	}
	return ""
}

// fetch GETs u and returns its status and body.
func fetch(t *testing.T, u string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// hides fails t when text (what the user sees: a file, a page, output)
// holds any of the secrets.
func hides(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s shows the secret %q", what, s)
		}
	}
}

// An attack's credentials reach the server, and nothing that records or
// shows the attack: its results file, the archive (SQLite and Postgres),
// archive show and list, the results site. -archive is not recorded.
func TestAttackRecordsNoSecrets(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
	}))
	defer srv.Close()
	secrets := []string{"sk-live-H0STILE", "hush-H0STILE", "sk-tmpl-H0STILE", "c00kie-H0STILE"}
	targets := "GET " + srv.URL + "/{{seq}}\nAuthorization: Bearer sk-tmpl-H0STILE\n"
	dsns := []string{"runs.db"}
	if pg, err := pgtest.Start(); err == nil {
		defer pg.Stop()
		dsn, err := pg.CreateDB("hostile_secrets")
		if err != nil {
			t.Fatal(err)
		}
		dsns = append(dsns, dsn)
		secrets = append(secrets, pgtest.Password)
	} else if os.Getenv("CI") != "" {
		t.Fatalf("postgres: %v", err)
	} else {
		t.Logf("postgres: %v (the Postgres archive is not tried)", err)
	}
	for _, db := range dsns {
		dir := caseDir(t, nil)
		res := run(t, dir, targets, "attack", "-rate=20/s", "-duration=300ms", "-header", "Authorization: Bearer sk-live-H0STILE",
			"-header=Cookie: session=c00kie-H0STILE", "-secret-header", "X-Mine: hush-H0STILE", "-archive", db, "-label", "team=red", "-output", "out.lll")
		if res.code != 0 {
			t.Fatalf("attack -archive %s: exit %d: %s", filepath.Base(db), res.code, res.stderr)
		}
		mu.Lock()
		if len(got) == 0 || strings.Join(got[0]["Authorization"], ",") != "Bearer sk-live-H0STILE,Bearer sk-tmpl-H0STILE" || got[0].Get("X-Mine") != "hush-H0STILE" || got[0].Get("Cookie") != "session=c00kie-H0STILE" {
			t.Errorf("the server did not receive the credentials: %v", got)
		}
		got = nil
		mu.Unlock()
		raw, err := os.ReadFile(filepath.Join(dir, "out.lll"))
		if err != nil {
			t.Fatal(err)
		}
		hides(t, "the results file", string(raw), secrets...)
		if strings.Contains(string(raw), "-archive") || !strings.Contains(string(raw), "REDACTED") {
			t.Errorf("the results header records -archive, or no REDACTED: %.400q", raw)
		}
		m := regexp.MustCompile(`archived: (\S+)`).FindStringSubmatch(res.stdout + res.stderr)
		if m == nil {
			t.Fatalf("attack -archive did not say the run's ID: %s%s", res.stdout, res.stderr)
		}
		id := m[1]
		show := run(t, dir, "", "archive", "show", "-db", db, id)
		list := run(t, dir, "", "archive", "list", "-db", db, "-type", "json")
		if show.code != 0 || list.code != 0 {
			t.Fatalf("archive show %q: exit %d %s; list: exit %d %s", id, show.code, show.stderr, list.code, list.stderr)
		}
		hides(t, "archive show", show.stdout+show.stderr, secrets...)
		hides(t, "archive list", list.stdout+list.stderr, secrets...)
		if !strings.Contains(show.stdout, "Authorization: REDACTED") || strings.Contains(show.stdout, "-archive") {
			t.Errorf("archive show: %.300s", show.stdout)
		}
		site := serveArchive(t, dir, db)
		code, page := fetch(t, site+"/runs/"+id)
		if code != 200 || !strings.Contains(page, "REDACTED") {
			t.Errorf("the run's page: %d %.300s", code, page)
		}
		hides(t, "the run's page", page, secrets...)
	}
}

// Files and archives written before commands were redacted show them
// redacted: added, they are redacted on the way in; stored, on the way out.
func TestOldRecordsRedactedWhenShown(t *testing.T) {
	dir := caseDir(t, nil)
	old := []string{"loadlab", "attack", "-archive", "postgres://lab:pg-0LD-secret@db.example/runs", "-header", "Authorization: Bearer sk-0LD-secret", "-output", "old.lll"}
	f, err := os.Create(filepath.Join(dir, "old.lll"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := results.NewWriter(f, results.Meta{Generator: "loadlab v0.9", Created: time.Now(), Command: old})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := 0; i < 5; i++ {
		at := now.Add(time.Duration(i) * time.Millisecond)
		if err := w.Encode(&results.Result{Seq: uint64(i), Due: at, Sent: at, Code: 200, Latency: time.Millisecond, Method: "GET", URL: "http://127.0.0.1:1/"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	add := run(t, dir, "", "archive", "add", "-db", "runs.db", "old.lll")
	if add.code != 0 {
		t.Fatalf("archive add: exit %d: %s", add.code, add.stderr)
	}
	id := strings.TrimSpace(add.stdout)
	secrets := []string{"pg-0LD-secret", "sk-0LD-secret"}
	show := run(t, dir, "", "archive", "show", "-db", "runs.db", id)
	hides(t, "archive show of an old file", show.stdout, secrets...)
	// a row stored by an older loadlab, which kept the command as given
	db, err := sql.Open("sqlite", filepath.Join(dir, "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE runs SET command = ?", strings.Join(old, " ")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	show = run(t, dir, "", "archive", "show", "-db", "runs.db", id)
	hides(t, "archive show of an old row", show.stdout, secrets...)
	if !strings.Contains(show.stdout, "postgres://lab:REDACTED@db.example/runs") || !strings.Contains(show.stdout, "Authorization: REDACTED") {
		t.Errorf("archive show of an old row: %.300s", show.stdout)
	}
	list := run(t, dir, "", "archive", "list", "-db", "runs.db", "-type", "json")
	hides(t, "archive list of an old row", list.stdout, secrets...)
	code, page := fetch(t, serveArchive(t, dir, "runs.db")+"/runs/"+id)
	if code != 200 {
		t.Errorf("the run's page: %d", code)
	}
	hides(t, "the page of an old row", page, secrets...)
}

// A password in any form of database address never shows in a message,
// and no address becomes a file: one line, exit 2, nothing written.
func TestDSNPasswordsNeverShown(t *testing.T) {
	port, err := pgtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	const pw = "Sup3r-H0STILE"
	dsns := []string{
		fmt.Sprintf("postgres://lab:%s@127.0.0.1:%d/runs?connect_timeout=5", pw, port),
		fmt.Sprintf("postgres://lab@127.0.0.1:%d/runs?password=%s&connect_timeout=5", port, pw),
		fmt.Sprintf("postgresql://lab@127.0.0.1:%d/runs?sslpassword=%s&sslmode=disable", port, pw),
		fmt.Sprintf("host=127.0.0.1 port=%d user=lab password=%s dbname=runs", port, pw),
		fmt.Sprintf("host=127.0.0.1 port=%d password='%s x' dbname=runs", port, pw),
		fmt.Sprintf("postgres://lab:%s x@127.0.0.1:%d/runs", pw, port),
		fmt.Sprintf("mysql://lab:%s@127.0.0.1/runs", pw),
		fmt.Sprintf("dbname=runs password=%s", pw),
	}
	for _, dsn := range dsns {
		dir := caseDir(t, nil)
		before := snapshot(t, dir)
		for _, args := range [][]string{
			{"archive", "add", "-db", dsn, "r.lll"},
			{"archive", "list", "-db", dsn},
			{"archive", "show", "-db", dsn, "abc"},
			{"archive", "trend", "-db", dsn, "-by", "build", "-metric", "p99"},
			{"archive", "serve", "-db", dsn, "-listen", "127.0.0.1:0"},
			{"attack", "-rate=1/s", "-duration=1s", "-archive", dsn, "-output", "o.lll"},
		} {
			res := run(t, dir, "GET http://127.0.0.1:1/\n", args...)
			if res.code != 2 {
				t.Errorf("%s: exit %d, want 2: %s", strings.Join(args[:2], " "), res.code, res.stderr)
			}
			oneLine(t, res.stderr)
			hides(t, strings.Join(args[:2], " ")+" -db "+dsn, res.stdout+res.stderr, pw)
		}
		sameFiles(t, before, snapshot(t, dir))
	}
}

// Another program's SQLite database is refused by every archive command
// with one line and exit 2, and left byte for byte as it was.
func TestForeignDatabaseUntouched(t *testing.T) {
	dir := caseDir(t, nil)
	db, err := sql.Open("sqlite", filepath.Join(dir, "other.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile(filepath.Join(dir, "empty.sqlite"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, file := range []string{"other.sqlite", "empty.sqlite"} {
		for _, args := range [][]string{
			{"archive", "list", "-db", file},
			{"archive", "show", "-db", file, "abc"},
			{"archive", "trend", "-db", file, "-by", "build", "-metric", "p99"},
			{"archive", "serve", "-db", file, "-listen", "127.0.0.1:0"},
		} {
			res := run(t, dir, "", args...)
			if res.code != 2 || !strings.Contains(res.stderr, "not a loadlab archive") {
				t.Errorf("%s %s: exit %d: %s", strings.Join(args[:2], " "), file, res.code, res.stderr)
			}
			oneLine(t, res.stderr)
		}
	}
	res := run(t, dir, "", "archive", "add", "-db", "other.sqlite", "r.lll")
	if res.code != 2 || !strings.Contains(res.stderr, "another program") {
		t.Errorf("archive add to another program's database: exit %d: %s", res.code, res.stderr)
	}
	oneLine(t, res.stderr)
	sameFiles(t, before, snapshot(t, dir))
}

// Names and labels holding terminal commands print escaped in list, show
// and trend.
func TestArchiveTextEscapesControls(t *testing.T) {
	dir := caseDir(t, nil)
	add := run(t, dir, "", "archive", "add", "-db", "runs.db", "-name", "n\x1b]0;pwned\x07", "-label", "evil=\x1b[2J", "-label", "build=1", "r.lll")
	if add.code != 0 {
		t.Fatalf("archive add: exit %d: %s", add.code, add.stderr)
	}
	id := strings.TrimSpace(add.stdout)
	for _, args := range [][]string{
		{"archive", "list", "-db", "runs.db"},
		{"archive", "show", "-db", "runs.db", id},
		{"archive", "trend", "-db", "runs.db", "-by", "evil", "-metric", "p99"},
	} {
		res := run(t, dir, "", args...)
		if res.code != 0 {
			t.Errorf("%s: exit %d: %s", strings.Join(args[:2], " "), res.code, res.stderr)
			continue
		}
		if strings.ContainsAny(res.stdout, "\x1b\x07") {
			t.Errorf("%s prints terminal commands: %q", strings.Join(args[:2], " "), res.stdout)
		}
		if !strings.Contains(res.stdout, `\x1b[2J`) {
			t.Errorf("%s does not show the label escaped: %q", strings.Join(args[:2], " "), res.stdout)
		}
	}
}

// rawGet sends one request with target as written (no client cleans it)
// and returns the answer's status line and headers.
func rawGet(t *testing.T, site, target string) string {
	t.Helper()
	host := strings.TrimPrefix(site, "http://")
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	c, err := net.DialTimeout("tcp", host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	b, _ := io.ReadAll(c)
	head, _, _ := strings.Cut(string(b), "\r\n\r\n")
	return head
}

// The site through the real binary: the token's redirect never leaves it,
// whatever the path; a label with spaces filters.
func TestSiteHostileRequests(t *testing.T) {
	dir := caseDir(t, nil)
	if res := run(t, dir, "", "archive", "add", "-db", "runs.db", "-label", "team=search infra", "r.lll"); res.code != 0 {
		t.Fatalf("archive add: exit %d: %s", res.code, res.stderr)
	}
	site := serveArchive(t, dir, "runs.db", "-token", "T0KEN")
	for _, target := range []string{"//evil.example/x?token=T0KEN", "/\\evil.example/x?token=T0KEN", "///evil.example?token=T0KEN"} {
		head := rawGet(t, site, target)
		m := regexp.MustCompile(`(?mi)^Location: (.*)$`).FindStringSubmatch(head)
		if !strings.HasPrefix(head, "HTTP/1.1 303") || m == nil {
			t.Errorf("GET %s: %q", target, head)
			continue
		}
		loc := strings.TrimSpace(m[1])
		if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
			t.Errorf("GET %s redirects to %q, off the site", target, loc)
		}
	}
	req, err := http.NewRequest("GET", site+"/?label="+strings.ReplaceAll("team=search infra", " ", "+"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer T0KEN")
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "search infra") || strings.Contains(string(body), "no run matches") {
		t.Errorf("a label with a space: %s: %.300s", resp.Status, body)
	}
}
