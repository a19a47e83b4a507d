package site

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	_ "github.com/loadlab/loadlab/internal/archive/sqlstore"
	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/results"
)

// The archive every test reads: a real SQLite file filled by the real
// ingest from real runs: the regression hunt's run folder (six builds of
// one page at 100/s, one archived run per build, labelled build=...) and
// two results files vegeta wrote (basic.bin, withbody.bin).
var (
	fixOnce sync.Once
	fixDir  string
	fixErr  error
	fix     struct {
		store  archive.Store
		builds map[string]string // build label -> run ID
		basic  string            // the run of basic.bin
		body   string            // the run of withbody.bin
		paths  map[string]string // run ID -> the file it was added from (the results runs)
	}
)

const huntDir = "../ingest/testdata/regression-hunt"

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.store != nil {
		fix.store.Close()
	}
	if fixDir != "" {
		os.RemoveAll(fixDir)
	}
	os.Exit(code)
}

func fixture(t *testing.T) {
	t.Helper()
	fixOnce.Do(func() {
		ctx := context.Background()
		if fixDir, fixErr = os.MkdirTemp("", "archive-site-test-"); fixErr != nil {
			return
		}
		if fix.store, fixErr = archive.Open(ctx, filepath.Join(fixDir, "runs.db")); fixErr != nil {
			return
		}
		fix.builds, fix.paths = map[string]string{}, map[string]string{}
		bs, _, err := ingest.Bundles(ctx, []string{huntDir}, ingest.Options{})
		if err != nil {
			fixErr = err
			return
		}
		for _, b := range bs {
			id, _, err := fix.store.Add(ctx, identified(t, b))
			if err != nil {
				fixErr = err
				return
			}
			fix.builds[b.Run.Labels["build"]] = id
		}
		for _, f := range []struct {
			path string
			to   *string
		}{{"testdata/basic.bin", &fix.basic}, {"testdata/withbody.bin", &fix.body}} {
			bs, _, err := ingest.Bundles(ctx, []string{f.path}, ingest.Options{Labels: map[string]string{"source": "vegeta"}})
			if err != nil {
				fixErr = err
				return
			}
			if *f.to, _, fixErr = fix.store.Add(ctx, identified(t, bs[0])); fixErr != nil {
				return
			}
			fix.paths[*f.to] = f.path
		}
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	if len(fix.builds) != 6 {
		t.Fatalf("the regression hunt's folder gave %d runs, want one per build (6): %v", len(fix.builds), fix.builds)
	}
}

// serve starts the site on a loopback port.
func serve(t *testing.T, o Options) *httptest.Server {
	t.Helper()
	fixture(t)
	srv := httptest.NewServer(New(fix.store, o))
	t.Cleanup(srv.Close)
	return srv
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get fetches path and returns the status and body.
func get(t *testing.T, srv *httptest.Server, method, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func mustGet(t *testing.T, srv *httptest.Server, path string) string {
	t.Helper()
	resp, body := get(t, srv, "GET", path, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %.300s", path, resp.Status, body)
	}
	return body
}

var idCell = regexp.MustCompile(`<td><a href="/runs/([^"]+)"><code>`)

// listed is the run IDs of an index page, in order.
func listed(body string) []string {
	var ids []string
	for _, m := range idCell.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestIndex(t *testing.T) {
	srv := serve(t, Options{})
	ctx := context.Background()
	all, total, err := fix.store.List(ctx, archive.Filter{})
	if err != nil || total != 8 {
		t.Fatalf("the archive lists %d runs (%v), want 8", total, err)
	}
	body := mustGet(t, srv, "/")
	ids := listed(body)
	var want []string
	for _, r := range all {
		want = append(want, r.ID)
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("index lists %v, want the store's newest-first order %v", ids, want)
	}
	if !strings.Contains(body, "runs 1–8 of 8") {
		t.Error("index does not say how many runs")
	}
	// A label filter, as a label link makes it.
	body = mustGet(t, srv, "/?label=build%3D2020-02-04")
	if got := listed(body); len(got) != 1 || got[0] != fix.builds["2020-02-04"] {
		t.Errorf("label filter: %v, want the 04 Feb build's run %s", got, fix.builds["2020-02-04"])
	}
	// A name filter: the vegeta files' runs are named after them.
	if got := listed(mustGet(t, srv, "/?name=withbody")); len(got) != 1 || got[0] != fix.body {
		t.Errorf("name filter: %v, want %s", got, fix.body)
	}
	// Sorted by p99, slowest first, as the store orders it.
	sorted, _, _ := fix.store.List(ctx, archive.Filter{Sort: "p99"})
	if got := listed(mustGet(t, srv, "/?sort=p99")); len(got) != 8 || got[0] != sorted[0].ID || got[7] != sorted[7].ID {
		t.Errorf("sort=p99: %v", got)
	}
	// Paging: 3 a page, the third page holds the last two, with a link back.
	var paged []string
	for p := 1; p <= 3; p++ {
		body := mustGet(t, srv, fmt.Sprintf("/?per=3&page=%d", p))
		paged = append(paged, listed(body)...)
		if p < 3 && !strings.Contains(body, fmt.Sprintf(`href="/?page=%d&amp;per=3" rel="next"`, p+1)) {
			t.Errorf("page %d has no link to the next", p)
		}
		if p == 3 && (strings.Contains(body, `rel="next"`) || !strings.Contains(body, `rel="prev"`)) {
			t.Error("the last page links to a next page, or not back")
		}
	}
	if strings.Join(paged, " ") != strings.Join(want, " ") {
		t.Errorf("three pages list %v, want %v", paged, want)
	}
	for _, bad := range []string{"/?sort=colour", "/?order=up", "/?page=0", "/?per=100000", "/?label=novalue", "/?label=%3Dx"} {
		if resp, body := get(t, srv, "GET", bad, nil); resp.StatusCode != http.StatusBadRequest || strings.Count(strings.TrimSpace(body), "\n") > 0 {
			t.Errorf("GET %s: %s %q, want 400 and one line", bad, resp.Status, body)
		}
	}
}

func TestRunPage(t *testing.T) {
	srv := serve(t, Options{})
	ctx := context.Background()
	id := fix.builds["2020-02-04"]
	run, err := fix.store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	body := mustGet(t, srv, "/runs/"+id)
	for _, want := range []string{
		"Requests      [total, rate, throughput]", // the stored vegeta-style text report
		"Latency by percentile",                   // the plot beside it, from the stored histogram
		"/runs/" + id + "/archive.tar",
		"/runs/" + id + "/results.bin?scenario=page&amp;step=3", // 04 Feb is the fourth step of the folder
		"build=2020-02-04",
		fmtDur(run.Latencies.P99), // the summary table
		`<div class="side">`,
		"step 4/6 started: build 2020-02-04", // the log of when each step started
		"name: regression-hunt",              // the plan
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	if !strings.Contains(body, "CPU usage") && !strings.Contains(body, "Memory (RSS)") {
		t.Error("the run page has no sampled server metrics (the folder has samples.json)")
	}
	// By slug: a permanent redirect to the ID's address.
	resp, _ := get(t, srv, "GET", "/runs/"+run.Slug, nil)
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/runs/"+id {
		t.Errorf("by slug %s: %s to %q", run.Slug, resp.Status, resp.Header.Get("Location"))
	}
	// A run that does not exist.
	for _, p := range []string{"/runs/nosuchrun", "/runs/nosuchrun/archive.tar", "/runs/nosuchrun/results.bin", "/runs/x-" + id + "x"} {
		if resp, _ := get(t, srv, "GET", p, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", p, resp.Status)
		}
	}
	// HEAD answers as GET does, without a body.
	if resp, body := get(t, srv, "HEAD", "/runs/"+id, nil); resp.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD: %s, %d bytes", resp.Status, len(body))
	}
	// A vegeta file's run: one step, its report and plot.
	body = mustGet(t, srv, "/runs/"+fix.basic)
	if !strings.Contains(body, "Latency by percentile") || !strings.Contains(body, "/runs/"+fix.basic+"/results.bin?") {
		t.Error("the run page of a vegeta file lacks its plot or its .bin link")
	}
}

func TestReadOnly(t *testing.T) {
	srv := serve(t, Options{})
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		for _, p := range []string{"/", "/runs/" + fix.basic, "/compare"} {
			resp, _ := get(t, srv, m, p, nil)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %s (Allow %q), want 405", m, p, resp.Status, resp.Header.Get("Allow"))
			}
		}
	}
	resp, _ := get(t, srv, "GET", "/", nil)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
}

func TestHostAndCrossSite(t *testing.T) {
	srv := serve(t, Options{Hosts: []string{"lab.internal"}})
	for host, want := range map[string]int{
		"":                     http.StatusOK,
		"localhost:8095":       http.StatusOK,
		"lab.internal:8095":    http.StatusOK,
		"rebind.attacker.test": http.StatusForbidden, // a name that resolves to 127.0.0.1
		"evil.example:8095":    http.StatusForbidden,
	} {
		h := map[string]string{}
		if host != "" {
			h["Host"] = host
		}
		if resp, _ := get(t, srv, "GET", "/", h); resp.StatusCode != want {
			t.Errorf("Host %q: %s, want %d", host, resp.Status, want)
		}
	}
	// A page of another site may link to a run, but not fetch or embed it.
	link := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
	if resp, _ := get(t, srv, "GET", "/runs/"+fix.basic, link); resp.StatusCode != http.StatusOK {
		t.Errorf("a link from another site: %s", resp.Status)
	}
	for _, h := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"},
		{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},
		{"Origin": "http://evil.example"},
	} {
		if resp, _ := get(t, srv, "GET", "/runs/"+fix.basic+"/archive.tar", h); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%v: %s, want 403", h, resp.Status)
		}
	}
}

