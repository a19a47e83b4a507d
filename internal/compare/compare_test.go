package compare

import (
	"os"
	"path/filepath"

	"bytes"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// synth draws n log-normal latencies around median (a typical latency
// shape), scaled by factor, with the given share of failures.
func synth(name string, seed uint64, n int, median time.Duration, factor, failRatio float64) *Run {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := NewRun(name, metrics.FromDue)
	for i := 0; i < n; i++ {
		lat := float64(median) * math.Exp(0.4*rng.NormFloat64()) * factor
		r.Record(time.Duration(lat), rng.Float64() >= failRatio)
	}
	return r
}

func verdicts(rep Report, run string) map[Stat]string {
	out := map[Stat]string{}
	for _, row := range rep.Rows {
		if row.Run == run {
			out[row.Stat] = row.Verdict
		}
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	base := synth("base", 1, 5000, 10*time.Millisecond, 1, 0.01)
	tests := []struct {
		name string
		run  *Run
		want map[Stat]string
	}{
		{"same samples", synth("same", 1, 5000, 10*time.Millisecond, 1, 0.01),
			map[Stat]string{Mean: NoDiff, P50: NoDiff, P90: NoDiff, P99: NoDiff, Success: NoDiff}},
		{"same distribution, other draw", synth("other draw", 2, 5000, 10*time.Millisecond, 1, 0.01),
			map[Stat]string{Mean: NoDiff, P50: NoDiff, P90: NoDiff, P99: NoDiff, Success: NoDiff}},
		{"20% slower", synth("slower", 3, 5000, 10*time.Millisecond, 1.2, 0.01),
			map[Stat]string{Mean: Slower, P50: Slower, P90: Slower, P99: Slower, Success: NoDiff}},
		{"20% faster", synth("faster", 4, 5000, 10*time.Millisecond, 0.8, 0.01),
			map[Stat]string{Mean: Faster, P50: Faster, P90: Faster, P99: Faster, Success: NoDiff}},
		{"more failures", synth("failing", 5, 5000, 10*time.Millisecond, 1, 0.05),
			map[Stat]string{Mean: NoDiff, P50: NoDiff, P90: NoDiff, P99: NoDiff, Success: Worse}},
		{"1% shift on 300 requests is noise", synth("tiny", 6, 300, 10*time.Millisecond, 1.01, 0.01),
			map[Stat]string{Mean: NoDiff, P50: NoDiff, P90: NoDiff, P99: TooFew, Success: NoDiff}},
		{"8 requests are too few to say anything", synth("eight", 7, 8, 10*time.Millisecond, 3, 0),
			map[Stat]string{Mean: TooFew, P50: TooFew, P90: TooFew, P99: TooFew, Success: TooFew}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := Compare(base, []*Run{tc.run}, Options{Resamples: 200, Seed: 1})
			got := verdicts(rep, tc.run.Name)
			if !reflect.DeepEqual(got, tc.want) {
				var b bytes.Buffer
				_ = rep.WriteText(&b)
				t.Errorf("verdicts %v, want %v\n%s", got, tc.want, b.String())
			}
			for _, row := range rep.Rows {
				if row.Verdict != TooFew && !(row.Lo <= row.Hi) {
					t.Errorf("%v: interval [%v, %v] inverted", row.Stat, row.Lo, row.Hi)
				}
			}
		})
	}
}

func TestShiftIsEstimated(t *testing.T) {
	base := synth("base", 1, 10000, 10*time.Millisecond, 1, 0)
	run := synth("run", 2, 10000, 10*time.Millisecond, 1.2, 0)
	rep := Compare(base, []*Run{run}, Options{Resamples: 200, Seed: 9})
	for _, row := range rep.Rows[:4] {
		if row.Rel < 0.15 || row.Rel > 0.25 {
			t.Errorf("%v: relative difference %.3f, want about 0.20", row.Stat, row.Rel)
		}
		if !(row.Lo <= row.Diff && row.Diff <= row.Hi) {
			t.Errorf("%v: estimate %v outside its interval [%v, %v]", row.Stat, row.Diff, row.Lo, row.Hi)
		}
	}
}

func TestDeterministic(t *testing.T) {
	base := synth("base", 1, 3000, 5*time.Millisecond, 1, 0.02)
	run := synth("run", 2, 3000, 5*time.Millisecond, 1.05, 0.02)
	a := Compare(base, []*Run{run}, Options{Resamples: 100, Seed: 42})
	b := Compare(base, []*Run{run}, Options{Resamples: 100, Seed: 42})
	if !reflect.DeepEqual(a.Rows, b.Rows) {
		t.Fatal("same seed gave different tables")
	}
}

func TestEmptyRunHasNoData(t *testing.T) {
	base := synth("base", 1, 1000, 5*time.Millisecond, 1, 0)
	rep := Compare(base, []*Run{NewRun("empty", metrics.FromDue)}, Options{Resamples: 50, Seed: 1})
	for _, row := range rep.Rows {
		if row.Verdict != NoData {
			t.Errorf("%v: verdict %q, want %q", row.Stat, row.Verdict, NoData)
		}
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "no data") {
		t.Errorf("text: %v\n%s", err, b.String())
	}
}

func TestTableText(t *testing.T) {
	base := synth("09 Jan", 1, 2000, 9*time.Millisecond, 1, 0.001)
	run := synth("04 Feb", 2, 2000, 9*time.Millisecond, 600, 0.03)
	rep := Compare(base, []*Run{run}, Options{Resamples: 100, Seed: 1})
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Baseline: 09 Jan", "04 Feb", "p99", "slower", "worse", "Method: latencies: Poisson bootstrap", "95% CI", "pp"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := rep.WriteMarkdown(&b); err != nil || strings.Count(b.String(), "\n| 04 Feb |") != 5 {
		t.Errorf("markdown: %v\n%s", err, b.String())
	}
}

func TestPoissonMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lam := range []float64{0.5, 3, 9.9, 10, 42, 1000, 1e6} {
		const n = 20000
		var sum, sq float64
		for i := 0; i < n; i++ {
			k := float64(poisson(rng, lam))
			sum += k
			sq += k * k
		}
		mean := sum / n
		variance := sq/n - mean*mean
		if math.Abs(mean-lam) > 5*math.Sqrt(lam/n) {
			t.Errorf("lam %v: mean %v", lam, mean)
		}
		if math.Abs(variance-lam)/lam > 0.06 {
			t.Errorf("lam %v: variance %v", lam, variance)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"mixed.bin", "basic.bin"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "exp", "step-"+f[:1]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "exp", "step-"+f[:1], f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "exp", "summary.json"), []byte(`{"steps":2}`), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "exp", "report.md"), []byte("# report\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "junk.txt"), []byte("hello\n"), 0o644)
	_ = os.Mkdir(filepath.Join(dir, "empty"), 0o755)

	tests := []struct {
		name    string
		args    []string
		want    []string
		counts  []int64
		wantErr string
	}{
		{"files", []string{"testdata/basic.json", "testdata/mixed.bin"}, []string{"basic.json", "mixed.bin"}, []int64{1000, 400}, ""},
		{"one file", []string{"testdata/basic.json"}, []string{"testdata/basic.json"}, []int64{1000}, ""},
		{"file and folder", []string{"testdata/mixed.bin", filepath.Join(dir, "exp")}, []string{"testdata/mixed.bin", filepath.Join(dir, "exp", "step-b", "basic.bin"), filepath.Join(dir, "exp", "step-m", "mixed.bin")}, []int64{400, 1000, 400}, ""},
		{"folder", []string{filepath.Join(dir, "exp")}, []string{filepath.Join("step-b", "basic.bin"), filepath.Join("step-m", "mixed.bin")}, []int64{1000, 400}, ""},
		{"missing", []string{filepath.Join(dir, "nope.bin")}, nil, nil, "nope.bin"},
		{"not results", []string{filepath.Join(dir, "junk.txt")}, nil, nil, "junk.txt: not a results file"},
		{"empty folder", []string{filepath.Join(dir, "empty")}, nil, nil, "folder holds no loadlab results"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := Load(nil, tc.args, LoadOptions{Basis: metrics.FromDue})
			if tc.wantErr != "" {
				if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want bad input containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != len(tc.want) {
				t.Fatalf("%d runs, want %d", len(runs), len(tc.want))
			}
			for i, r := range runs {
				if r.Name != tc.want[i] || r.N() != tc.counts[i] || int64(r.Latencies().Count) != tc.counts[i] {
					t.Errorf("run %d = %s with %d results, want %s with %d", i, r.Name, r.N(), tc.want[i], tc.counts[i])
				}
			}
		})
	}
}

