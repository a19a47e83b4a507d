package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/badinput"
)

// passwordForms are the ways a password is given in a Postgres address
// (and one URL loadlab does not take), all naming a server that is down.
func passwordForms(port int, pw string) []string {
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
	return []string{
		fmt.Sprintf("postgres://%s@127.0.0.1:%d/runs?sslmode=disable", url.UserPassword("lab", pw), port),
		fmt.Sprintf("postgresql://lab@127.0.0.1:%d/runs?sslmode=disable&password=%s", port, url.QueryEscape(pw)),
		fmt.Sprintf("postgres://lab@127.0.0.1:%d/runs?sslpassword=%s&sslmode=disable", port, url.QueryEscape(pw)),
		fmt.Sprintf("host=127.0.0.1 port=%d dbname=runs user=lab password='%s' sslmode=disable", port, q),
		fmt.Sprintf("password='%s' host=127.0.0.1 port=%d", q, port),
		fmt.Sprintf("postgres://lab:%s@127.0.0.1:%d/runs", pw, port), // not escaped: may not parse
		fmt.Sprintf("mysql://%s@127.0.0.1/runs", url.UserPassword("lab", pw)),
	}
}

// openLeaks opens every form of the password, for adding and reading, and
// fails t when an error is not one bad-input line or shows the password.
func openLeaks(t *testing.T, dir string, port int, pw string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, dsn := range passwordForms(port, pw) {
		for _, create := range []bool{true, false} {
			s, err := Open(ctx, dsn, create)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) opened a server that is down", dsn)
			}
			msg := err.Error()
			if strings.Contains(msg, pw) || strings.Contains(msg, url.QueryEscape(pw)) || strings.Contains(msg, url.PathEscape(pw)) {
				t.Errorf("Open(%q, create=%v) shows the password: %s", dsn, create, msg)
			}
			if !badinput.Is(err) || strings.Contains(msg, "\n") {
				t.Errorf("Open(%q): want one line of bad input, got %v", dsn, err)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("opening Postgres addresses wrote files: %v", ents)
	}
}

// FuzzOpenDSN: no password, in any form of address, appears in the
// error of an archive that cannot be opened; none becomes a file.
func FuzzOpenDSN(f *testing.F) {
	for _, s := range []string{"hunter2", "p@ss/w:rd", "a'b\\c d", "%41%42", "x&password=y", "ünï©ode", "@@", "q?r#s"} {
		f.Add(s)
	}
	port, err := pgtest.FreePort()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pw := "Pw9" + strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, s)
		dir := t.TempDir()
		wd, _ := os.Getwd()
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		openLeaks(t, dir, port, pw)
	})
}

// A real server refusing the password, in URL and keyword form.
func TestRefusedPasswordNotShown(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	for _, dsn := range []string{
		srv.DSN("postgres", "Wr0ng-Secret"),
		fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable&password=Wr0ng-Secret", pgtest.User, srv.Port),
		fmt.Sprintf("host=127.0.0.1 port=%d user=%s password=Wr0ng-Secret dbname=postgres sslmode=disable", srv.Port, pgtest.User),
	} {
		_, err := Open(ctx, dsn, false)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "refused the login") || strings.Contains(err.Error(), "Wr0ng-Secret") {
			t.Errorf("%s: %v", dsn, err)
		}
	}
}

// A keyword DSN is Postgres: runs are added to and read from it, and no
// file is made of it.
func TestKeywordDSN(t *testing.T) {
	srv := pgtest.Shared(t)
	u, err := url.Parse(srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("host=127.0.0.1 port=%d user=%s password='%s' dbname=%s sslmode=disable", srv.Port, pgtest.User, pgtest.Password, strings.TrimPrefix(u.Path, "/"))
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	ctx := context.Background()
	w, err := Open(ctx, dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := w.Add(ctx, identified(t, bundle(t, "kw", time.Unix(1700000000, 0), time.Millisecond, nil)))
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, dsn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if run, err := r.Get(ctx, id); err != nil || run.Name != "kw" {
		t.Errorf("reading back through the keyword DSN: %v %v", run, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("a keyword DSN made files: %v", ents)
	}
}

// fileHash is the bytes of every file in dir.
func dirBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// Another program's SQLite file is refused by readers and writers alike,
// and left byte for byte as it was (no journal, no tables added).
func TestForeignSQLiteUntouched(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "other.sqlite")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := dirBytes(t, dir)
	for _, create := range []bool{false, true} {
		s, err := Open(context.Background(), p, create)
		if err == nil {
			s.Close()
			t.Fatalf("create=%v: another program's database opened as an archive", create)
		}
		if !badinput.Is(err) || !strings.Contains(err.Error(), "not a loadlab archive") {
			t.Errorf("create=%v: %v", create, err)
		}
	}
	after := dirBytes(t, dir)
	if len(after) != len(before) || after["other.sqlite"] != before["other.sqlite"] {
		t.Errorf("the foreign database was written to: %d files before, %d after, same bytes %v", len(before), len(after), after["other.sqlite"] == before["other.sqlite"])
	}
}

// A reader never writes to Postgres: an empty database stays empty, a
// foreign one is refused by writers too, and an archive opened to read
// refuses writes.
func TestPostgresReadersDoNotWrite(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	empty := srv.NewDB(t)
	if _, err := Open(ctx, empty, false); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "not a loadlab archive") {
		t.Errorf("reading an empty database: %v", err)
	}
	tables := func(dsn string) int {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := tables(empty); n != 0 {
		t.Errorf("a reader created %d tables", n)
	}
	foreign := srv.NewDB(t)
	db, err := sql.Open("pgx", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE orders (id BIGINT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, foreign, true); err == nil || !strings.Contains(err.Error(), "another program") {
		t.Errorf("adding to another program's database: %v", err)
	}
	if n := tables(foreign); n != 1 {
		t.Errorf("adding to another program's database left %d tables, want its 1", n)
	}
	arch := srv.NewDB(t)
	w := open(t, arch)
	w.Close()
	r, err := Open(ctx, arch, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, err := r.Add(ctx, identified(t, bundle(t, "x", time.Unix(1700000000, 0), time.Millisecond, nil))); err == nil {
		t.Error("an archive opened to read took a run")
	}
}

// An archive of an older schema is not migrated by a reader: refused with
// the way to upgrade it, its file unchanged.
func TestReaderDoesNotMigrate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runs.db")
	w := open(t, p)
	if _, err := w.db.Exec("UPDATE schema_version SET version = ?", SchemaVersion-1); err != nil {
		t.Fatal(err)
	}
	if err := w.Checkpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before := dirBytes(t, dir)
	_, err := Open(context.Background(), p, false)
	if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "archive add upgrades it") {
		t.Errorf("reading an older archive: %v", err)
	}
	if after := dirBytes(t, dir); after["runs.db"] != before["runs.db"] {
		t.Error("a reader changed an older archive")
	}
}
