package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// engine opens fresh archives of one kind.
type engine struct {
	name string
	dsn  func(t *testing.T) string
}

// engines are SQLite on disk and a real Postgres: every test runs on both.
func engines() []engine {
	return []engine{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "a.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.Shared(t).NewDB(t) }},
	}
}

func forEach(t *testing.T, f func(t *testing.T, dsn string)) {
	for _, e := range engines() {
		t.Run(e.name, func(t *testing.T) { f(t, e.dsn(t)) })
	}
}

func open(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func memFile(name string, data []byte) archive.BundleFile {
	return archive.BundleFile{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}

func encodedHist(t *testing.T, ds ...time.Duration) []byte {
	h := metrics.NewHistogram()
	for _, d := range ds {
		metrics.RecordLatency(h, d)
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bundle is a two-step, two-scenario run whose files are random bytes
// (incompressible, stored raw) and text (compressible, stored zstd).
func bundle(t *testing.T, name string, started time.Time, p99 time.Duration, labels map[string]string) *archive.Bundle {
	raw := make([]byte, ChunkSize+12345) // two chunks
	seed := sha256.Sum256([]byte(name + started.String()))
	mrand.NewChaCha8(seed).Read(raw) // the same run twice is the same bytes
	text := []byte(strings.Repeat("Requests [total, rate, throughput] 100, 10.00, 10.00\n", 50000))
	fig := func(n uint64, p time.Duration) archive.Figures {
		return archive.Figures{Requests: n, Rate: 10, Throughput: 9.5, Success: 0.95,
			Latencies: metrics.LatencySummary{P50: p / 4, P90: p / 2, P95: p * 3 / 4, P99: p, Max: 2 * p, Mean: p / 3},
			LagP99:    time.Millisecond, Dropped: 1, Codes: map[string]uint64{"200": n - 5, "0": 5}}
	}
	b := &archive.Bundle{
		Run: archive.Run{Name: name, Labels: labels, Source: "run", Command: "loadlab run plan.yaml", Plan: "name: x\n",
			Machine: `{"cpus":2}`, Started: started, Ended: started.Add(20 * time.Second), Figures: fig(400, p99)},
		Histograms: map[archive.StepKey][]byte{},
		Files:      []archive.BundleFile{memFile("steps/01/page.lll", raw), memFile("report.md", text)},
		Scenarios:  map[string]archive.Figures{"page": fig(200, p99), "search": fig(200, 2*p99)},
	}
	for i := 0; i < 2; i++ {
		for _, sc := range []string{"page", "search"} {
			b.Run.Steps = append(b.Run.Steps, archive.Step{Index: i, Name: fmt.Sprintf("step %d", i+1), Scenario: sc,
				Started: started.Add(time.Duration(i) * 10 * time.Second), Ended: started.Add(time.Duration(i+1) * 10 * time.Second),
				Figures: fig(100, p99), Text: "text of " + sc})
			b.Histograms[archive.StepKey{Step: i, Scenario: sc}] = encodedHist(t, p99, p99/2)
		}
	}
	b.Files = append(b.Files, memFile("name", []byte(name+started.String()))) // distinct content per bundle
	return b
}

// identified is b with its identity (archive.Bundle.Identify), as ingest
// gives it before a store sees it.
func identified(t testing.TB, b *archive.Bundle) *archive.Bundle {
	t.Helper()
	if err := b.Identify(); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAddGetFilesRoundTrip(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2020, 2, 4, 10, 0, 0, 0, time.UTC)
		b := bundle(t, "Regression Hunt", t0, 50*time.Millisecond, map[string]string{"build": "2020-02-04"})
		id, dup, err := s.Add(ctx, identified(t, b))
		if err != nil || dup {
			t.Fatalf("add: %v dup=%v", err, dup)
		}
		if len(id) != archive.IDLen {
			t.Errorf("id %q: want %d characters", id, archive.IDLen)
		}
		r, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if want := "regression-hunt-20s-10rps-" + id; r.Slug != want {
			t.Errorf("slug %q, want %q", r.Slug, want)
		}
		if !r.Started.Equal(t0) || r.Labels["build"] != "2020-02-04" || r.Latencies.P99 != 50*time.Millisecond || r.Codes["0"] != 5 ||
			r.Requests != 400 || r.Command != "loadlab run plan.yaml" || r.Machine != `{"cpus":2}` || r.Success != 0.95 {
			t.Errorf("run read back differs: %+v", r)
		}
		if len(r.Steps) != 4 || r.Steps[1].Scenario != "search" || r.Steps[2].Index != 1 || r.Steps[3].Text != "text of search" ||
			!r.Steps[2].Started.Equal(t0.Add(10*time.Second)) {
			t.Errorf("steps read back differ: %+v", r.Steps)
		}
		h, err := s.Histogram(ctx, id, 1, "search")
		if err != nil || !bytes.Equal(h, b.Histograms[archive.StepKey{Step: 1, Scenario: "search"}]) {
			t.Errorf("histogram: %v, %d bytes", err, len(h))
		}
		files, err := s.Files(ctx, id)
		if err != nil || len(files) != 3 || files[0].Name != "steps/01/page.lll" || files[0].Size != ChunkSize+12345 {
			t.Fatalf("files: %v %+v", err, files)
		}
		for _, bf := range b.Files {
			want, _ := bf.Open()
			wantB, _ := io.ReadAll(want)
			rc, err := s.OpenFile(ctx, id, bf.Name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, wantB) {
				t.Errorf("%s: read back %d bytes (%v), want %d", bf.Name, len(got), err, len(wantB))
			}
		}
		// the text file was compressed, the random one not
		var codec string
		s.db.QueryRow(s.d.rebind("SELECT codec FROM chunks WHERE name = ? AND n = 0"), "report.md").Scan(&codec)
		if codec != codecZstd {
			t.Errorf("report.md stored %q, want zstd", codec)
		}
		s.db.QueryRow(s.d.rebind("SELECT codec FROM chunks WHERE name = ? AND n = 1"), "steps/01/page.lll").Scan(&codec)
		if codec != codecRaw {
			t.Errorf("random bytes stored %q, want raw", codec)
		}
	})
}

func TestSameContentTwiceKeepsOne(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Now().UTC()
		id, dup, err := s.Add(ctx, identified(t, bundle(t, "a", t0, time.Millisecond, nil)))
		if err != nil || dup {
			t.Fatal(err, dup)
		}
		b := bundle(t, "a", t0, time.Millisecond, map[string]string{"other": "label"})
		id2, dup, err := s.Add(ctx, identified(t, b))
		if err != nil || !dup || id2 != id {
			t.Fatalf("second add: id %q dup %v err %v, want %q dup", id2, dup, err, id)
		}
		if _, total, _ := s.List(ctx, archive.Filter{}); total != 1 {
			t.Errorf("%d runs stored, want 1", total)
		}
	})
}

