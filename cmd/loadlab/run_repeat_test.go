package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// TestRunRepeat runs a plan of two cells twice with -repeat 2 against a
// loopback server: the steps go interleaved (cell 1, cell 2, cell 1, cell
// 2), each recording its replicate; loadlab compare of the folder reads
// each cell's two replicates as one side; loadlab archive add labels each
// replicate repeat=1 or repeat=2. A plan that says repeat: and -repeat
// both, and bad counts, exit 2.
func TestRunRepeat(t *testing.T) {
	srv := sleeper(t, 0)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	src := fmt.Sprintf("name: rep\ntarget: %s\nmatrix: {rate: [40, 80]}\nscenarios:\n  - {name: api, target: \"GET ${target}/\", rate: \"${rate}\", duration: 1500ms}\n", srv.URL)
	if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, errOut := runCLI(t, nil, "run", "-quiet", "-repeat", "2", "-out", out, plan)
	if code != 0 {
		t.Fatalf("run -repeat 2: exit %d: %s\n%s", code, errOut, stdout)
	}
	sum, err := summary.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, st := range sum.Steps {
		order = append(order, st.Vars["rate"]+"/"+st.Vars["repeat"])
	}
	if got := strings.Join(order, " "); got != "40/1 80/1 40/2 80/2" {
		t.Fatalf("steps (rate/replicate) %q, want interleaved 40/1 80/1 40/2 80/2", got)
	}

	code, stdout, errOut = runCLI(t, nil, "compare", "-type", "json", out)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	var doc struct {
		Comparisons []struct {
			Runs []struct {
				Name       string `json:"name"`
				Requests   int64  `json:"requests"`
				Replicates int    `json:"replicates"`
			} `json:"runs"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Comparisons) != 1 || len(doc.Comparisons[0].Runs) != 2 {
		t.Fatalf("compare json: %v\n%s", err, stdout)
	}
	for i, r := range doc.Comparisons[0].Runs {
		want := int64(2 * 1.5 * []float64{40, 80}[i])
		if r.Replicates != 2 || !strings.Contains(r.Name, "(2 repeats)") || r.Requests < want*9/10 || r.Requests > want*11/10 {
			t.Errorf("side %d: %+v, want 2 replicates of about %d requests in all", i, r, want)
		}
	}

	db := filepath.Join(dir, "a.db")
	if code, _, errOut := runCLI(t, nil, "archive", "add", "-db", db, out); code != 0 {
		t.Fatalf("archive add: exit %d: %s", code, errOut)
	}
	runs := listJSON(t, db)
	reps := map[string]int{}
	for _, r := range runs {
		reps[r.Labels["repeat"]]++
	}
	if len(runs) != 2 || reps["1"] != 1 || reps["2"] != 1 {
		t.Errorf("archived %d runs, by repeat label %v; want one run per replicate", len(runs), reps)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-check", "-repeat", "0", plan}, "-repeat: want a whole number from 1 to 20, got 0"},
		{[]string{"run", "-check", "-repeat", "2", writePlan(t, dir, src+"repeat: 3\n")}, "-repeat: the plan already repeats its steps (repeat: 3)"},
		{[]string{"run", "-check", writePlan(t, dir, src+"repeat: lots\n")}, `repeat: want a whole number from 1 to 20, got "lots"`},
	} {
		code, _, errOut := runCLI(t, nil, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func writePlan(t *testing.T, dir, src string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "plan-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(src); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
