package plan

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// TestClosedLoop: rate: 0 with workers: N is a closed loop of N users
// (the attack's -rate=0 -max-workers N); workers anywhere else, or a
// zero rate without it, is one line naming the field.
func TestClosedLoop(t *testing.T) {
	base := "components:\n  origin:\n    kind: origin\n    recipe: origin.json\n"
	scen := "scenarios:\n  - name: users\n    target: GET ${origin.url}/\n    rate: 0\n    duration: 1s\n    workers: ${n}\nmatrix:\n  n: [4, 16]\n"
	p, err := Parse("plan.yaml", "testdata", []byte(base+scen))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(p.Steps))
	}
	for i, want := range []int{4, 16} {
		sc := p.Steps[i].Scenarios[0]
		if sc.MaxWorkers != want || !sc.Rate.From.IsZero() || !sc.Rate.To.IsZero() || sc.Users() != want {
			t.Errorf("step %d: %d workers (%d users) at rate %+v, want %d users at rate 0", i+1, sc.MaxWorkers, sc.Users(), sc.Rate, want)
		}
	}
	// An open loop bounded by max_workers has no users.
	open, err := Parse("plan.yaml", "testdata", []byte(base+strings.Replace(strings.Replace(scen, "rate: 0", "rate: 5/s", 1), "workers:", "max_workers:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if sc := open.Steps[0].Scenarios[0]; sc.Users() != 0 || sc.MaxWorkers != 4 {
		t.Errorf("an open loop with max_workers 4: %d users, max_workers %d", sc.Users(), sc.MaxWorkers)
	}
	// The users are the load, as a rate is, not the configuration: steps
	// that differ in their users alone compare one configuration.
	variants := strings.Replace(base, "    recipe: origin.json\n", "    recipe: origin.json\n    variants:\n      a: {label: first}\n      b: {label: second}\n", 1)
	vs, err := Parse("plan.yaml", "testdata", []byte(strings.Replace(variants+scen, "  n: [4, 16]\n", "  origin: [a, b]\n  n: [4, 16]\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.Steps) != 4 {
		t.Fatalf("%d steps, want 2 variants x 2 numbers of users", len(vs.Steps))
	}
	for _, st := range vs.Steps {
		if c := vs.Configuration(st); c != "first" && c != "second" {
			t.Errorf("step %q: configuration %q, want its variant's label alone", st.Name, c)
		}
	}
	for _, tc := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"zero rate without workers", strings.Replace(scen, "    workers: ${n}\n", "", 1), 8, "rate: 0 with workers: N"},
		{"workers with a rate", strings.Replace(scen, "rate: 0", "rate: 5/s", 1), 10, "scenarios[0].workers: only with rate: 0"},
		{"workers with steps", strings.Replace(scen, "rate: 0\n    duration: 1s", "steps: [1, 2]\n    step_duration: 1s", 1), 10, "scenarios[0].workers: only with rate: 0"},
		{"workers and max_workers", strings.Replace(scen, "matrix:", "    max_workers: 3\nmatrix:", 1), 11, "give workers (the users of rate: 0), not both"},
		{"no users", strings.Replace(scen, "[4, 16]", "[0]", 1), 10, "from 1 to 100000, got \"0\""},
		{"not a number", strings.Replace(scen, "[4, 16]", "[many]", 1), 10, "got \"many\""},
		{"too many", strings.Replace(scen, "[4, 16]", "[1000000]", 1), 10, "from 1 to 100000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("plan.yaml", "testdata", []byte(base+tc.src))
			var bi *badinput.Error
			if !errors.As(err, &bi) {
				t.Fatalf("got %v, want a *badinput.Error", err)
			}
			if bi.Line != tc.line || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q (line %d), want line %d mentioning %q", err, bi.Line, tc.line, tc.want)
			}
		})
	}
}

// FuzzClosedLoop: any rate and workers values give a closed loop of 1
// to MaxUsers users at rate 0, an open loop without workers, or one line
// of bad input.
func FuzzClosedLoop(f *testing.F) {
	for _, s := range [][2]string{{"0", "8"}, {"5/s", "8"}, {"0", "0"}, {"0", "-1"}, {"0/s", "1e3"}, {"0..0", "3"}, {"0", "100001"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, rate, workers string) {
		src := "components:\n  origin:\n    kind: origin\n    recipe: origin.json\nscenarios:\n  - name: users\n    target: GET ${origin.url}/\n    rate: " +
			strconv.Quote(rate) + "\n    duration: 1s\n    workers: " + strconv.Quote(workers) + "\n"
		p, err := Parse("plan.yaml", "testdata", []byte(src))
		if err != nil {
			if !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("rate %q workers %q: %v", rate, workers, err)
			}
			return
		}
		sc := p.Steps[0].Scenarios[0]
		if sc.MaxWorkers < 1 || sc.MaxWorkers > MaxUsers || !sc.Rate.From.IsZero() || !sc.Rate.To.IsZero() {
			t.Fatalf("rate %q workers %q: %d workers at %+v", rate, workers, sc.MaxWorkers, sc.Rate)
		}
	})
}

// TestParseRecord: a run folder's copy of its plan is read for its shape
// (here a closed loop's users) although the recipe, config and targets
// file it names are gone, where Parse refuses it; a plan that is not
// valid is refused as by Parse.
func TestParseRecord(t *testing.T) {
	plan := "components:\n  origin: {kind: origin, recipe: gone.json}\n  proxy: {kind: proxy, config: gone.yaml}\n" +
		"scenarios:\n  - {name: page, targets_file: gone.txt, rate: 0, workers: \"${n}\", duration: 1s}\nmatrix:\n  n: [4, 16]\n"
	dir := t.TempDir()
	if _, err := Parse("plan.yaml", dir, []byte(plan)); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("Parse of a plan whose files are gone: %v, want a file not found", err)
	}
	p, err := ParseRecord("plan.yaml", dir, []byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 2 || p.Steps[0].Scenarios[0].Users() != 4 || p.Steps[1].Scenarios[0].Users() != 16 {
		t.Fatalf("the record's steps: %+v", p.Steps)
	}
	if sc := p.Steps[0].Scenarios[0]; sc.TargetsFile != filepath.Join(dir, "gone.txt") {
		t.Errorf("targets file %q, want it named as Parse names it", sc.TargetsFile)
	}
	bad := strings.Replace(plan, "workers: \"${n}\"", "workers: \"-1\"", 1)
	if _, err := ParseRecord("plan.yaml", dir, []byte(bad)); err == nil || !strings.Contains(err.Error(), "workers") {
		t.Errorf("ParseRecord of a plan with -1 users: %v, want the workers refused", err)
	}
}
