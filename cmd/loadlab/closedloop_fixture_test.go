package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// closedLoopFolder runs a short closed-loop sweep for real: each number
// of users (rate: 0, workers: N; 4 and 16 when none is given), 1 s each,
// through the playground proxy's 8 workers in front of a 50 ms origin,
// this binary as the components. The plan and the files it names are in
// dir/plan, the run folder is dir/out; it returns the folder and its
// summary.
func closedLoopFolder(t *testing.T, dir string, users ...int) (string, *summary.Summary) {
	t.Helper()
	if len(users) == 0 {
		users = []int{4, 16}
	}
	return closedLoopRun(t, dir, users, nil, users)
}

// closedLoopRun is closedLoopFolder's run of a plan whose matrix lists
// planUsers, made with the -set overrides set (NAME=VALUE), whose steps
// ran the users ran.
func closedLoopRun(t *testing.T, dir string, planUsers []int, set []string, users []int) (string, *summary.Summary) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts processes and runs 2 s of load")
	}
	planDir, out := filepath.Join(dir, "plan"), filepath.Join(dir, "out")
	if err := os.MkdirAll(planDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, n := range planUsers {
		list = append(list, strconv.Itoa(n))
	}
	writeFiles(t, planDir, map[string]string{"proxy.yaml": closedWaitProxy, "origin.json": closedOrigin, "plan.yaml": `name: users
components:
  origin: {kind: origin, recipe: origin.json}
  proxy: {kind: proxy, config: proxy.yaml}
matrix:
  users: [` + strings.Join(list, ", ") + `]
step_name: "${users} users"
scenarios:
  - {name: page, target: "GET ${proxy.url}/page", rate: 0, workers: "${users}", duration: 1s, timeout: 5s}
`})
	t.Setenv(asBinaryEnv, "1")
	args := []string{"run", "-quiet", "-out", out}
	for _, o := range set {
		args = append(args, "-set", o)
	}
	if code, _, stderr := runCLI(t, nil, append(args, filepath.Join(planDir, "plan.yaml"))...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	sum, err := summary.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Steps) != len(users) {
		t.Fatalf("%d steps, want %d", len(sum.Steps), len(users))
	}
	for i, st := range sum.Steps {
		if sc := st.Scenarios[0]; sc.Users != users[i] || sc.Requests == 0 || sc.Throughput == 0 {
			t.Fatalf("step %q: %d users, %d requests, want %d users", st.Name, sc.Users, sc.Requests, users[i])
		}
	}
	return out, sum
}

// dropUsers rewrites the summary.json of the run folder out as a loadlab
// that kept no closed loop's users wrote it.
func dropUsers(t *testing.T, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, summary.File))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, st := range raw["steps"].([]any) {
		for _, sc := range st.(map[string]any)["scenarios"].([]any) {
			delete(sc.(map[string]any), "users")
		}
	}
	old, _ := json.MarshalIndent(raw, "", "  ")
	if err := os.WriteFile(filepath.Join(out, summary.File), old, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sharedClosed holds closedLoopFolder's runs made once per test binary,
// by their users ("4,16"), for the tests that only read the folder; tests
// that change the folder or remove the plan's files make their own.
var sharedClosed struct {
	mu   sync.Mutex
	dir  string // removed by removeSharedFixtures
	runs map[string]*sharedRun
}

// sharedRun is one shared closed-loop run, made by the first test that
// asks for it.
type sharedRun struct {
	once   sync.Once
	out    string
	sum    *summary.Summary
	failed bool
}

// sharedClosedLoopFolder is closedLoopFolder (4 and 16 users when none is
// given) made once per test binary: it returns the shared run folder and
// its summary, making them on first use. The caller must not change either,
// and must not be a parallel test (the run sets asBinaryEnv with
// t.Setenv).
func sharedClosedLoopFolder(t *testing.T, users ...int) (string, *summary.Summary) {
	t.Helper()
	if len(users) == 0 {
		users = []int{4, 16}
	}
	var list []string
	for _, n := range users {
		list = append(list, strconv.Itoa(n))
	}
	key := strings.Join(list, ",")
	s := &sharedClosed
	s.mu.Lock()
	if s.runs == nil {
		s.runs = map[string]*sharedRun{}
	}
	r := s.runs[key]
	if r == nil {
		r = &sharedRun{}
		s.runs[key] = r
	}
	s.mu.Unlock()
	r.once.Do(func() {
		r.failed = true // until the run is made and checked
		s.mu.Lock()
		if s.dir == "" {
			dir, err := os.MkdirTemp("", "loadlab-closed-loops-")
			if err != nil {
				s.mu.Unlock()
				t.Fatal(err)
			}
			s.dir = dir
		}
		dir := filepath.Join(s.dir, key+"-users")
		s.mu.Unlock()
		r.out, r.sum = closedLoopFolder(t, dir, users...)
		r.failed = false
	})
	if r.failed {
		if testing.Short() {
			t.Skip("starts processes and runs 2 s of load")
		}
		t.Fatalf("the shared closed-loop run of %s users could not be made: see the first test that asked for it", key)
	}
	return r.out, r.sum
}

// closedLoopFolderCopy is a copy of the shared closed-loop run of 4 and 16
// users (sharedClosedLoopFolder) in dir: its plan in dir/plan, its run
// folder in dir/out, for a test that changes them; it returns the copy's
// folder and summary. One real run serves every test that needs that run,
// instead of one run each.
func closedLoopFolderCopy(t *testing.T, dir string) (string, *summary.Summary) {
	t.Helper()
	shared, _ := sharedClosedLoopFolder(t)
	out := filepath.Join(dir, "out")
	for _, sub := range []string{"plan", "out"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(filepath.Dir(shared), sub))); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := summary.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// removeSharedFixtures removes what the tests shared, once they are done.
func removeSharedFixtures() {
	if sharedClosed.dir != "" {
		os.RemoveAll(sharedClosed.dir)
	}
}
