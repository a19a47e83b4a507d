package main

import (
	"cmp"
	"html"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// listLoads is `archive list`'s LOAD column: run ID -> load, in the
// order the runs were listed.
func listLoads(t *testing.T, db string) map[string]string {
	t.Helper()
	code, out, errOut := runCLI(t, nil, "archive", "list", "-db", db)
	if code != 0 {
		t.Fatalf("archive list: exit %d: %s", code, errOut)
	}
	cols := regexp.MustCompile(`\s{2,}`)
	rows := lines(out)
	if len(rows) < 2 || cols.Split(rows[0], -1)[5] != "LOAD" {
		t.Fatalf("archive list has no LOAD column:\n%s", out)
	}
	loads := map[string]string{}
	for _, row := range rows[1:] {
		c := cols.Split(row, -1)
		loads[c[0]] = c[5]
	}
	return loads
}

// indexRow matches a row of the site's index: its run ID and its load
// cell (the sixth, after the tick box, ID, start, name and requests).
var indexRow = regexp.MustCompile(`<tr><td><input[^>]*></td><td><a href="/runs/([^"]+)"><code>[^<]*</code></a></td>\s*<td>[^<]*</td><td><a [^>]*>[^<]*</a></td><td>[^<]*</td><td>([^<]*)</td>`)

// TestArchiveSiteClosedLoops: on the results site (`loadlab archive
// serve`, the real binary) of an archive holding two closed-loop runs
// (a sweep of 4 and 16 users, and 16 users alone, each through the
// playground proxy's 8 workers) and two paced vegeta files, the index's
// load column is `archive list`'s LOAD ("4-16 users", "16 users", the
// paced runs' rates), explained on the page, and sorts the paced runs by
// rate and then the closed loops by users (an old ?sort=rate link sorts
// by it too). The compare page of the two closed loops leads with their
// load and throughput side by side, matches their steps by users, and its
// statistics table for 16 users starts with the throughput row that
// `loadlab compare` prints for the same two run folders: the same
// figures, interval and verdict.
func TestArchiveSiteClosedLoops(t *testing.T) {
	dir := t.TempDir()
	before, _ := sharedClosedLoopFolder(t)
	after, _ := sharedClosedLoopFolder(t, 16)
	db := filepath.Join(dir, "runs.db")
	var added []string
	for _, src := range []string{vegetaVector("basic.bin"), before, vegetaVector("withbody.bin"), after} {
		code, out, errOut := runCLI(t, nil, "archive", "add", "-db", db, src)
		if code != 0 {
			t.Fatalf("archive add %s: exit %d: %s", src, code, errOut)
		}
		added = append(added, lines(out)[len(lines(out))-1])
	}
	beforeID, afterID := added[1], added[3]
	loads := listLoads(t, db)
	if loads[beforeID] != "4-16 users" || loads[afterID] != "16 users" {
		t.Fatalf("archive list's LOAD: the sweep %q, 16 users alone %q", loads[beforeID], loads[afterID])
	}
	_, base := startServe(t, "-db", db, "-listen", "127.0.0.1:0")
	base = strings.TrimSuffix(base, "/")
	page := func(path string) string {
		t.Helper()
		status, body := fetchStatus(t, "GET", base+path)
		if status != 200 {
			t.Fatalf("GET %s: %d %.300s", path, status, body)
		}
		return body
	}

	// The index: the load column, what archive list shows.
	index := page("/")
	rows := indexRow.FindAllStringSubmatch(index, -1)
	if len(rows) != len(added) {
		t.Fatalf("the index lists %d runs (by its row pattern), want %d", len(rows), len(added))
	}
	for _, r := range rows {
		if r[2] != loads[r[1]] {
			t.Errorf("run %s: the index's load %q, archive list's %q", r[1], r[2], loads[r[1]])
		}
	}
	if !strings.Contains(index, `>load</a></th>`) || !strings.Contains(html.UnescapeString(index), "a closed loop's users (4-16 users)") {
		t.Error("the index has no load column, or does not say what it means")
	}

	// By load: the paced runs by rate, then the closed loops by users.
	type key struct {
		closed    bool
		lo, hi    int
		rate      float64
		addedHere int
	}
	keys := map[string]key{}
	for i, id := range added {
		k := key{addedHere: i}
		l := loads[id]
		if u, ok := strings.CutSuffix(l, " users"); ok {
			k.closed = true
			lo, hi, _ := strings.Cut(u, "-")
			k.lo, _ = strconv.Atoi(lo)
			k.hi = k.lo
			if hi != "" {
				k.hi, _ = strconv.Atoi(hi)
			}
		} else {
			var err error
			if k.rate, err = strconv.ParseFloat(strings.TrimSuffix(l, "/s"), 64); err != nil {
				t.Fatalf("run %s: load %q is neither users nor a rate", id, l)
			}
		}
		keys[id] = k
	}
	want := slices.Clone(added)
	slices.SortStableFunc(want, func(a, b string) int {
		ka, kb := keys[a], keys[b]
		if ka.closed != kb.closed {
			if ka.closed {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(ka.lo, kb.lo), cmp.Compare(ka.hi, kb.hi), cmp.Compare(ka.rate, kb.rate), cmp.Compare(ka.addedHere, kb.addedHere))
	})
	order := func(path string) []string {
		var ids []string
		for _, r := range indexRow.FindAllStringSubmatch(page(path), -1) {
			ids = append(ids, r[1])
		}
		return ids
	}
	if got := order("/?sort=load&order=asc"); !slices.Equal(got, want) {
		t.Errorf("by load, ascending: %v, want %v (loads %v)", got, want, loads)
	}
	desc := slices.Clone(want)
	slices.Reverse(desc)
	for _, path := range []string{"/?sort=load", "/?sort=rate"} {
		if got := order(path); !slices.Equal(got, desc) {
			t.Errorf("%s: %v, want %v", path, got, desc)
		}
	}

	// Compare: load and throughput lead the side by side; the 16 users
	// of both are compared, throughput first, as loadlab compare does.
	cmpPage := html.UnescapeString(page("/compare?ids=" + beforeID + "," + afterID))
	var figRows [][]string // the figures' rows, after ID, started and labels
	for _, r := range regexp.MustCompile(`<tr><td>([a-z0-9 ]+)</td>((?:<td>[^<]*</td>){2})</tr>\n`).FindAllStringSubmatch(cmpPage, -1) {
		if r[1] != "started" && r[1] != "labels" {
			figRows = append(figRows, r)
		}
	}
	if len(figRows) < 2 || figRows[0][1] != "load" || figRows[0][2] != "<td>4-16 users</td><td>16 users</td>" || figRows[1][1] != "throughput" {
		t.Errorf("the side by side does not lead with load, then throughput: %q", figRows)
	}
	if !strings.Contains(cmpPage, "Statistics: page, 16 users") || !strings.Contains(cmpPage, "judged on its throughput first") {
		t.Fatalf("the compare page has no statistics of the 16 users, or does not say a closed loop is judged on throughput")
	}
	section := cmpPage[strings.Index(cmpPage, "Statistics: page, 16 users"):]
	statRow := regexp.MustCompile(`<tr><td>[^<]*</td><td>([a-z0-9]+)</td>((?:<td>[^<]*</td>){5})</tr>`)
	first := statRow.FindStringSubmatch(section)
	if first == nil || first[1] != "throughput" {
		t.Fatalf("the 16 users' statistics do not start with throughput: %q", first)
	}
	pageCells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(first[2], "<td>"), "</td>"), "</td><td>")

	code, out, errOut := runCLI(t, nil, "compare", before, after)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	_, group, ok := strings.Cut(out, "== page, 16 users ==")
	if !ok {
		t.Fatalf("loadlab compare has no 16-user group:\n%s", out)
	}
	var cliCells []string
	for _, line := range lines(group) {
		if c := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1); len(c) == 7 && c[1] == "throughput" {
			cliCells = c[2:]
			break
		}
	}
	// The figures are one truth; the interval and verdict are not yet:
	// loadlab compare judges runs by their time blocks, which an archived
	// run (a histogram) does not keep.
	if len(pageCells) < 3 || len(cliCells) < 3 || !slices.Equal(pageCells[:3], cliCells[:3]) {
		t.Errorf("throughput of 16 users: the page says %q, loadlab compare %q", pageCells, cliCells)
	}
	t.Logf("throughput of 16 users, before and after: %q", pageCells)
	if !strings.Contains(cmpPage, "Nothing to compare with") || !strings.Contains(cmpPage, "page, 4 users") {
		t.Error("the sweep's 4 users, which the other run did not try, are not said to be alone")
	}
}
