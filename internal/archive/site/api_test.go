package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/archive/trend"
	"github.com/loadlab/loadlab/internal/compare"
)

// apiGet fetches an API path until it is computed (202 while a trend is).
func apiGet(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		resp, body := get(t, srv, "GET", path, nil)
		if resp.StatusCode != http.StatusAccepted {
			return resp.StatusCode, body
		}
		if resp.Header.Get("Retry-After") == "" || time.Now().After(deadline) {
			t.Fatalf("%s: %s without Retry-After, or not computed in 2 minutes", path, resp.Status)
		}
	}
}

// The API serves list, show and trend in the command line's JSON shapes.
func TestAPI(t *testing.T) {
	srv := serve(t, Options{})
	ctx := context.Background()

	code, body := apiGet(t, srv, "/api/runs?label=build%3D2020-02-04")
	var runs []archive.Run
	if err := json.Unmarshal([]byte(body), &runs); err != nil || code != 200 || len(runs) != 1 || runs[0].ID != fix.builds["2020-02-04"] {
		t.Fatalf("/api/runs: %d %v %.300s", code, err, body)
	}
	want, _, err := fix.store.List(ctx, archive.Filter{Sort: "p99", Asc: true, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	code, body = apiGet(t, srv, "/api/runs?sort=p99&asc=1&limit=3")
	wantJSON, _ := json.MarshalIndent(want, "", "  ")
	if code != 200 || strings.TrimSpace(body) != string(wantJSON) {
		t.Errorf("/api/runs?sort=p99: %d\n%s\nwant\n%s", code, body, wantJSON)
	}
	if code, body := apiGet(t, srv, "/api/runs?limit=-1"); code != 400 || !strings.Contains(body, "limit") {
		t.Errorf("limit=-1: %d %s", code, body)
	}

	id := fix.builds["2020-02-04"]
	code, body = apiGet(t, srv, "/api/runs/"+id)
	var d archive.RunDetail
	if err := json.Unmarshal([]byte(body), &d); err != nil || code != 200 || d.Run == nil || d.ID != id || len(d.Steps) == 0 || len(d.Files) == 0 {
		t.Fatalf("/api/runs/ID: %d %v %.300s", code, err, body)
	}
	if code, _ := apiGet(t, srv, "/api/runs/nosuchrun"); code != 404 {
		t.Errorf("unknown run: %d", code)
	}

	// the trend: byte for byte what trend -type json writes
	code, body = apiGet(t, srv, "/api/trend?by=build&metric=p95")
	tr, err := trend.Compute(ctx, fix.store, trend.Options{Metric: trend.P95, By: "build"})
	if err != nil {
		t.Fatal(err)
	}
	var wantTrend bytes.Buffer
	if err := trend.WriteJSON(&wantTrend, tr); err != nil {
		t.Fatal(err)
	}
	if code != 200 || body != wantTrend.String() || !strings.Contains(body, `"gate"`) {
		t.Errorf("/api/trend: %d\n%.500s\nwant\n%.500s", code, body, wantTrend.String())
	}
	code, body = apiGet(t, srv, "/api/trend?by=build&metric=p95&last=2")
	var got struct {
		Points []struct {
			Label string `json:"label"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || code != 200 || len(got.Points) != 2 || got.Points[0].Label != "2020-02-05" {
		t.Errorf("last=2: %d %v %.300s", code, err, body)
	}
	for path, wantErr := range map[string]string{
		"/api/trend?by=comit&metric=p95":              `no run is labelled "comit"`,
		"/api/trend?by=build&metric=p42":              "unknown metric",
		"/api/trend?by=build&metric=p95&since=nope":   "no run is labelled build=nope",
		"/api/trend?by=build&metric=p95&last=several": "last",
	} {
		if code, body := apiGet(t, srv, path); code != 400 || !strings.Contains(body, wantErr) {
			t.Errorf("%s: %d %q, want 400 with %q", path, code, body, wantErr)
		}
	}
}

// -link: label values link to where they come from, path-escaped, and
// only http(s) templates are taken.
func TestLinks(t *testing.T) {
	for _, bad := range []string{"commit=javascript:alert(1)//{}", "commit=https://git.example/commit/", "commit=ftp://x/{}", "commit=/relative/{}", "=https://x/{}"} {
		if _, _, err := ParseLink(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	k, tmpl, err := ParseLink("build=https://git.example/repo/commit/{}?from=lab")
	if err != nil || k != "build" {
		t.Fatal(k, err)
	}
	srv := serve(t, Options{Links: map[string]string{k: tmpl}})
	h := New(fix.store, Options{Links: map[string]string{k: tmpl}})
	if got := h.sourceURL("build", `a b/"<x>?`); got != "https://git.example/repo/commit/a%20b%2F%22%3Cx%3E%3F?from=lab" {
		t.Errorf("escaped: %q", got)
	}
	want := `href="https://git.example/repo/commit/2020-02-04?from=lab"`
	for _, path := range []string{"/", "/runs/" + fix.builds["2020-02-04"], "/trend?by=build&metric=p95"} {
		body := trendPage(t, srv, path)
		if !strings.Contains(html.UnescapeString(body), strings.ReplaceAll(want, "&", "&amp;")) && !strings.Contains(body, want) {
			t.Errorf("%s lacks %s", path, want)
		}
	}
}

// Accepted runs are marked on the trend chart and listed with their note.
func TestTrendMarksAccepted(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	bs, _, err := ingest.Bundles(ctx, []string{huntDir}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, b := range bs {
		id, _, err := store.Add(ctx, identified(t, b))
		if err != nil {
			t.Fatal(err)
		}
		ids[b.Run.Labels["build"]] = id
	}
	srv := httptest.NewServer(New(store, Options{}))
	defer srv.Close()
	if body := trendPage(t, srv, "/trend?by=build&metric=p95"); strings.Contains(body, "<h3>Accepted</h3>") || !strings.Contains(body, `"accepted":[]`) {
		t.Errorf("nothing accepted yet:\n%.300s", body)
	}
	if _, err := store.(archive.Accepter).Accept(ctx, ids["2020-02-04"], "the new page, slower on purpose"); err != nil {
		t.Fatal(err)
	}
	body := trendPage(t, srv, "/trend?by=build&metric=p95")
	for _, w := range []string{"<h3>Accepted</h3>", `run ` + ids["2020-02-04"] + `</a> accepted`, "the new page, slower on purpose", `"accepted":[3]`, "(accepted)", "Newest: build 2020-02-17"} {
		if !strings.Contains(body, w) {
			t.Errorf("the trend page lacks %q", w)
		}
	}
}

// addSynthetic adds a run labelled build=build of 3000 requests with
// log-normal latencies (median p50ms, σ 0.3), measured by real metrics.
func addSynthetic(t *testing.T, store archive.Store, rng *rand.Rand, build string, p50ms float64) string {
	t.Helper()
	run := compare.NewRun(build, 0)
	for range 3000 {
		run.Record(time.Duration(p50ms*math.Exp(0.3*rng.NormFloat64())*float64(time.Millisecond)), true)
	}
	l := run.Latencies()
	b, err := l.Histogram().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	f := archive.Figures{Requests: run.Metrics.Requests, Success: run.Metrics.Success, Throughput: 100, Latencies: l.LatencySummary}
	started := time.Unix(1000+rng.Int64N(100000), 0)
	id, _, err := store.Add(context.Background(), identified(t, &archive.Bundle{
		Run: archive.Run{Name: "page", Labels: map[string]string{"build": build}, Source: "results", Started: started, Ended: started.Add(30 * time.Second),
			Figures: f, Steps: []archive.Step{{Index: 0, Scenario: "page", Figures: f}}},
		Histograms: map[archive.StepKey][]byte{{Step: 0, Scenario: "page"}: b},
		Files:      []archive.BundleFile{{Name: "hist", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A change found is drawn and stated: six builds, two runs each, 40%
// slower from the fourth on.
func TestTrendChanges(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	first := map[string]string{}
	for i, p50 := range []float64{10, 10, 10, 14, 14, 14} {
		b := fmt.Sprintf("b%d", i+1)
		first[b] = addSynthetic(t, store, rng, b, p50)
		addSynthetic(t, store, rng, b, p50)
	}
	srv := httptest.NewServer(New(store, Options{}))
	defer srv.Close()
	body := trendPage(t, srv, "/trend?by=build&metric=p95")
	tr, err := trend.Compute(ctx, store, trend.Options{Metric: trend.P95, By: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Changes) != 1 || tr.Changes[0].Label != "b4" || !tr.Changes[0].Worse {
		t.Fatalf("changes: %+v", tr.Changes)
	}
	for _, w := range []string{trend.Describe(tr, tr.Changes[0]), `href="/runs/` + tr.Changes[0].ID + `">first run after it`, `"changes":[6]`} {
		if !strings.Contains(body, w) {
			t.Errorf("the trend page lacks %q", w)
		}
	}
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
