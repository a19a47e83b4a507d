package trend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/compare"
)

// store is a real archive (SQLite on disk) holding runs made of real
// metrics (package metrics via compare.Run) over synthetic log-normal
// latencies.
type store struct {
	*sqlstore.Store
	ids []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

func newStore(t *testing.T) *store { return newStoreAt(t, filepath.Join(t.TempDir(), "a.db")) }

// newStoreAt opens a new archive at dsn: a SQLite file or a Postgres URL.
func newStoreAt(t *testing.T, dsn string) *store {
	s, err := sqlstore.Open(context.Background(), dsn, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &store{Store: s}
}

// add records a run of n requests with log-normal latencies of median
// p50ms (σ 0.3), failing with probability fail.
func (s *store) add(t *testing.T, rng *rand.Rand, labels map[string]string, n int, p50ms, fail float64) {
	t.Helper()
	s.addLagged(t, rng, labels, n, p50ms, fail, 0)
}

// addLagged is add with the generator's schedule lag p99 of the run.
func (s *store) addLagged(t *testing.T, rng *rand.Rand, labels map[string]string, n int, p50ms, fail float64, lag time.Duration) {
	t.Helper()
	s.addStalled(t, rng, labels, n, p50ms, fail, lag, 0, 0)
}

// addStalled is addLagged with a share of the requests answered stall
// later: a machine that stalled the target too, not only the generator.
func (s *store) addStalled(t *testing.T, rng *rand.Rand, labels map[string]string, n int, p50ms, fail float64, lag time.Duration, share float64, stall time.Duration) {
	t.Helper()
	name := fmt.Sprintf("r%02d", len(s.ids))
	run := compare.NewRun(name, 0)
	for range n {
		d := time.Duration(p50ms * math.Exp(0.3*rng.NormFloat64()) * float64(time.Millisecond))
		if rng.Float64() < share {
			d += stall
		}
		run.Record(d, rng.Float64() >= fail)
	}
	l := run.Latencies()
	b, err := l.Histogram().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	met := run.Metrics
	f := archive.Figures{Requests: met.Requests, Success: met.Success, Throughput: float64(met.Successes) / 8,
		Latencies: l.LatencySummary, LagP99: lag}
	started := time.Unix(int64(1000+10*len(s.ids)), 0)
	bundle := &archive.Bundle{
		Run: archive.Run{Name: name, Labels: labels, Source: "results", Started: started, Ended: started.Add(8 * time.Second),
			Figures: f, Steps: []archive.Step{{Index: 0, Scenario: "page", Figures: f}}},
		Histograms: map[archive.StepKey][]byte{{Step: 0, Scenario: "page"}: b},
		Files:      []archive.BundleFile{{Name: "hist", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }}},
	}
	id, dup, err := s.Add(context.Background(), identified(t, bundle))
	if err != nil || dup {
		t.Fatal(err, dup)
	}
	s.ids = append(s.ids, id)
}

// perRun is each synthetic run's requests in the no-false-alarm test
// (others have 1000): 40 s at 100/s. At σ 0.3 a run's
// p99 moves by about 2.5% from run to run at this size (p95 1.4%), so the
// difference of three runs pooled against three is well under 5%.
const perRun = 4000

func builds(t *testing.T, seed uint64, p50s []float64, fails []float64) *store {
	return buildsOf(t, seed, 1000, p50s, fails)
}

// buildsOf is builds with n requests per run.
func buildsOf(t *testing.T, seed uint64, n int, p50s []float64, fails []float64) *store {
	return buildsIn(t, newStore(t), seed, n, p50s, fails)
}

// buildsIn adds the builds' runs to src.
func buildsIn(t *testing.T, src *store, seed uint64, n int, p50s []float64, fails []float64) *store {
	rng := rand.New(rand.NewPCG(seed, 1))
	dates := []string{"2020-01-09", "2020-01-30", "2020-02-03", "2020-02-04", "2020-02-05", "2020-02-17"}
	for i, p := range p50s {
		src.add(t, rng, map[string]string{"build": dates[i%len(dates)], "n": fmt.Sprint(i)}, n, p, fails[i])
	}
	return src
}

// The same verdicts from a SQLite file and from a real Postgres.
func TestSixBuildsOneRegression(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "a.db")
			if engine == "postgres" {
				dsn = pgtest.Shared(t).NewDB(t)
			}
			sixBuildsOneRegression(t, buildsIn(t, newStoreAt(t, dsn), 1, 1000, []float64{10, 10, 10, 14, 14, 14}, make([]float64, 6)))
		})
	}
}

func sixBuildsOneRegression(t *testing.T, src *store) {
	for _, m := range []Metric{P95, Mean, P50} {
		tr, err := Compute(context.Background(), src, Options{Metric: m, By: "build"})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Changes) != 1 {
			t.Fatalf("%s: want one change, got %+v", m, tr.Changes)
		}
		c := tr.Changes[0]
		if c.Label != "2020-02-04" || c.Index != 3 || !c.Worse || c.Verdict == nil || !c.SeriesP.Finite() {
			t.Errorf("%s: %+v", m, c)
		}
		if c.Rel < 0.3 || c.Rel > 0.5 || !(c.CI[0] > 0.2 && c.CI[0] < c.Rel && c.Rel < c.CI[1]) {
			t.Errorf("%s: size %.3f CI %v p %v: want about +40%% inside a positive interval", m, c.Rel, c.CI, c.P)
		}
		if !tr.Points[3].Change || tr.Points[2].Change {
			t.Errorf("%s: points not marked: %+v", m, tr.Points)
		}
	}
}

