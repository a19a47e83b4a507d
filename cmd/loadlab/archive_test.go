package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/archive/sqlstore"
)

// regressionHunt is a real `loadlab run` folder of examples/004-regression-hunt.
const regressionHunt = "testdata/regression-hunt"

// listedRun is what `archive list -type json` promises for each run.
type listedRun struct {
	ID        string            `json:"id"`
	Slug      string            `json:"slug"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels"`
	Started   time.Time         `json:"started"`
	Requests  uint64            `json:"requests"`
	Success   float64           `json:"success"`
	Latencies map[string]int64  `json:"latencies"`
}

func listJSON(t *testing.T, db string, filter ...string) []listedRun {
	t.Helper()
	out, errOut, code := runBinary(t, "", append([]string{"archive", "list", "-db", db, "-type", "json"}, filter...)...)
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	var runs []listedRun
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("list json: %v\n%s", err, out)
	}
	return runs
}

// reportJSON is `loadlab report -type json FILE`'s latencies: the one truth.
func reportJSON(t *testing.T, file string) map[string]int64 {
	t.Helper()
	out, errOut, code := runBinary(t, "", "report", "-type", "json", file)
	if code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	var r struct {
		Latencies map[string]int64 `json:"latencies"`
	}
	json.Unmarshal([]byte(out), &r)
	return r.Latencies
}

func lines(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestArchiveAddListShow(t *testing.T) {
	t.Parallel() // its own servers and child processes; judges no timing closely
	dbs := map[string]func() string{
		"sqlite":   func() string { return filepath.Join(t.TempDir(), "runs.db") },
		"postgres": func() string { return pgtest.Shared(t).NewDB(t) },
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			db := dbs[engine]()
			out, errOut, code := runBinary(t, "", "archive", "add", "-db", db, "-label", "commit=abc123", regressionHunt)
			ids := lines(out)
			if code != 0 || len(ids) != 6 || errOut != "" {
				t.Fatalf("add: exit %d, ids %q, stderr %q; want the six builds' IDs", code, ids, errOut)
			}
			out, errOut, code = runBinary(t, "", "archive", "add", "-db", db, regressionHunt)
			if code != 0 || out != "" || len(lines(errOut)) != 6 || !strings.Contains(errOut, "already archived as "+ids[3]) {
				t.Errorf("second add: exit %d, stdout %q, stderr %q; want six 'already archived' lines", code, out, errOut)
			}
			runs := listJSON(t, db)
			if len(runs) != 6 {
				t.Fatalf("%d runs listed, want 6", len(runs))
			}
			builds := []string{"2020-02-17", "2020-02-05", "2020-02-04", "2020-02-03", "2020-01-30", "2020-01-09"} // newest first
			for i, r := range runs {
				if r.Labels["build"] != builds[i] || r.Labels["commit"] != "abc123" || r.Name != "regression-hunt" || r.Requests != 800 ||
					r.Started.IsZero() || r.Latencies["99th"] == 0 || r.Latencies["50th"] == 0 || r.Latencies["mean"] == 0 || r.Latencies["max"] == 0 ||
					!strings.HasSuffix(r.Slug, "-"+r.ID) {
					t.Errorf("run %d: %+v", i, r)
				}
			}
			if engine == "postgres" {
				return // the rest reads the same store code; the store tests run both engines
			}
			// the archive's figures are loadlab report's
			want := reportJSON(t, filepath.Join(regressionHunt, "steps/04-build-2020-02-04/page.lll"))
			got := runs[2].Latencies
			for _, k := range []string{"50th", "90th", "95th", "99th", "max", "mean"} {
				if got[k] != want[k] {
					t.Errorf("build 2020-02-04 %s: archive %d, loadlab report %d", k, got[k], want[k])
				}
			}
			one := listJSON(t, db, "-label", "build=2020-02-04")
			if len(one) != 1 || one[0].ID != ids[3] {
				t.Errorf("list -label build=2020-02-04: %+v, want run %s", one, ids[3])
			}
			out, _, code = runBinary(t, "", "archive", "list", "-db", db, "-label", "build=2020-01-09")
			if code != 0 || len(lines(out)) != 2 || !strings.Contains(out, ids[0]) {
				t.Errorf("text list: %q", out)
			}
			out, _, code = runBinary(t, "", "archive", "show", "-db", db, ids[3])
			if code != 0 || !strings.Contains(out, "Latencies     [min, mean, 50, 90, 95, 99, max]") || !strings.Contains(out, "steps/04-build-2020-02-04/page.lll") {
				t.Errorf("show: %s", out)
			}
		})
	}
}