func TestConcurrentAddsBothLand(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		// two stores: as two processes would open the archive
		s1, s2 := open(t, dsn), open(t, dsn)
		t0 := time.Now().UTC()
		bs := []*archive.Bundle{bundle(t, "one", t0, time.Millisecond, nil), bundle(t, "two", t0, time.Millisecond, nil),
			bundle(t, "same", t0, time.Millisecond, nil), bundle(t, "same", t0, time.Millisecond, nil)}
		ids := make([]string, len(bs))
		dups := make([]bool, len(bs))
		errs := make([]error, len(bs))
		var wg sync.WaitGroup
		for i, b := range bs {
			identified(t, b)
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := s1
				if i%2 == 1 {
					s = s2
				}
				ids[i], dups[i], errs[i] = s.Add(ctx, b)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("add %d: %v", i, err)
			}
		}
		if dups[0] || dups[1] || dups[2] == dups[3] || ids[2] != ids[3] {
			t.Errorf("ids %v dups %v: want two new, and one of the two same-content adds a duplicate", ids, dups)
		}
		if _, total, _ := s1.List(ctx, archive.Filter{}); total != 3 {
			t.Errorf("%d runs, want 3", total)
		}
	})
}

// failingFile breaks after half its bytes, as a disk error or a kill would
// stop an add midway.
func failingFile(name string) archive.BundleFile {
	return archive.BundleFile{Name: name, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(bytes.NewReader(make([]byte, 3*ChunkSize/2)), iotestErr{})), nil
	}}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("read error midway") }