func TestToken(t *testing.T) {
	const token = "s3cret-token"
	srv := serve(t, Options{Token: token})
	if resp, _ := get(t, srv, "GET", "/", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %s", resp.Status)
	}
	if resp, _ := get(t, srv, "GET", "/?token=wrong", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %s", resp.Status)
	}
	// The token in the URL sets the cookie and is dropped from the address.
	resp, _ := get(t, srv, "GET", "/runs/"+fix.basic+"?token="+token, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/runs/"+fix.basic {
		t.Fatalf("the token in the URL: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == tokenCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite strict", cookie)
	}
	// With the cookie or a bearer token, any Host (the site is meant to
	// be reached by name beyond loopback).
	if resp, _ := get(t, srv, "GET", "/", map[string]string{"Cookie": tokenCookie + "=" + token, "Host": "lab.example:8095"}); resp.StatusCode != http.StatusOK {
		t.Errorf("with the cookie: %s", resp.Status)
	}
	if resp, _ := get(t, srv, "GET", "/", map[string]string{"Authorization": "Bearer " + token}); resp.StatusCode != http.StatusOK {
		t.Errorf("with a bearer token: %s", resp.Status)
	}
	if resp, _ := get(t, srv, "GET", "/", map[string]string{"Cookie": tokenCookie + "=nope"}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("with a wrong cookie: %s", resp.Status)
	}
	// Still read-only with the token.
	if resp, _ := get(t, srv, "POST", "/", map[string]string{"Authorization": "Bearer " + token}); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST with the token: %s", resp.Status)
	}
}