// An attack with -archive adds its results file; vegeta's files add too.
func TestAttackArchiveAndVegetaFiles(t *testing.T) {
	t.Parallel() // its own servers and child processes; judges no timing closely
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	results := filepath.Join(dir, "r.lll")
	out, errOut, code := runBinary(t, "GET "+srv.URL+"/\n", "attack", "-rate", "40/s", "-duration", "1s", "-quiet", "-output", results,
		"-archive", db, "-label", "commit=def456")
	if code != 0 || !strings.HasPrefix(out, "archived: ") {
		t.Fatalf("attack -archive: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	runs := listJSON(t, db, "-label", "commit=def456")
	if len(runs) != 1 || runs[0].Requests != 40 || runs[0].Success != 1 || runs[0].Name != "r" {
		t.Fatalf("archived attack: %+v", runs)
	}
	if want := reportJSON(t, results); runs[0].Latencies["99th"] != want["99th"] || runs[0].Latencies["mean"] != want["mean"] {
		t.Errorf("archived p99/mean %v, loadlab report %v", runs[0].Latencies, want)
	}
	// -name names the archived run, as it names the attack
	named := filepath.Join(dir, "n.lll")
	if out, errOut, code := runBinary(t, "GET "+srv.URL+"/\n", "attack", "-rate", "20/s", "-duration", "500ms", "-quiet", "-name", "checkout",
		"-output", named, "-archive", db, "-label", "commit=named"); code != 0 {
		t.Fatalf("attack -name -archive: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if runs := listJSON(t, db, "-label", "commit=named"); len(runs) != 1 || runs[0].Name != "checkout" {
		t.Errorf("attack -name checkout archived as %+v", runs)
	}
	vegeta := "testdata/vegeta/withbody.bin"
	out, _, code = runBinary(t, "", "archive", "add", "-db", db, "-name", "old-vegeta", vegeta)
	if code != 0 || len(lines(out)) != 1 {
		t.Fatalf("add vegeta: exit %d %q", code, out)
	}
	runs = listJSON(t, db, "-name", "VEGETA")
	if want := reportJSON(t, vegeta); len(runs) != 1 || runs[0].Latencies["99th"] != want["99th"] {
		t.Errorf("vegeta run %+v, report says %v", runs, want)
	}
	// without -output there is nothing to archive
	_, errOut, code = runBinary(t, "GET "+srv.URL+"/\n", "attack", "-rate", "1/s", "-duration", "1s", "-archive", db)
	if code != 2 || !strings.Contains(errOut, "-archive: archives the -output file") {
		t.Errorf("attack -archive to stdout: exit %d %q", code, errOut)
	}
}

// A run with -archive adds its folder at the end.
func TestRunArchive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	os.WriteFile(plan, []byte(fmt.Sprintf("name: tiny\ntarget: %s\nscenarios:\n  - name: s\n    rate: 20/s\n    duration: 500ms\n    target: GET %s/\n", srv.URL, srv.URL)), 0o644)
	db := filepath.Join(dir, "runs.db")
	out, errOut, code := runBinary(t, "", "run", "-quiet", "-out", filepath.Join(dir, "out"), "-archive", db, "-label", "commit=abc", plan)
	if code != 0 || !strings.Contains(out, "archived: ") {
		t.Fatalf("run -archive: exit %d\n%s\n%s", code, out, errOut)
	}
	runs := listJSON(t, db, "-label", "commit=abc")
	if len(runs) != 1 || runs[0].Name != "tiny" || runs[0].Requests != 10 {
		t.Errorf("archived run: %+v", runs)
	}
	// a wrong archive stops the run before it starts
	_, errOut, code = runBinary(t, "", "run", "-quiet", "-out", filepath.Join(dir, "out2"), "-archive", filepath.Join(dir, "nodir", "x.db"), plan)
	if _, err := os.Stat(filepath.Join(dir, "out2")); code != 2 || err == nil || len(lines(errOut)) != 1 {
		t.Errorf("run with an unusable archive: exit %d, stderr %q, folder made: %v", code, errOut, err == nil)
	}
}

func countRuns(t *testing.T, db string) int {
	t.Helper()
	return len(listJSON(t, db))
}

func TestArchiveBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	if _, errOut, code := runBinary(t, "", "archive", "add", "-db", good, "testdata/vegeta/withbody.csv"); code != 0 {
		t.Fatal(errOut)
	}
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("not an archive "), 500), 0o644)
	newer := filepath.Join(dir, "newer.db")
	runBinary(t, "", "archive", "add", "-db", newer, "testdata/vegeta/withbody.csv")
	sdb, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec("UPDATE schema_version SET version = ?", sqlstore.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	sdb.Close()
	targetsFile := filepath.Join(dir, "targets.txt")
	os.WriteFile(targetsFile, []byte("GET http://127.0.0.1:9/\n"), 0o644)
	notResults := filepath.Join(dir, "notes.txt")
	os.WriteFile(notResults, []byte("these are my notes, not results\n"), 0o644)
	port, _ := pgtest.FreePort()
	down := fmt.Sprintf("postgres://loadlab:hunter2@127.0.0.1:%d/runs?sslmode=disable&connect_timeout=5", port)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"malformed label", []string{"archive", "add", "-db", good, "-label", "nokey", notResults}, `label "nokey" is not key=value`},
		{"label with a bad key", []string{"archive", "list", "-db", good, "-label", "a b=c"}, `label key "a b"`},
		{"postgres down", []string{"archive", "list", "-db", down}, "cannot reach Postgres"},
		{"damaged sqlite", []string{"archive", "list", "-db", garbage}, garbage + ": not a loadlab archive, or a damaged one"},
		{"newer schema", []string{"archive", "add", "-db", newer, notResults}, "newer than this loadlab knows"},
		{"unknown run", []string{"archive", "show", "-db", good, "nosuchrun42"}, "run nosuchrun42: not in the archive"},
		{"not results", []string{"archive", "add", "-db", good, notResults}, notResults + ":"},
		{"one bad file among good ones", []string{"archive", "add", "-db", good, "testdata/vegeta/mixed.bin", notResults}, notResults + ":"},
		{"missing file", []string{"archive", "add", "-db", good, filepath.Join(dir, "nope.lll")}, "nope.lll"},
		{"missing archive", []string{"archive", "list", "-db", filepath.Join(dir, "typo.db")}, "no archive here"},
		{"no db", []string{"archive", "list"}, "-db: required"},
		{"unknown subcommand", []string{"archive", "nope"}, `unknown subcommand "nope"`},
		{"unknown sort", []string{"archive", "list", "-db", good, "-sort", "nope"}, `unknown column "nope"`},
		{"fleet generators do not archive", []string{"fleet", "ssh", "-hosts", "a,b", "-targets", targetsFile, "--", "-rate", "1/s", "-duration", "1s", "-archive", good},
			"-archive: a fleet's generators do not archive"},
	}
	if srv := pgtest.Shared(t); srv != nil {
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"password refused", []string{"archive", "list", "-db", srv.DSN("postgres", "wrong-pw")}, "Postgres refused the login"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runBinary(t, "", c.args...)
			msg := strings.TrimSpace(errOut)
			if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || out != "" ||
				strings.Contains(msg, "hunter2") || strings.Contains(msg, "wrong-pw") || strings.Contains(msg, "goroutine") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line with %q", code, out, msg, c.want)
			}
		})
	}
	if n := countRuns(t, good); n != 1 {
		t.Errorf("%d runs in the archive after the bad adds, want the first one only", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo.db")); err == nil {
		t.Error("listing a missing archive created it")
	}
}