// TestLoadMatchesVegetaReport checks a loaded run against vegeta's own
// report of the same file (testdata from shared/vectors: mixed.report.txt
// says 400 requests, 48.00% success) and the percentiles against
// HdrHistogram's (vegeta interpolates between neighbours, so its p50 of
// this bimodal sample, 9.721ms, sits between the 199th and 200th values,
// 9.696ms and 9.880ms).
func TestLoadMatchesVegetaReport(t *testing.T) {
	runs, err := Load(nil, []string{"testdata/mixed.bin"}, LoadOptions{Basis: metrics.FromDue})
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.OK() != 192 || r.N() != 400 {
		t.Errorf("ok %d of %d, want 192 of 400", r.OK(), r.N())
	}
	h := r.Latencies().Histogram()
	b := flatten(r)
	v := b.point()
	for _, c := range []struct {
		s    Stat
		want float64
	}{
		{P50, float64(h.ValueAtPercentile(50)) / 1e6},
		{P90, float64(h.ValueAtPercentile(90)) / 1e6},
		{P99, float64(h.ValueAtPercentile(99)) / 1e6},
		{Mean, h.Mean() / 1e6},
		{Success, 48},
	} {
		if math.Abs(v[c.s]-c.want)/c.want > 0.001 {
			t.Errorf("%v = %v, want %v", c.s, v[c.s], c.want)
		}
	}
	if v[P50] < 9.696 || v[P50] > 9.9 || v[P99] < 501.1 || v[P99] > 501.5 {
		t.Errorf("p50 %v, p99 %v: not the sample's", v[P50], v[P99])
	}
}