func TestTar(t *testing.T) {
	srv := serve(t, Options{})
	ctx := context.Background()
	id := fix.builds["2020-01-09"]
	run, _ := fix.store.Get(ctx, id)
	files, err := fix.store.Files(ctx, id)
	if err != nil || len(files) == 0 {
		t.Fatalf("files: %v %v", files, err)
	}
	resp, body := get(t, srv, "GET", "/runs/"+id+"/archive.tar", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-tar" {
		t.Fatalf("tar: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	tr := tar.NewReader(strings.NewReader(body))
	got := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the tar: %v", err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = b
	}
	if len(got) != len(files) {
		t.Errorf("the tar holds %d files, the run %d", len(got), len(files))
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
		b, ok := got[run.Slug+"/"+f.Name]
		if !ok {
			t.Errorf("%s is not in the tar (under %s/)", f.Name, run.Slug)
			continue
		}
		// Files copied from the folder are byte for byte what is on disk.
		if disk, err := os.ReadFile(filepath.Join(huntDir, f.Name)); err == nil && f.Name != "samples.json" && f.Name != "samples.csv" && !bytes.Equal(disk, b) {
			t.Errorf("%s differs from the folder's", f.Name)
		}
		if int64(len(b)) != f.Size {
			t.Errorf("%s: %d bytes, listed %d", f.Name, len(b), f.Size)
		}
	}
	sort.Strings(names)
	if !strings.Contains(strings.Join(names, " "), "steps/01-build-2020-01-09/page.lll") || !strings.Contains(strings.Join(names, " "), "summary.json") {
		t.Errorf("the tar lacks the results stream or the summary: %v", names)
	}
}

// readBin decodes a .bin answer with results' gob decoder (vegeta's
// format) and returns the latencies in order.
func readBin(t *testing.T, body string) []int64 {
	t.Helper()
	dec := results.NewGobDecoder(strings.NewReader(body))
	var out []int64
	var r results.Result
	for {
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding the .bin after %d results: %v", len(out), err)
		}
		out = append(out, int64(r.Latency))
	}
}

