package summary

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// closedPlan is a plan sweeping a closed loop over 4 and 16 users, as a
// run folder keeps its copy.
const closedPlan = `name: users
target: http://127.0.0.1:9
matrix:
  users: [4, 16]
step_name: "${users} users"
scenarios:
  - {name: page, target: "GET ${target}/page", rate: 0, workers: "${users}", duration: 2s}
`

// oldClosed is summary.json as a loadlab that kept no users wrote it for
// closedPlan (run with the given run_args).
func oldClosed(runArgs string) []byte {
	return []byte(`{"plan": "/gone/plan.yaml", "run_args": ` + runArgs + `, "steps": [
  {"name": "4 users", "scenarios": [{"name": "page", "rate": "0", "requests": 160}]},
  {"name": "16 users", "scenarios": [{"name": "page", "rate": "0", "requests": 320}]}]}`)
}

func usersOf(s *Summary) []int {
	var users []int
	for _, st := range s.Steps {
		for _, sc := range st.Scenarios {
			users = append(users, sc.Users)
		}
	}
	return users
}

// An old summary of a closed loop reads with its users, from the plan's
// copy (the plan's own files gone); without a copy they stay unknown.
func TestParseFillsOldClosedLoopUsersFromThePlanCopy(t *testing.T) {
	copyOf := func(name string) ([]byte, error) {
		if name != "plan.yaml" {
			t.Errorf("read %q, want the plan's copy plan.yaml", name)
		}
		return []byte(closedPlan), nil
	}
	s, err := Parse(oldClosed(`["plan.yaml"]`), copyOf)
	if err != nil {
		t.Fatal(err)
	}
	if got := usersOf(s); len(got) != 2 || got[0] != 4 || got[1] != 16 {
		t.Errorf("users %v, want [4 16]", got)
	}
	if l := s.Steps[1].Scenarios[0].Load().String(); l != "16 users" {
		t.Errorf("load %q, want 16 users", l)
	}

	// The run's -set applied again: one step of 8 users.
	one := []byte(`{"plan": "/gone/plan.yaml", "run_args": ["-set", "users=8", "plan.yaml"], "steps": [
  {"name": "8 users", "scenarios": [{"name": "page", "rate": "0"}]}]}`)
	if s, err := Parse(one, copyOf); err != nil || usersOf(s)[0] != 8 {
		t.Errorf("with -set users=8: users %v, %v; want [8]", usersOf(s), err)
	}

	noCopy := func(string) ([]byte, error) { return nil, fs.ErrNotExist }
	if s, err := Parse(oldClosed(`["plan.yaml"]`), noCopy); err != nil || usersOf(s)[0] != 0 {
		t.Errorf("without a plan copy: users %v, %v; want unknown (0)", usersOf(s), err)
	}
}

// A summary that kept its users, or a paced run, is read as written: the
// plan's copy is not read.
func TestParseReadsNoPlanForNewOrPacedSummaries(t *testing.T) {
	never := func(name string) ([]byte, error) {
		t.Errorf("read %s for a summary that needs nothing from it", name)
		return nil, errors.New("not read")
	}
	for _, data := range []string{
		`{"plan": "p.yaml", "steps": [{"name": "4 users", "scenarios": [{"name": "page", "rate": "0", "users": 4}]}]}`,
		`{"plan": "p.yaml", "steps": [{"name": "40/s", "scenarios": [{"name": "page", "rate": "40/s"}]}]}`,
	} {
		if _, err := Parse([]byte(data), never); err != nil {
			t.Fatal(err)
		}
	}
}

// Load reads a run folder's summary with its plan copy.
func TestLoadFillsUsersFromTheFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, File), oldClosed(`["plan.yaml"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(closedPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := usersOf(s); got[0] != 4 || got[1] != 16 {
		t.Errorf("users %v, want [4 16]", got)
	}
}