// expFolder lays out an experiment-like folder: steps/<step>/<scenario>.bin.
func expFolder(t *testing.T, root string, steps []string, scenarios map[string]string) string {
	t.Helper()
	for _, st := range steps {
		for scen, vector := range scenarios {
			b, err := os.ReadFile(filepath.Join("testdata", vector))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, "steps", st, scen+".bin")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = os.WriteFile(filepath.Join(root, "summary.json"), []byte(`{}`), 0o644)
	return root
}

func TestCompareGroups(t *testing.T) {
	dir := t.TempDir()
	one := expFolder(t, filepath.Join(dir, "one"), []string{"01", "02"}, map[string]string{"search": "mixed.bin", "news": "basic.bin"})
	before := expFolder(t, filepath.Join(dir, "before"), []string{"01"}, map[string]string{"search": "basic.bin"})
	after := expFolder(t, filepath.Join(dir, "after"), []string{"01"}, map[string]string{"search": "mixed.bin"})
	tests := []struct {
		name      string
		args      []string
		baseline  string
		want      []string // per comparison: group: baseline vs others
		alone     int
		wantError string
	}{
		{"one folder: scenarios apart", []string{one}, "",
			[]string{"news: 01/news.bin vs 02/news.bin", "search: 01/search.bin vs 02/search.bin"}, 0, ""},
		{"one folder, second step as baseline", []string{one}, "2",
			[]string{"news: 02/news.bin vs 01/news.bin", "search: 02/search.bin vs 01/search.bin"}, 0, ""},
		{"two folders: step by step", []string{before, after}, "",
			[]string{"steps/01/search.bin: before vs after"}, 0, ""},
		{"two folders, baseline by name", []string{before, after}, "after",
			[]string{"steps/01/search.bin: after vs before"}, 0, ""},
		{"files together", []string{"testdata/basic.bin", "testdata/mixed.bin", "testdata/basic.json"}, "",
			[]string{": basic.bin vs mixed.bin basic.json"}, 0, ""},
		{"a lonely run", []string{"testdata/basic.bin", "testdata/mixed.bin", one}, "",
			[]string{": testdata/basic.bin vs testdata/mixed.bin", "news: " + filepath.Join(dir, "one/steps/01/news.bin") + " vs " + filepath.Join(dir, "one/steps/02/news.bin"), "search: " + filepath.Join(dir, "one/steps/01/search.bin") + " vs " + filepath.Join(dir, "one/steps/02/search.bin")}, 0, ""},
		{"a run alone in its group", []string{"testdata/basic.bin", "testdata/mixed.bin", before}, "",
			[]string{": testdata/basic.bin vs testdata/mixed.bin"}, 1, ""},
		{"bad position", []string{before, after}, "3", nil, 0, "-baseline: position 3 is out of range: there are 2 runs of steps/01/search.bin"},
		{"unknown name", []string{before, after}, "sometime", nil, 0, `-baseline: no run is named "sometime"`},
		{"nothing to compare", []string{before}, "", nil, 0, "need at least two runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := Load(nil, tc.args, LoadOptions{Basis: metrics.FromDue})
			if err != nil {
				t.Fatal(err)
			}
			comps, alone, err := CompareGroups(runs, tc.baseline, Options{Resamples: 20, Seed: 1})
			if tc.wantError != "" {
				if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("err = %v, want %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range comps {
				var names []string
				for _, r := range c.Runs[1:] {
					names = append(names, r.Name)
				}
				got = append(got, c.Report.Group+": "+c.Runs[0].Name+" vs "+strings.Join(names, " "))
				if c.Report.Baseline != c.Runs[0].Name {
					t.Errorf("report baseline %q, runs start with %q", c.Report.Baseline, c.Runs[0].Name)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("comparisons:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if len(alone) != tc.alone {
				t.Errorf("%d runs alone, want %d", len(alone), tc.alone)
			}
			out := t.TempDir()
			paths, err := WriteDir(out, "cmp", comps)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != len(comps)+2 {
				t.Errorf("wrote %v", paths)
			}
		})
	}
}

func TestNewcombe(t *testing.T) {
	tests := []struct {
		x1, n1, x2, n2 int64
		lo, hi         float64 // percentage points, to 0.1
		real           bool
	}{
		{56, 70, 48, 80, 5.2, 33.4, true},              // Newcombe (1998), table II, method 10: 0.0524 to 0.3339
		{200, 200, 5000, 5000, -1.9, 0.1, false},       // no failures anywhere: no difference
		{198, 200, 4950, 5000, -2.6, 0.8, false},       // 1% failures both sides
		{180, 200, 4950, 5000, -13.9, -5.6, true},      // 10% against 1%
		{20289, 21000, 20980, 21000, -3.5, -3.0, true}, // a regressed build: 96.61% vs 99.90%
	}
	for _, tc := range tests {
		lo, hi := newcombe(tc.x1, tc.n1, tc.x2, tc.n2, 0.95)
		if math.Abs(lo-tc.lo) > 0.1 || math.Abs(hi-tc.hi) > 0.1 {
			t.Errorf("newcombe(%d/%d - %d/%d) = [%.2f, %.2f], want [%.1f, %.1f]", tc.x1, tc.n1, tc.x2, tc.n2, lo, hi, tc.lo, tc.hi)
		}
		if real := lo > 0 || hi < 0; real != tc.real {
			t.Errorf("newcombe(%d/%d - %d/%d): significant %v, want %v", tc.x1, tc.n1, tc.x2, tc.n2, real, tc.real)
		}
	}
}

// TestResamplingPerRun: a run's resamples are seeded by its own content, so
// its row against the baseline is the same whether it is compared alone or
// beside another run, in either order.
func TestResamplingPerRun(t *testing.T) {
	base := synth("base", 1, 3000, 10*time.Millisecond, 1, 0.01)
	b := synth("b", 2, 3000, 10*time.Millisecond, 1.03, 0.02)
	c := synth("c", 3, 3000, 10*time.Millisecond, 0.9, 0.01)
	rowsOf := func(rep Report, run string) []Row {
		var out []Row
		for _, r := range rep.Rows {
			if r.Run == run {
				out = append(out, r)
			}
		}
		return out
	}
	opt := Options{Resamples: 300, Seed: 7}
	alone := rowsOf(Compare(base, []*Run{b}, opt), "b")
	for _, others := range [][]*Run{{c, b}, {b, c}} {
		with := rowsOf(Compare(base, others, opt), "b")
		if !reflect.DeepEqual(alone, with) {
			t.Fatalf("b's rows change with the runs beside it:\nalone %+v\nwith c %+v", alone, with)
		}
	}
	// The interval is a real one, not a degenerate [0, 0].
	if alone[P50].Lo == alone[P50].Hi || math.IsNaN(alone[P50].Lo) {
		t.Fatalf("p50 interval %v..%v", alone[P50].Lo, alone[P50].Hi)
	}
	if other := rowsOf(Compare(base, []*Run{b}, Options{Resamples: 300, Seed: 8}), "b"); reflect.DeepEqual(alone, other) {
		t.Fatal("another seed gave the same intervals")
	}
}

// TestPointIsMetrics: the values compared are the run's metrics, the
// numbers `loadlab report` prints (exact mean, percentiles clamped to the
// exact extremes), not a second estimate from compare's own histogram.
func TestPointIsMetrics(t *testing.T) {
	runs, err := Load(nil, []string{"testdata/mixed.bin", "testdata/basic.bin"}, LoadOptions{Basis: metrics.FromDue})
	if err != nil {
		t.Fatal(err)
	}
	rep := Compare(runs[0], runs[1:], Options{Resamples: 50, Seed: 1})
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, row := range rep.Rows {
		var want [2]float64
		for i, r := range runs {
			m := r.Metrics
			want[i] = map[Stat]float64{Mean: ms(m.Latencies.Mean), P50: ms(m.Latencies.P50), P90: ms(m.Latencies.P90),
				P99: ms(m.Latencies.P99), Success: 100 * m.Success}[row.Stat]
		}
		if row.Base != want[0] || row.Value != want[1] {
			t.Errorf("%v: baseline %v, run %v; metrics say %v, %v", row.Stat, row.Base, row.Value, want[0], want[1])
		}
	}
}
