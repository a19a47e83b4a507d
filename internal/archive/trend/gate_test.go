package trend

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive/pgtest"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/verdict"
)

// commits adds, for each level, reps runs labelled commit=c<i> (p50 in
// ms, 8000 requests each: p99 moves by about 1% from run to run).
func commits(t *testing.T, src *store, rng *rand.Rand, from int, reps int, levels ...float64) {
	for i, l := range levels {
		for range reps {
			src.add(t, rng, map[string]string{"commit": fmt.Sprintf("c%02d", from+i)}, 8000, l, 0)
		}
	}
}

func gateOf(t *testing.T, src Source, o Options) *Gate {
	t.Helper()
	o.Metric, o.By = P99, "commit"
	tr, err := Compute(context.Background(), src, o)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Gate == nil {
		t.Fatal("no gate")
	}
	return tr.Gate
}

// The gate judges the newest commit's replicates against the level since
// the last change or the accepted run; -since and -last bound the window;
// the same on a SQLite file and a real Postgres.
func TestGateAcceptSinceLast(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "a.db")
			if engine == "postgres" {
				dsn = pgtest.Shared(t).NewDB(t)
			}
			gateAcceptSinceLast(t, newStoreAt(t, dsn))
		})
	}
}

func gateAcceptSinceLast(t *testing.T, src *store) {
	rng := rand.New(rand.NewPCG(21, 1))
	commits(t, src, rng, 0, 2, 10, 10, 10, 10)
	// an unchanged newest commit: no change
	g := gateOf(t, src, Options{})
	if g.Label != "c03" || len(g.Runs) != 2 || g.Verdict.Outcome != verdict.Same || g.Regression || g.Verdict.RunsBefore != 6 || g.Baseline != "the start of the series" {
		t.Fatalf("flat: %+v", g)
	}
	// a slower one (+40%, two runs): a regression naming its first run
	commits(t, src, rng, 4, 2, 14)
	g = gateOf(t, src, Options{})
	if !g.Regression || g.Verdict.Outcome != verdict.Worse || g.Verdict.Change < 0.25 || g.Verdict.Lo <= 0 ||
		!strings.Contains(g.Text, "commit c04 (run "+src.ids[8]+")") || !strings.Contains(g.Text, "p99 worse by +") {
		t.Fatalf("slower: %+v", g)
	}
	// accepted: the gate passes, and the next commit at the new level is
	// judged against it, not against the old level
	if _, err := src.Accept(context.Background(), src.ids[9], "slower on purpose"); err != nil {
		t.Fatal(err)
	}
	g = gateOf(t, src, Options{})
	if !g.Accepted || g.Regression || !strings.Contains(g.Text, "accepted") {
		t.Fatalf("accepted: %+v", g)
	}
	commits(t, src, rng, 5, 2, 14)
	g = gateOf(t, src, Options{})
	if g.Regression || g.Verdict.Outcome == verdict.Worse || g.Baseline != "the accepted run" || g.From != "c04" || g.Verdict.RunsBefore != 2 {
		t.Fatalf("after the accepted run: %+v", g)
	}
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Accepted) != 1 || tr.Accepted[0].RunID != src.ids[9] || tr.Accepted[0].Note != "slower on purpose" || !tr.Points[9].Accepted || tr.Points[8].Accepted {
		t.Fatalf("acceptances: %+v", tr.Accepted)
	}
	// -last 2: c04 against c05 only; -since c05: nothing before it
	g = gateOf(t, src, Options{Last: 2})
	if g.From != "c04" || g.Verdict.RunsBefore != 2 || g.Verdict.RunsAfter != 2 {
		t.Fatalf("-last 2: %+v", g)
	}
	g = gateOf(t, src, Options{Since: "c05"})
	if g.Verdict.Outcome != verdict.CannotTell || !strings.Contains(g.Text, "nothing before it") {
		t.Fatalf("-since c05: %+v", g)
	}
	tr, err = Compute(context.Background(), src, Options{Metric: P99, By: "commit", Since: "c03"})
	if err != nil || len(tr.Points) != 6 || tr.Points[0].Label != "c03" {
		t.Fatalf("-since c03: %v %+v", err, tr)
	}
	if _, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit", Since: "c99"}); !badinput.Is(err) || !strings.Contains(err.Error(), "-since") {
		t.Errorf("unknown -since: %v", err)
	}
	// accepting a run that is not there
	if _, err := src.Accept(context.Background(), "nosuchrun", ""); err == nil || !strings.Contains(err.Error(), "nosuchrun") {
		t.Errorf("accept of a missing run: %v", err)
	}
}