func TestAddMidwayFailureLeavesNothing(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		b := bundle(t, "broken", time.Now(), time.Millisecond, map[string]string{"k": "v"})
		b.Files = append(b.Files, failingFile("z-broken.lll"))
		b.Run.Content = "fixed-content-hash" // the hash would read the failing file first
		if _, _, err := s.Add(ctx, identified(t, b)); err == nil || !strings.Contains(err.Error(), "midway") {
			t.Fatalf("add: %v, want the read error", err)
		}
		// a cancelled context (a kill's closest in-process stand-in) too
		cctx, cancel := context.WithCancel(ctx)
		b2 := bundle(t, "cancelled", time.Now(), time.Millisecond, nil)
		b2.Files = append(b2.Files, archive.BundleFile{Name: "zz", Open: func() (io.ReadCloser, error) {
			cancel()
			return io.NopCloser(bytes.NewReader(make([]byte, 10))), nil
		}})
		b2.Run.Content = "other-content-hash"
		if _, _, err := s.Add(cctx, b2); err == nil {
			t.Fatal("add with a cancelled context succeeded")
		}
		for _, table := range []string{"runs", "labels", "steps", "scenarios", "files", "chunks"} {
			var n int
			if err := s.db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: %d rows (%v) after failed adds, want 0", table, n, err)
			}
		}
	})
}

func TestListFilterSortPage(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		builds := []string{"2020-01-09", "2020-01-30", "2020-02-03", "2020-02-04", "2020-02-05"}
		p99s := []time.Duration{20, 18, 22, 400, 390}
		for i, bld := range builds {
			name := "hunt"
			if i == 2 {
				name = "Other_50%"
			}
			b := bundle(t, name, t0.Add(time.Duration(i)*time.Hour), p99s[i]*time.Millisecond, map[string]string{"build": bld, "team": "edge"})
			b.Scenarios = map[string]archive.Figures{"page": b.Run.Figures}
			if i == 4 {
				b.Scenarios = nil // two steps each: no per-scenario figures derived
			}
			if _, _, err := s.Add(ctx, identified(t, b)); err != nil {
				t.Fatal(err)
			}
		}
		runs, total, err := s.List(ctx, archive.Filter{})
		if err != nil || total != 5 || len(runs) != 5 || runs[0].Labels["build"] != "2020-02-05" || runs[0].Steps != nil {
			t.Fatalf("list: %v total %d, first %+v", err, total, runs)
		}
		runs, total, _ = s.List(ctx, archive.Filter{Limit: 2, Offset: 1, Asc: true})
		if total != 5 || len(runs) != 2 || runs[0].Labels["build"] != "2020-01-30" {
			t.Errorf("page: total %d %v", total, runs)
		}
		runs, total, _ = s.List(ctx, archive.Filter{Labels: map[string]string{"build": "2020-02-04", "team": "edge"}})
		if total != 1 || runs[0].Latencies.P99 != 400*time.Millisecond {
			t.Errorf("label filter: %d %v", total, runs)
		}
		runs, total, _ = s.List(ctx, archive.Filter{Name: "other_50%"})
		if total != 1 || runs[0].Name != "Other_50%" {
			t.Errorf("name filter: %d %v", total, runs)
		}
		if _, total, _ = s.List(ctx, archive.Filter{Name: "e_r"}); total != 0 { // _ is no wildcard ("other")
			t.Errorf("name filter e_r matched %d runs", total)
		}
		runs, _, _ = s.List(ctx, archive.Filter{Sort: "p99"})
		if runs[0].Latencies.P99 != 400*time.Millisecond || runs[4].Latencies.P99 != 18*time.Millisecond {
			t.Errorf("sort by p99: %v", runs)
		}
		if _, _, err := s.List(ctx, archive.Filter{Sort: "nope"}); !badinput.Is(err) {
			t.Errorf("unknown sort: %v", err)
		}
		pts, err := s.Points(ctx, archive.Filter{Asc: true}, "")
		if err != nil || len(pts) != 5 || pts[3].Latencies.P99 != 400*time.Millisecond || pts[3].Labels["build"] != "2020-02-04" {
			t.Errorf("points: %v %+v", err, pts)
		}
		pts, err = s.Points(ctx, archive.Filter{Asc: true}, "page")
		if err != nil || len(pts) != 4 {
			t.Errorf("points of scenario page: %v, %d points, want 4 (the last run has no per-scenario figures)", err, len(pts))
		}
		pts, _ = s.Points(ctx, archive.Filter{Labels: map[string]string{"build": "2020-01-09"}}, "nosuch")
		if len(pts) != 0 {
			t.Errorf("points of a missing scenario: %v", pts)
		}
	})
}