// A SIGKILL in the middle of an add leaves no half run: the killed run is
// absent, the archive is intact, and adding again stores it whole.
func TestArchiveAddKilledMidway(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.CopyFS(run, os.DirFS(regressionHunt)); err != nil {
		t.Fatal(err)
	}
	// a big raw file in the last build's step: its add writes for a while
	big := make([]byte, 32<<20)
	rand.NewChaCha8([32]byte{7}).Read(big) // incompressible: stored as it is
	if err := os.WriteFile(filepath.Join(run, "steps/06-build-2020-02-17/big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "runs.db")
	var killedMidway bool
	for try := 0; try < 3 && !killedMidway; try++ {
		os.Remove(db)
		os.Remove(db + "-wal")
		os.Remove(db + "-shm")
		cmd := loadlabCommand(context.Background(), "archive", "add", "-db", db, run)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		deadline := time.After(60 * time.Second)
	wait:
		for {
			select {
			case err := <-done:
				t.Logf("try %d: the add finished (%v) before it could be killed midway", try, err)
				break wait
			case <-deadline:
				cmd.Process.Kill()
				<-done
				t.Fatal("the add neither finished nor wrote its big file in 60s")
			case <-time.After(5 * time.Millisecond):
				// the big file is being written: the transaction is open
				if st, err := os.Stat(db + "-wal"); err == nil && st.Size() > 8<<20 {
					cmd.Process.Signal(syscall.SIGKILL)
					err := <-done
					killedMidway = strings.Contains(fmt.Sprint(err), "killed")
					break wait
				}
			}
		}
	}
	if !killedMidway {
		t.Fatal("could not kill the add in the middle of its transaction in 3 tries")
	}
	sdb, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	sdb.QueryRow("PRAGMA integrity_check").Scan(&check)
	var bigChunks int
	sdb.QueryRow("SELECT COUNT(*) FROM chunks WHERE name LIKE '%big.bin'").Scan(&bigChunks)
	sdb.Close()
	if check != "ok" || bigChunks != 0 {
		t.Errorf("after the kill: integrity %q, %d chunks of the killed run's file left", check, bigChunks)
	}
	runs := listJSON(t, db)
	for _, r := range runs {
		if r.Labels["build"] == "2020-02-17" {
			t.Errorf("the killed run is listed: %+v", r)
		}
	}
	out, errOut, code := runBinary(t, "", "archive", "add", "-db", db, run)
	if code != 0 || len(lines(out))+len(lines(errOut)) != 6 || len(listJSON(t, db)) != 6 {
		t.Errorf("adding again: exit %d, new %q, already %q", code, out, errOut)
	}
}

// The shard files of one split attack add as one run, merged as `loadlab
// report` merges them.
func TestArchiveAddShards(t *testing.T) {
	t.Parallel() // its own servers and child processes; judges no timing closely
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano) // both shards started well before
	files := []string{filepath.Join(dir, "shard1.lll"), filepath.Join(dir, "shard2.lll")}
	errs := make(chan string, 2)
	for i, f := range files {
		go func() {
			_, errOut, code := runBinary(t, "GET "+srv.URL+"/\n", "attack", "-quiet", "-shard", fmt.Sprintf("%d/2", i+1), "-rate", "40/s",
				"-duration", "1s", "-start-at", start, "-output", f)
			if code != 0 {
				errOut = fmt.Sprintf("shard %d: exit %d: %s", i+1, code, errOut)
			} else {
				errOut = ""
			}
			errs <- errOut
		}()
	}
	for range files {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
	db := filepath.Join(dir, "runs.db")
	out, errOut, code := runBinary(t, "", append([]string{"archive", "add", "-db", db, "-label", "split=yes"}, files...)...)
	if code != 0 || len(lines(out)) != 1 {
		t.Fatalf("add shards: exit %d, ids %q, %s", code, out, errOut)
	}
	runs := listJSON(t, db)
	rep, _, _ := runBinary(t, "", append([]string{"report", "-type", "json"}, files...)...)
	var want struct {
		Requests  uint64           `json:"requests"`
		Latencies map[string]int64 `json:"latencies"`
	}
	json.Unmarshal([]byte(rep), &want)
	if len(runs) != 1 || runs[0].Requests != 40 || want.Requests != 40 || runs[0].Latencies["99th"] != want.Latencies["99th"] ||
		runs[0].Latencies["mean"] != want.Latencies["mean"] {
		t.Errorf("archived %+v; loadlab report of the shards %+v", runs, want)
	}
	show, _, _ := runBinary(t, "", "archive", "show", "-db", db, "-type", "json", runs[0].ID)
	if !strings.Contains(show, `"source": "shards"`) || !strings.Contains(show, "shard2.lll") {
		t.Errorf("show: %s", show)
	}
}

func TestArchiveSubcommandsHaveHelp(t *testing.T) {
	for _, name := range archiveCommands.names() {
		code, stdout, stderr := runCLI(t, nil, "archive", name, "-help")
		if code != 0 || !strings.Contains(stdout, "Usage: loadlab archive "+name) || !strings.Contains(stdout, "-db") || !strings.Contains(stdout, "Examples:") || stderr != "" {
			t.Errorf("archive %s -help: exit %d\n%s\nstderr: %s", name, code, stdout, stderr)
		}
	}
}