// A newest commit of one run cannot show a change the noise hides: the
// gate says cannot tell, with how many repeats would decide.
func TestGateCannotTell(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(22, 1))
	commits(t, src, rng, 0, 1, 10, 10.6, 9.5, 10.4)
	commits(t, src, rng, 4, 1, 10.7)
	g := gateOf(t, src, Options{})
	if g.Verdict.Outcome != verdict.CannotTell || g.Regression || !strings.Contains(g.Text, "cannot show a 5.0% change") || !strings.Contains(g.Text, "repeats of the newer build") {
		t.Fatalf("%+v", g)
	}
}

// A run whose generator lagged (its schedule lag p99 a third of the p99
// it measured) is named noisy and left out; the newest commit's only run
// noisy makes the gate cannot tell instead of a regression.
func TestGateNoisyRuns(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(23, 1))
	commits(t, src, rng, 0, 2, 10, 10, 10)
	src.addLagged(t, rng, map[string]string{"commit": "c03"}, 2000, 16, 0, 12*time.Millisecond)
	g := gateOf(t, src, Options{})
	if g.Regression || g.Verdict.Outcome != verdict.CannotTell || len(g.Verdict.Noisy) != 1 || g.Verdict.Noisy[0].ID != src.ids[6] ||
		!strings.Contains(g.Text, "noisy, so not judged: "+src.ids[6]+" (its own schedule lag p99") {
		t.Fatalf("%+v", g)
	}
	// a clean replicate of c03 next to it: judged on that one, the noisy
	// one named and left out
	src.add(t, rng, map[string]string{"commit": "c03"}, 2000, 10, 0)
	g = gateOf(t, src, Options{})
	if g.Regression || len(g.Verdict.Noisy) != 1 || g.Verdict.RunsAfter != 1 || !strings.Contains(g.Text, "left out 1 noisy run: "+src.ids[6]) {
		t.Fatalf("%+v", g)
	}
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Points[6].Noisy == "" || tr.Points[7].Noisy != "" {
		t.Errorf("points: %+v", tr.Points)
	}
}

// Nothing to judge is bad input naming the flag.
func TestNothingToJudge(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(24, 1))
	commits(t, src, rng, 0, 1, 10, 10)
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Metric: P99, By: "comit"}, `-by: no run is labelled "comit" (the runs' labels: commit)`},
		{Options{Metric: P99, By: "commit", Labels: map[string]string{"env": "prod"}}, "-label"},
		{Options{Metric: P99, By: "commit", Scenario: "nope"}, `-scenario: no run`},
	} {
		tr, err := Compute(context.Background(), src, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		err = tr.Nothing()
		if !badinput.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil || tr.Nothing() != nil {
		t.Errorf("%v %v", err, tr.Nothing())
	}
}

// Replicates of the build after a change are grouped: three runs a build,
// the change named at the first run of the build, its verdict on six
// runs against six.
func TestReplicatesGrouped(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(25, 1))
	commits(t, src, rng, 0, 3, 10, 10, 13, 13)
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Changes) != 1 || tr.Changes[0].Index != 6 || tr.Changes[0].Label != "c02" || !tr.Changes[0].Worse ||
		tr.Changes[0].RunsBefore != 6 || tr.Changes[0].RunsAfter != 6 {
		t.Fatalf("%+v", tr.Changes)
	}
	// the regression at c02 is not accepted: c03, at its level, still fails
	if !tr.Gate.Regression || !strings.Contains(tr.Gate.Text, "regression not accepted since commit c02") {
		t.Errorf("gate before accepting: %+v", tr.Gate)
	}
	// accepted: c03 is judged against the level from c02 on
	if _, err := src.Accept(context.Background(), tr.Changes[0].ID, "slower on purpose"); err != nil {
		t.Fatal(err)
	}
	tr, err = Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Gate.Regression || tr.Gate.Verdict.RunsBefore != 3 || tr.Gate.Baseline != "the accepted run" {
		t.Errorf("gate after accepting: %+v", tr.Gate)
	}
}