func TestUnknownRun(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		_, err := s.Get(ctx, "nosuchrun")
		if !errors.Is(err, archive.ErrNotFound) || err.Error() != "run nosuchrun: not in the archive" {
			t.Errorf("get: %v", err)
		}
		if _, err := s.Files(ctx, "nosuchrun"); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("files: %v", err)
		}
		if _, err := s.Histogram(ctx, "nosuchrun", 0, ""); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("histogram: %v", err)
		}
		id, _, _ := s.Add(ctx, identified(t, bundle(t, "x", time.Now(), time.Millisecond, nil)))
		if _, err := s.OpenFile(ctx, id, "nosuch.txt"); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("open file: %v", err)
		}
		if _, err := s.Histogram(ctx, id, 7, "page"); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("histogram of a missing step: %v", err)
		}
	})
}

func TestNewerSchemaRefused(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		s := open(t, dsn)
		if _, err := s.db.Exec(s.d.rebind("UPDATE schema_version SET version = ?"), SchemaVersion+1); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := Open(context.Background(), dsn, true)
		if !badinput.Is(err) || !strings.Contains(err.Error(), "newer than this loadlab") || strings.Contains(err.Error(), pgtest.Password) {
			t.Errorf("open: %v", err)
		}
	})
}

func TestReopenKeepsRuns(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		s := open(t, dsn)
		id, _, err := s.Add(context.Background(), identified(t, bundle(t, "kept", time.Now(), time.Millisecond, nil)))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = open(t, dsn)
		if r, err := s.Get(context.Background(), id); err != nil || r.Name != "kept" {
			t.Errorf("after reopening: %v %v", r, err)
		}
	})
}

func TestDamagedSQLiteFile(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, bytes.Repeat([]byte("this is not sqlite "), 1000), 0o644)
	// a real archive cut in the middle
	good := filepath.Join(dir, "good.db")
	s := open(t, good)
	for i := 0; i < 3; i++ {
		s.Add(context.Background(), identified(t, bundle(t, fmt.Sprint(i), time.Now(), time.Millisecond, nil)))
	}
	s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	s.Close()
	data, _ := os.ReadFile(good)
	cut := filepath.Join(dir, "cut.db")
	head := append([]byte{}, data[:4096]...)
	for i := 100; i < len(head); i++ { // the schema page scrambled
		head[i] ^= 0x5a
	}
	os.WriteFile(cut, append(head, data[4096:len(data)/2]...), 0o644)
	for _, p := range []string{garbage, cut} {
		st, err := Open(context.Background(), p, true)
		if err == nil {
			_, _, err = st.List(context.Background(), archive.Filter{})
			st.Close()
		}
		if !badinput.Is(err) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want one bad-input line naming it", filepath.Base(p), err)
		}
	}
	if _, err := Open(context.Background(), filepath.Join(dir, "missing.db"), false); !badinput.Is(err) || !strings.Contains(err.Error(), "no archive here") {
		t.Errorf("missing file, not created: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("opening a missing archive to read created it")
	}
}

func TestPostgresUnreachableOrRefused(t *testing.T) {
	ctx := context.Background()
	port, err := pgtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	down := fmt.Sprintf("postgres://loadlab:hunter2@127.0.0.1:%d/archive?sslmode=disable&connect_timeout=5", port)
	_, err = Open(ctx, down, true)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "cannot reach Postgres") || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "\n") {
		t.Errorf("postgres down: %v", err)
	}
	srv := pgtest.Shared(t)
	_, err = Open(ctx, srv.DSN("postgres", "wrong-password"), true)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "refused the login") || strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := Open(ctx, srv.DSN("nosuchdb", pgtest.Password), true); !badinput.Is(err) {
		t.Errorf("missing database: %v", err)
	}
}

var _ = sql.ErrNoRows
