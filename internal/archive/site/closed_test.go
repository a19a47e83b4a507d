package site

import (
	"context"
	"html"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/compare"
	"github.com/loadlab/loadlab/internal/metrics"
)

// Two real closed-loop run folders (`loadlab run` of a plan with rate: 0
// and workers: N through the playground proxy's 8 workers in front of a
// 50 ms origin, on loopback): a sweep of 4 and 16 users, and 16 users
// alone. Their component paths were made relative; nothing else changed.
const (
	sweepDir   = "testdata/users-4-16"
	sixteenDir = "testdata/users-16"
)

// closedSite is a site over a fresh archive of the two vegeta files
// (paced runs) and the two closed loops, added in that order: run IDs
// by the path added.
func closedSite(t *testing.T) (*httptest.Server, archive.Store, map[string]string) {
	t.Helper()
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ids := map[string]string{}
	for _, p := range []string{"testdata/basic.bin", sweepDir, "testdata/withbody.bin", sixteenDir} {
		bs, _, err := ingest.Bundles(ctx, []string{p}, ingest.Options{})
		if err != nil || len(bs) != 1 {
			t.Fatalf("%s: %d bundles, %v", p, len(bs), err)
		}
		if ids[p], _, err = store.Add(ctx, identified(t, bs[0])); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(New(store, Options{}))
	t.Cleanup(srv.Close)
	return srv, store, ids
}

// loadCell matches an index row's run ID and its load cell (after the
// tick box, ID, start, name and requests).
var loadCell = regexp.MustCompile(`<td><a href="/runs/([^"]+)"><code>[^<]*</code></a></td>\s*<td>[^<]*</td><td><a [^>]*>[^<]*</a></td><td>[^<]*</td><td>([^<]*)</td>`)

// The index's load column is the load `archive list` shows (Run.Load): a
// closed loop's users, a paced run's rate; the page says what it means,
// and sorting by it puts the paced runs by rate, then the closed loops by
// users, as the store orders them (an old ?sort=rate link too).
func TestIndexLoad(t *testing.T) {
	srv, store, ids := closedSite(t)
	ctx := context.Background()
	body := mustGet(t, srv, "/")
	cells := map[string]string{}
	for _, m := range loadCell.FindAllStringSubmatch(body, -1) {
		cells[m[1]] = m[2]
	}
	if len(cells) != 4 {
		t.Fatalf("the index shows %d load cells, want 4: %v", len(cells), cells)
	}
	for p, id := range ids {
		run, err := store.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if cells[id] != run.Load().String() {
			t.Errorf("%s: the index's load %q, archive list's %q", p, cells[id], run.Load())
		}
	}
	if cells[ids[sweepDir]] != "4-16 users" || cells[ids[sixteenDir]] != "16 users" || !strings.HasSuffix(cells[ids["testdata/basic.bin"]], "/s") {
		t.Errorf("load cells: the sweep %q, 16 users %q, a vegeta file %q", cells[ids[sweepDir]], cells[ids[sixteenDir]], cells[ids["testdata/basic.bin"]])
	}
	text := html.UnescapeString(body)
	if !strings.Contains(text, `title="what the run was asked to send: a rate (100/s), or a closed loop's users`) || !strings.Contains(text, "Load is what a run was asked to send") {
		t.Error("the index does not say what its load column means")
	}

	byLoad := func(path string) []string {
		var got []string
		for _, m := range loadCell.FindAllStringSubmatch(mustGet(t, srv, path), -1) {
			got = append(got, m[1])
		}
		return got
	}
	asc := byLoad("/?sort=load&order=asc")
	if len(asc) != 4 || asc[2] != ids[sweepDir] || asc[3] != ids[sixteenDir] {
		t.Errorf("by load, ascending: %v; want the two paced runs, then 4-16 users (%s), then 16 users (%s)", asc, ids[sweepDir], ids[sixteenDir])
	}
	if r0, _ := store.Get(ctx, asc[0]); r0 != nil {
		if r1, _ := store.Get(ctx, asc[1]); r1 != nil && r0.Rate > r1.Rate {
			t.Errorf("the paced runs by load: %v/s before %v/s", r0.Rate, r1.Rate)
		}
	}
	listed, _, err := store.List(ctx, archive.Filter{Sort: "load"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range listed {
		want = append(want, r.ID)
	}
	rev := slices.Clone(asc)
	slices.Reverse(rev)
	for _, path := range []string{"/?sort=load", "/?sort=rate"} {
		if got := byLoad(path); !slices.Equal(got, want) || !slices.Equal(got, rev) {
			t.Errorf("%s: %v, want the store's order %v, the ascending reversed", path, got, want)
		}
	}
	if !strings.Contains(mustGet(t, srv, "/?sort=rate"), `class="on">load ↓`) {
		t.Error("?sort=rate does not mark the load column as the one sorted by")
	}
}

// statRows are the compare tables' rows on a compare page, by section
// title: statistic and the cells after it.
func statRows(t *testing.T, body string) map[string][][]string {
	t.Helper()
	out := map[string][][]string{}
	secs := regexp.MustCompile(`<h2>(Statistics[^<]*)</h2>`).FindAllStringSubmatchIndex(body, -1)
	row := regexp.MustCompile(`<tr><td>[^<]*</td><td>([a-z0-9]+)</td>((?:<td>[^<]*</td>){5})</tr>`)
	for i, s := range secs {
		end := len(body)
		if i+1 < len(secs) {
			end = secs[i+1][0]
		}
		title := body[s[2]:s[3]]
		for _, m := range row.FindAllStringSubmatch(body[s[1]:end], -1) {
			cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(m[2], "<td>"), "</td>"), "</td><td>")
			out[title] = append(out[title], append([]string{m[1]}, cells...))
		}
	}
	return out
}

// The compare page of two closed loops leads with their load and
// throughput, compares their steps by users (the sweep's 16 users with
// the other run's, its 4 users alone), and the 16 users' table starts
// with the throughput row `loadlab compare` computes from the two run
// folders' results files: the same figures, interval and verdict. A
// closed loop against a paced run of one step is judged on throughput
// first too.
func TestCompareClosedLoops(t *testing.T) {
	srv, _, ids := closedSite(t)
	body := html.UnescapeString(mustGet(t, srv, "/compare?ids="+ids[sweepDir]+","+ids[sixteenDir]))
	var figs []string
	for _, m := range regexp.MustCompile(`<tr><td>([a-z0-9 ]+)</td>(?:<td>[^<]*</td>){2}</tr>\n`).FindAllStringSubmatch(body, -1) {
		figs = append(figs, m[1])
	}
	if len(figs) < 4 || figs[0] != "started" || figs[1] != "labels" || figs[2] != "load" || figs[3] != "throughput" || !strings.Contains(body, "<tr><td>load</td><td>4-16 users</td><td>16 users</td></tr>") {
		t.Errorf("the side by side does not lead with load and throughput: %v", figs)
	}
	if !strings.Contains(body, "judged on its throughput first") {
		t.Error("the page does not say a closed loop is judged on its throughput first")
	}
	rows := statRows(t, body)
	got := rows["Statistics: page, 16 users"]
	if len(got) == 0 || got[0][0] != "throughput" {
		t.Fatalf("the 16 users' statistics do not start with throughput: %v (sections %v)", got, slices.Collect(maps.Keys(rows)))
	}
	if _, ok := rows["Statistics: page, 4 users"]; ok || !strings.Contains(body, "page, 4 users") {
		t.Error("the sweep's 4 users are compared, or not said to be alone")
	}

	// loadlab compare's computation over the two folders' results files.
	runs, err := compare.Load(nil, []string{sweepDir, sixteenDir}, compare.LoadOptions{Basis: metrics.FromDue} /* its default */)
	if err != nil {
		t.Fatal(err)
	}
	comps, _, err := compare.CompareGroups(runs, "", compare.Options{Seed: compareSeed, RunLevel: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range comps {
		if c.Report.Group == "page, 16 users" {
			_, cells := c.Report.Table()
			want = cells[0][1:]
		}
	}
	if want == nil || want[0] != "throughput" {
		t.Fatalf("loadlab compare's 16 users: %v", want)
	}
	// The figures are one truth. The interval and verdict rest on time
	// blocks: the archive keeps blocks of 2 s, one for these 1 s steps,
	// too few to judge, where loadlab compare cuts a run shorter than
	// 20 s into 10 blocks of its results.
	if !slices.Equal(got[0][:4], want[:4]) {
		t.Errorf("throughput of 16 users: the page %q, loadlab compare %q", got[0], want)
	}
	if got[0][4] != "-" || got[0][5] != compare.TooShort {
		t.Errorf("throughput of 16 users on the page: %q, want no interval and %q (one archived block a step)", got[0], compare.TooShort)
	}

	// A closed loop of one step against a paced run of one: compared,
	// throughput first.
	body = html.UnescapeString(mustGet(t, srv, "/compare?ids="+ids["testdata/basic.bin"]+","+ids[sixteenDir]))
	if st := statRows(t, body)["Statistics"]; len(st) == 0 || st[0][0] != "throughput" || st[0][2] == "-" {
		t.Errorf("a paced run against 16 users: %v, want the throughput row first, with figures", st)
	}
}

// A closed loop's steps get their users from the run's (one number: every
// step's), and are matched by scenario and users unless two share them;
// a paced run, or a sweep known only by its fewest and most users, has
// none per step.
func TestStepUsers(t *testing.T) {
	steps := func(scenarios ...string) []archive.Step {
		var out []archive.Step
		for i, sc := range scenarios {
			out = append(out, archive.Step{Index: i, Scenario: sc})
		}
		return out
	}
	for _, tc := range []struct {
		users   []int
		steps   []archive.Step
		want    []int
		byUsers bool
	}{
		{nil, steps("page"), nil, false},
		{[]int{16}, steps("page", "page"), []int{16, 16}, false},  // the same users twice: matched by place
		{[]int{16}, steps("page", "search"), []int{16, 16}, true}, // two scenarios of 16 users
		{[]int{4, 16}, steps("page", "page"), []int{4, 16}, true}, // a sweep
		{[]int{4, 32}, steps("page", "page", "page"), nil, false}, // only its fewest and most are known
		{[]int{8, 8, 4, 4}, steps("a", "b", "a", "b"), []int{8, 8, 4, 4}, true},
	} {
		users, byUsers := stepUsers(&archive.Run{Users: tc.users, Steps: tc.steps})
		if !slices.Equal(users, tc.want) || byUsers != tc.byUsers {
			t.Errorf("users %v over %d steps: %v (by users %v), want %v (%v)", tc.users, len(tc.steps), users, byUsers, tc.want, tc.byUsers)
		}
	}
}