// readFile reads a results file's latencies in order.
func readFile(t *testing.T, path string) []int64 {
	t.Helper()
	src, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out []int64
	var r results.Result
	for {
		err := src.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, int64(r.Latency))
	}
}

func TestResultsBin(t *testing.T) {
	srv := serve(t, Options{})
	// A vegeta file's run: the .bin holds its results, as vegeta wrote them.
	resp, body := get(t, srv, "GET", "/runs/"+fix.basic+"/results.bin", nil)
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), ".bin") {
		t.Fatalf("results.bin: %s %q", resp.Status, resp.Header.Get("Content-Disposition"))
	}
	if got, want := readBin(t, body), readFile(t, fix.paths[fix.basic]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the .bin holds %d results, the file %d (or they differ)", len(got), len(want))
	}
	// A run folder's step: its scenario's results stream.
	id := fix.builds["2020-02-04"]
	run, _ := fix.store.Get(context.Background(), id)
	st := run.Steps[0]
	resp, body = get(t, srv, "GET", fmt.Sprintf("/runs/%s/results.bin?step=%d&scenario=page", id, st.Index), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("a step's .bin: %s %s", resp.Status, body)
	}
	got := readBin(t, body)
	if want := readFile(t, filepath.Join(huntDir, "steps/04-build-2020-02-04/page.lll")); len(got) != len(want) || uint64(len(got)) != st.Requests {
		t.Errorf("the step's .bin holds %d results, its stream %d, its figures %d", len(got), len(want), st.Requests)
	}
	for q, want := range map[string]int{"?step=x": 400, "?step=99": 404, "?step=3&scenario=nope": 404} {
		if resp, _ := get(t, srv, "GET", "/runs/"+id+"/results.bin"+q, nil); resp.StatusCode != want {
			t.Errorf("results.bin%s: %s, want %d", q, resp.Status, want)
		}
	}
}