// After an unaccepted regression, an improvement back to the old level
// moves the baseline: the gate passes again.
func TestGateRegressionUndone(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(26, 1))
	commits(t, src, rng, 0, 3, 10, 10, 13, 13, 10, 10)
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Changes) != 2 || !tr.Changes[0].Worse || tr.Changes[1].Worse {
		t.Fatalf("changes: %+v", tr.Changes)
	}
	if tr.Gate.Regression || tr.Gate.Baseline != "the last change" {
		t.Errorf("gate: %+v", tr.Gate)
	}
}

// A build the machine disturbed (its runs noisy, and slower for it) is
// never where a change is placed: the change is named at the first clean
// build of the new level, and the disturbed build is named noisy.
func TestChangeNeverAtANoisyBuild(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(27, 1))
	commits(t, src, rng, 0, 2, 10, 10)
	for range 2 { // c02: unchanged, but measured beside a busy neighbour
		src.addLagged(t, rng, map[string]string{"commit": "c02"}, 8000, 13, 0, 30*time.Millisecond)
	}
	commits(t, src, rng, 3, 2, 10, 13, 13, 13)
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Changes) != 1 || tr.Changes[0].Label != "c04" || !tr.Changes[0].Worse {
		t.Fatalf("changes %+v, want one, at c04", tr.Changes)
	}
	if tr.Points[4].Noisy == "" || tr.Points[4].Change {
		t.Errorf("the disturbed build: %+v", tr.Points[4])
	}
}

// A run the machine stalled as a whole, the target with the generator
// (3% of its answers 300 ms late, its lag 6 ms): 2% of its own p99, so
// judged alone it was clean, but a third of the p99 its peers measured.
// It is named and left out of the change search and of the gate, which
// judges the newest commit on its clean replicates: no regression.
func TestGateStalledRunAgainstPeers(t *testing.T) {
	src := newStore(t)
	rng := rand.New(rand.NewPCG(25, 1))
	for c := range 4 {
		for range 3 - c/3 {
			src.addLagged(t, rng, map[string]string{"commit": fmt.Sprintf("c%02d", c)}, 8000, 10, 0, 300*time.Microsecond)
		}
	}
	src.addStalled(t, rng, map[string]string{"commit": "c03"}, 8000, 10, 0, 6*time.Millisecond, 0.03, 300*time.Millisecond)
	stalled := src.ids[len(src.ids)-1]
	tr, err := Compute(context.Background(), src, Options{Metric: P99, By: "commit"})
	if err != nil {
		t.Fatal(err)
	}
	last := tr.Points[len(tr.Points)-1]
	if last.ID != stalled || !strings.Contains(last.Noisy, "of the latency p99 its peers typically measured") || len(tr.Changes) != 0 {
		t.Fatalf("stalled run %+v; changes %+v", last, tr.Changes)
	}
	for _, p := range tr.Points[:len(tr.Points)-1] {
		if p.Noisy != "" {
			t.Errorf("quiet run %s noisy: %s", p.ID, p.Noisy)
		}
	}
	g := tr.Gate
	if g.Regression || g.Verdict.Outcome == verdict.Worse || g.Verdict.RunsAfter != 2 || len(g.Verdict.Noisy) != 1 || g.Verdict.Noisy[0].ID != stalled {
		t.Fatalf("gate %+v", g)
	}
}
