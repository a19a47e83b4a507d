package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sleeper is a loopback server answering after d.
func sleeper(t *testing.T, d time.Duration) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(d)
		w.Write([]byte("ok"))
	}))
	t.Cleanup(s.Close)
	return s
}

// TestCompareDuetGate runs real duets against loopback servers and gates
// on them: B 40% slower than A exits 1 with the figures judged slower in
// the JSON; one server against itself (written as 127.0.0.1 and as
// [::ffff:127.0.0.1]) is judged worse nowhere. Bad input exits 2 with one line.
func TestCompareDuetGate(t *testing.T) {
	fast, slow := sleeper(t, 10*time.Millisecond), sleeper(t, 14*time.Millisecond)
	dir := t.TempDir()
	duet := func(name, a, b string) string {
		out := filepath.Join(dir, name)
		code, _, errOut := runCLI(t, []byte("GET "+a+"/x?q={{seq}}\n"), "attack", "-quiet", "-rate", "300", "-duration", "3s", "-duet", b, "-output", out)
		if code != 0 {
			t.Fatalf("attack -duet: exit %d: %s", code, errOut)
		}
		return out
	}
	regressed := duet("regressed.lll", fast.URL, slow.URL)
	code, out, errOut := runCLI(t, nil, "compare", "-duet", regressed, "-type", "json", "-fail-on-regression")
	if code != 1 || !strings.Contains(errOut, "got worse") {
		t.Fatalf("a 40%% slower side B: exit %d (want 1): %s\n%s", code, errOut, out)
	}
	var doc struct {
		Version     int    `json:"version"`
		Outcome     string `json:"outcome"`
		Comparisons []struct {
			Duet    bool `json:"duet"`
			Runs    []struct{ Name string }
			Figures []struct {
				S        string      `json:"stat"`
				V        string      `json:"verdict"`
				O        string      `json:"outcome"`
				Of       string      `json:"interval_of"`
				Ratio    *float64    `json:"ratio"`
				Interval *[2]float64 `json:"interval"`
			} `json:"figures"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Comparisons) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	c := doc.Comparisons[0]
	if doc.Version != 1 || doc.Outcome != "worse" || !c.Duet || len(c.Runs) != 2 || !strings.HasPrefix(c.Runs[1].Name, "B ("+slow.URL) {
		t.Errorf("json head: version %d outcome %q duet %v runs %v", doc.Version, doc.Outcome, c.Duet, c.Runs)
	}
	for _, f := range c.Figures {
		if f.S != "p50" && f.S != "mean" {
			continue
		}
		if f.V != "slower" || f.O != "worse" || f.Of != "ratio" || f.Ratio == nil || *f.Ratio < 1.2 || f.Interval == nil || f.Interval[0] < 1.05 {
			t.Errorf("%s: verdict %q outcome %q ratio %v interval %v, want slower by 40%%", f.S, f.V, f.O, f.Ratio, f.Interval)
		}
	}

	// A/A: one server, two spellings; nothing is worse (exit 0, or 3
	// when a figure cannot be told).
	self := strings.Replace(fast.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1)
	same := duet("same.lll", fast.URL, self)
	code, out, errOut = runCLI(t, nil, "compare", "-duet", same, "-fail-on-regression")
	if code != 0 && code != 3 || strings.Contains(out, " slower") {
		t.Errorf("A/A duet: exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "B ("+self+")") || !strings.Contains(out, "99% CI") {
		t.Errorf("A/A duet table:\n%s", out)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "-duet", same, same}, "-duet: compares the two sides of a duet"},
		{[]string{"compare", "-type", "xml", same, regressed}, `-type: unknown type "xml"`},
		{[]string{"compare", "-min-change", "lots", same, regressed}, "-min-change"},
		{[]string{"compare", "-duet", "comparegate_test.go"}, "comparegate_test.go"},
		{[]string{"attack", "-duet", "127.0.0.1:1", "-duration", "1s"}, "-duet: want a base URL"},
		{[]string{"attack", "-duet", "http://127.0.0.1:1/path", "-duration", "1s"}, "-duet: want only scheme://host:port"},
		{[]string{"attack", "-duet", "http://127.0.0.1:1", "-lazy", "-duration", "1s"}, "-duet: reads every target first"},
	} {
		code, _, errOut := runCLI(t, []byte("GET "+fast.URL+"/\n"), tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// A results file that is not a duet's.
	plain := filepath.Join(dir, "plain.lll")
	if code, _, errOut := runCLI(t, []byte("GET "+fast.URL+"/\n"), "attack", "-quiet", "-rate", "50", "-duration", "200ms", "-output", plain); code != 0 {
		t.Fatalf("attack: %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, nil, "compare", "-duet", plain); code != 2 || !strings.Contains(errOut, "not the results of a duet") {
		t.Errorf("compare -duet of a plain run: exit %d: %s", code, errOut)
	}
}
