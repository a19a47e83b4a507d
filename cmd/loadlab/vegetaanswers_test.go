package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// TestVegetaAnswers runs attacks through vegeta and loadlab against a
// server that compresses, redirects, fails and hangs, and compares what
// each recorded: status code, error text, bytes in and out, the body kept
// and, for timeouts, the latency (both must end at -timeout, measured
// from the send time). Every field that differs must be a known
// difference (vegetadiffs_test.go), documented in docs/attack.md.
func TestVegetaAnswers(t *testing.T) {
	t.Parallel() // its own servers and child processes; its one timing check (a timeout ends 300-800 ms after the send) has a wide margin
	tools := compareTools(t)
	dir := t.TempDir()
	plain := bytes.Repeat([]byte("vegeta and loadlab agree. "), 400)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(plain)
	zw.Close()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Write([]byte("hello"))
		case "/gzip":
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(zb.Bytes())
				return
			}
			w.Write(plain)
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/redirect-post":
			http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/missing":
			http.Error(w, "no such page", http.StatusNotFound)
		case "/fail":
			http.Error(w, "down", http.StatusServiceUnavailable)
		case "/hang":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/echo":
			b := new(bytes.Buffer)
			b.ReadFrom(r.Body)
			w.Write(b.Bytes())
		}
	}))
	defer srv.Close()
	defer close(release)
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String()
	closed.Close()

	cases := []struct {
		name, targets string
		args          []string
	}{
		{"200 with body", "GET {srv}/ok", nil},
		{"gzip", "GET {srv}/gzip", nil},
		{"gzip, own Accept-Encoding", "GET {srv}/gzip\nAccept-Encoding: gzip", nil},
		{"redirect followed", "GET {srv}/redirect", nil},
		{"307 keeps the body", "POST {srv}/redirect-post\n@body.txt", nil},
		{"redirect not followed", "GET {srv}/redirect", []string{"-redirects", "-1"}},
		{"-redirects 0", "GET {srv}/redirect", []string{"-redirects", "0"}},
		{"redirect loop", "GET {srv}/loop", []string{"-redirects", "2"}},
		{"404", "GET {srv}/missing", nil},
		{"503", "GET {srv}/fail", nil},
		{"POST body", "POST {srv}/echo\n@body.txt", nil},
		{"connection refused", "GET {closed}/", nil},
		{"timeout", "GET {srv}/hang", []string{"-timeout", "300ms"}},
		{"-max-body 3", "GET {srv}/ok", []string{"-max-body", "3"}},
		{"-max-body default", "GET {srv}/ok", []string{"-max-body", "default"}},
	}
	fill := strings.NewReplacer("{srv}", srv.URL, "{closed}", closedURL)
	if err := writeFile(filepath.Join(dir, "body.txt"), "a request body\n"); err != nil {
		t.Fatal(err)
	}
	var diffs []wireDiff
	ran := 0 // cases run: with -run selecting some, a known difference may not show
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran++
			args := []string{"attack", "-rate", "20/s", "-duration", "150ms", "-output", "out"}
			maxBody := true
			for i := 0; i < len(c.args); i++ {
				if c.args[i] == "-max-body" && c.args[i+1] == "default" {
					maxBody = false
					i++
					continue
				}
				args = append(args, c.args[i])
				if c.args[i] == "-max-body" {
					maxBody = false
				}
			}
			if maxBody {
				args = append(args, "-max-body", "-1") // vegeta's default: bodies are compared
			}
			seen := map[string]map[string]string{}
			for _, tl := range tools {
				// vegeta ends an attack whose first request is due after
				// -duration has passed: a stall of the loaded machine at
				// the start can leave it with no results. Such a run
				// judges nothing and is tried again.
				for try := 0; ; try++ {
					tl.run(t, dir, nil, []byte(fill.Replace(c.targets)+"\n"), args...)
					if seen[tl.name] = answerFields(t, tl.name, filepath.Join(dir, "out"), try == 2); seen[tl.name] != nil {
						break
					}
				}
			}
			v, l := seen["vegeta"], seen["loadlab"]
			var fields []string
			for f := range v {
				fields = append(fields, f)
			}
			sort.Strings(fields)
			for _, f := range fields {
				if v[f] != l[f] {
					d := wireDiff{c.name, f, v[f], l[f]}
					t.Logf("differs: %s", d)
					diffs = append(diffs, d)
				}
			}
		})
	}
	if t.Failed() {
		return
	}
	checkKnownDiffs(t, "answers", diffs, ran == len(cases))
}

// answerFields describes a results file's answers, each field the set of
// its distinct values. Latencies are classed: a timed-out request's must
// end at the 300 ms timeout (within a margin wide enough for a loaded
// machine), others are not compared.
// With last false, a file without results gives nil; else it is fatal.
func answerFields(t *testing.T, who, path string, last bool) map[string]string {
	t.Helper()
	src, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sets := map[string]map[string]bool{}
	add := func(f, v string) {
		if sets[f] == nil {
			sets[f] = map[string]bool{}
		}
		sets[f][v] = true
	}
	n := 0
	var r results.Result
	for src.Decode(&r) == nil {
		n++
		add("code", fmt.Sprint(r.Code))
		add("error", r.Error)
		add("bytes_in", fmt.Sprint(r.BytesIn))
		add("bytes_out", fmt.Sprint(r.BytesOut))
		add("body", fmt.Sprintf("%q", r.Body))
		add("method", r.Method)
		add("url", r.URL)
		if strings.Contains(r.Error, "Timeout") || strings.Contains(r.Error, "deadline") {
			lat := "ends at the timeout"
			if r.Latency < 300*time.Millisecond || r.Latency > 800*time.Millisecond {
				lat = fmt.Sprintf("%v, not at the 300 ms timeout", r.Latency)
			}
			add("latency", lat)
		}
	}
	if n == 0 && !last {
		return nil
	}
	if n == 0 {
		t.Fatalf("%s: %s: no results", who, path)
	}
	out := map[string]string{}
	for f, s := range sets {
		var vs []string
		for v := range s {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		out[f] = strings.Join(vs, " ; ")
	}
	return out
}