func TestCompare(t *testing.T) {
	srv := serve(t, Options{})
	// The regression hunt's healthy 3 Feb build against the 4 Feb one: compare's table, p50 slower.
	a, b := fix.builds["2020-02-03"], fix.builds["2020-02-04"]
	body := mustGet(t, srv, "/compare?ids="+a+","+b)
	for _, want := range []string{"99% CI", "Baseline:", "/runs/" + a, "/runs/" + b, "Latency by percentile", "bootstrap of its time blocks"} {
		if !strings.Contains(body, want) {
			t.Errorf("the compare page lacks %q", want)
		}
	}
	row := regexp.MustCompile(`<tr><td>[^<]*</td><td>p50</td>(?:<td>[^<]*</td>){4}<td>([^<]*)</td></tr>`).FindStringSubmatch(body)
	if row == nil || row[1] != "slower" {
		t.Errorf("p50 of 4 Feb against 3 Feb: %v, want slower", row)
	}
	// The same form with id= repeated (the index's checkboxes): runs of
	// one step are compared whatever their scenario (a vegeta file's run
	// with a run folder's step).
	body = html.UnescapeString(mustGet(t, srv, "/compare?id="+a+"&id="+b+"&id="+fix.basic))
	if !regexp.MustCompile(`Requests: [^.]* 800, [^.]* 800, basic 1000`).MatchString(body) {
		t.Errorf("three runs of one step are not compared together: %s", regexp.MustCompile(`Requests: [^<]*`).FindString(body))
	}
	if resp, _ := get(t, srv, "GET", "/compare?ids="+a, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("one run: %s, want 400", resp.Status)
	}
	if resp, _ := get(t, srv, "GET", "/compare?ids="+a+",nosuchrun", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown run: %s, want 404", resp.Status)
	}
	mustGet(t, srv, "/compare") // the empty form
}

// trendPage fetches a trend page, reloading it (as the browser does)
// while its change points are being computed, for 2 minutes at most.
func trendPage(t *testing.T, srv *httptest.Server, path string) string {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		body := mustGet(t, srv, path)
		if !strings.Contains(body, "This page reloads by itself") {
			return html.UnescapeString(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the change points were not computed within 2 minutes", path)
		}
	}
}