// Six runs of one build: no change point, whatever the metric.
func TestOneBuildNoFalseAlarm(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		src := buildsOf(t, seed, perRun, []float64{10, 10, 10, 10, 10, 10}, make([]float64, 6))
		for _, m := range Metrics {
			tr, err := Compute(context.Background(), src, Options{Metric: m, By: "build", Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Changes) != 0 {
				t.Errorf("seed %d, %s: %+v over %+v", seed, m, tr.Changes, tr.Points)
			}
		}
	}
}

func TestSuccessDrop(t *testing.T) {
	src := builds(t, 2, []float64{10, 10, 10, 10, 10, 10}, []float64{0, 0, 0, 0.1, 0.1, 0.1})
	tr, err := Compute(context.Background(), src, Options{Metric: Success, By: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Changes) != 1 || tr.Changes[0].Index != 3 || !tr.Changes[0].Worse || tr.Changes[0].Rel > -0.05 {
		t.Fatalf("%+v", tr.Changes)
	}
	if len(tr.Regressions()) != 1 {
		t.Errorf("regressions: %+v", tr.Regressions())
	}
}

// An improvement is a change, not a regression.
func TestImprovementIsNotARegression(t *testing.T) {
	src := builds(t, 3, []float64{14, 14, 14, 10, 10, 10}, make([]float64, 6))
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Changes) != 1 || tr.Changes[0].Worse || len(tr.Regressions()) != 0 {
		t.Fatalf("%+v", tr.Changes)
	}
}

func TestMinChange(t *testing.T) {
	src := builds(t, 4, []float64{10, 10, 10, 10.8, 10.8, 10.8}, make([]float64, 6)) // +8%
	for _, tc := range []struct {
		min  float64
		want int
	}{{0, 1}, {0.05, 1}, {0.10, 0}} {
		tr, err := Compute(context.Background(), src, Options{Metric: Mean, By: "build", MinChange: tc.min})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Changes) != tc.want {
			t.Errorf("min %.2f: %+v", tc.min, tr.Changes)
		}
	}
}

func TestLabelFilterAndUnlabelledRuns(t *testing.T) {
	src := builds(t, 5, []float64{10, 10, 10, 14, 14, 14}, make([]float64, 6))
	src.add(t, rand.New(rand.NewPCG(1, 1)), map[string]string{"other": "x"}, 100, 50, 0) // no build label
	tr, err := Compute(context.Background(), src, Options{Metric: P95, By: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Points) != 6 || len(tr.Changes) != 1 || tr.Changes[0].Label != "2020-02-04" {
		t.Fatalf("%+v", tr.Points)
	}
	tr, err = Compute(context.Background(), src, Options{Metric: P95, Labels: map[string]string{"n": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Points) != 1 || tr.Points[0].ID != src.ids[4] {
		t.Fatalf("%+v", tr.Points)
	}
}

func TestUnknownMetric(t *testing.T) {
	_, err := Compute(context.Background(), newStore(t), Options{Metric: "p42"})
	if !badinput.Is(err) || !strings.Contains(err.Error(), "p42") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%v", err)
	}
}

func TestOutputs(t *testing.T) {
	src := builds(t, 6, []float64{10, 10, 10, 30, 30, 30}, make([]float64, 6))
	tr, err := Compute(context.Background(), src, Options{Metric: P95, By: "build"})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, tr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Points  []map[string]any `json:"points"`
		Changes []struct {
			ID     string     `json:"id"`
			Label  string     `json:"label"`
			Before float64    `json:"before"`
			After  float64    `json:"after"`
			CI     [2]float64 `json:"ci"`
			Worse  bool       `json:"worse"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if len(got.Points) != 6 || len(got.Changes) != 1 || got.Changes[0].Label != "2020-02-04" || got.Changes[0].ID != src.ids[3] ||
		got.Changes[0].After <= got.Changes[0].Before || got.Changes[0].CI[0] <= 0 || !got.Changes[0].Worse {
		t.Fatalf("%s", js.String())
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p95 (ms), by build: 6 runs, 1 change", "▲", "regression from build 2020-02-04 (run " + src.ids[3] + ")", "99.8% CI", "E-divisive means"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	t.Logf("\n%s", txt.String())
}

func TestNaturalOrder(t *testing.T) {
	for _, tc := range [][2]string{{"9", "10"}, {"v1.9.2", "v1.10.0"}, {"2020-01-30", "2020-02-03"}, {"build-2", "build-10"}, {"a", "b"}, {"1.0", "1.0.1"}} {
		if !NaturalLess(tc[0], tc[1]) || NaturalLess(tc[1], tc[0]) {
			t.Errorf("%q < %q not so", tc[0], tc[1])
		}
	}
	if NaturalLess("x7", "x7") {
		t.Error("equal values ordered")
	}
	ps := []Point{{Label: "9f3e2a1", Started: time.Unix(3, 0)}, {Label: "0c1d2e3", Started: time.Unix(1, 0)}, {Label: "9f3e2a1", Started: time.Unix(2, 0)}, {Label: "77aa001", Started: time.Unix(4, 0)}}
	order(ps, "commit")
	var got []string
	for _, p := range ps {
		got = append(got, p.Label)
	}
	if strings.Join(got, " ") != "0c1d2e3 9f3e2a1 9f3e2a1 77aa001" {
		t.Errorf("commits in first-run order: %v", got)
	}
}

func FuzzNaturalLess(f *testing.F) {
	f.Add("v1.9", "v1.10")
	f.Add("007", "7")
	f.Fuzz(func(t *testing.T, a, b string) {
		if NaturalLess(a, b) && NaturalLess(b, a) {
			t.Fatalf("%q and %q each before the other", a, b)
		}
		if a == b && NaturalLess(a, b) {
			t.Fatalf("%q before itself", a)
		}
	})
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