func TestTrend(t *testing.T) {
	fixture(t)
	h := New(fix.store, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := trendPage(t, srv, "/trend?by=build&metric=p95")
	// The page shows what `loadlab archive trend` computes (package
	// trend, kept by the page's cache). The hunt's runs were made on a
	// loaded machine: the three before 04 Feb are noisy (their own lag a
	// third to two thirds of their p99), one run per build, so the
	// verdicts over runs cannot show the change at 04 Feb the requests
	// suggest. The newest build (17 Feb, p99 2.5 s and timeouts) is judged
	// against the clean runs since the start (04 and 05 Feb), from its time
	// blocks: a regression. The page says which runs were noisy and what
	// the newest build's verdict is. (TestTrendChanges draws a change
	// found.)
	var want *trend.Trend
	h.trends.mu.Lock()
	for _, tr := range h.trends.entries {
		want = tr
	}
	h.trends.mu.Unlock()
	if want == nil || want.Metric != trend.P95 || len(want.Points) != 6 || want.Gate == nil || !want.Gate.Regression ||
		!strings.Contains(want.Gate.Text, "left out 3 noisy runs") {
		t.Fatalf("the trend of the hunt: %+v; want 6 points and the newest build a regression, 3 noisy runs left out (gate %+v)", want, want.Gate)
	}
	for _, w := range []string{"Newest: " + want.Gate.Text, `title="noisy: its own schedule lag p99`} {
		if !strings.Contains(body, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	for _, c := range want.Changes {
		if !strings.Contains(body, trend.Describe(want, c)) {
			t.Errorf("the page does not state %q", trend.Describe(want, c))
		}
	}
	var order []string
	for _, m := range regexp.MustCompile(`<tr(?: class="bad")?><td>\d+</td><td>([0-9-]+)`).FindAllStringSubmatch(body, -1) {
		order = append(order, m[1])
	}
	builds := []string{"2020-01-09", "2020-01-30", "2020-02-03", "2020-02-04", "2020-02-05", "2020-02-17"}
	if strings.Join(order, " ") != strings.Join(builds, " ") {
		t.Errorf("points listed %v, want by build %v", order, builds)
	}
	if !strings.Contains(body, "window.LOADLAB_TREND") {
		t.Error("the trend page has no chart")
	}
	// Every point links to its run.
	for b, id := range fix.builds {
		if !strings.Contains(body, `"/runs/`+id+`"`) {
			t.Errorf("no link to %s's run", b)
		}
	}
	// Without by: by start time, every run (the vegeta files' too).
	if body := trendPage(t, srv, "/trend?metric=success"); !strings.Contains(body, "8 runs, ordered by start time") {
		t.Error("the trend by time does not hold every run")
	}
	if body := trendPage(t, srv, "/trend?by=nosuchlabel"); !strings.Contains(body, `has the label "nosuchlabel"`) {
		t.Error("a label no run has is not explained")
	}
	if resp, body := get(t, srv, "GET", "/trend?metric=p42", nil); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "metric: unknown metric") {
		t.Errorf("an unknown metric: %s %q", resp.Status, body)
	}
}

func FuzzQueries(f *testing.F) {
	for _, s := range []string{"sort=p99&order=asc&page=2&per=3", "label=a%3Db+c%3Dd&name=x", "label=%3D", "page=-1", "per=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		lq, err := parseListQuery(q)
		if err != nil {
			return
		}
		if lq.Page < 1 || lq.Per < 1 || lq.Per > maxPerPage {
			t.Fatalf("%q: page %d per %d", raw, lq.Page, lq.Per)
		}
		// The links the page makes parse back to the same query.
		u := lq.url(nil)
		_, rawq, _ := strings.Cut(u, "?")
		q2, err := url.ParseQuery(rawq)
		if err != nil {
			t.Fatalf("%q: link %q does not parse: %v", raw, u, err)
		}
		back, err := parseListQuery(q2)
		if err != nil || fmt.Sprint(back) != fmt.Sprint(lq) {
			t.Fatalf("%q: link %q reads back as %+v (%v), want %+v", raw, u, back, err, lq)
		}
	})
}

// The trend page keeps what it computed until a run is added.
func TestTrendFollowsAdds(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	add := func(path, build string) {
		var labels map[string]string
		if build != "" {
			labels = map[string]string{"build": build}
		}
		bs, _, err := ingest.Bundles(ctx, []string{path}, ingest.Options{Labels: labels})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if _, _, err := store.Add(ctx, identified(t, b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("testdata/basic.bin", "1")
	add("testdata/withbody.bin", "2")
	h := New(store, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for i := 0; i < 2; i++ { // computed, then from the cache
		if body := trendPage(t, srv, "/trend?by=build&metric=success"); !strings.Contains(body, "2 runs, ordered by build") {
			t.Fatalf("fetch %d: the trend of two runs: %.200s", i+1, body)
		}
	}
	add(huntDir, "") // six runs labelled build=2020-...
	// A page that cannot wait says the change points are being found,
	// and reloads until they are.
	h.trends.wait = time.Nanosecond
	resp, body := get(t, srv, "GET", "/trend?by=build&metric=success", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Refresh") != "5" || !strings.Contains(body, "This page reloads by itself") {
		t.Errorf("a trend being computed: %s, Refresh %q", resp.Status, resp.Header.Get("Refresh"))
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		body := mustGet(t, srv, "/trend?by=build&metric=success")
		if strings.Contains(body, "8 runs, ordered by build") && strings.Contains(body, "2020-02-04") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the trend did not follow the runs added within 2 minutes")
		}
	}
}

func TestDisplayNames(t *testing.T) {
	runs := []*archive.Run{
		{ID: "a1", Name: "hunt", Labels: map[string]string{"build": "01", "team": "x"}},
		{ID: "b2", Name: "hunt", Labels: map[string]string{"build": "02", "team": "x"}},
		{ID: "c3", Name: "news", Labels: map[string]string{"build": "02"}},
		{ID: "d4", Name: "news", Labels: map[string]string{"build": "02"}},
		{ID: "e5", Name: "", Labels: nil},
	}
	got := displayNames(runs)
	want := []string{"hunt build=01", "hunt build=02", "news", "news d4", "e5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("display names %q, want %q", got, want)
	}
}
