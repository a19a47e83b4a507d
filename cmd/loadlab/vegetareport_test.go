package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// vegetaFiles are vegeta result files: the vectors kept in
// testdata/vegeta (recorded by vegeta, in its three encodings)
// and one made now by the real vegeta against a server that answers 200,
// 503 and refuses connections.
func vegetaFiles(t *testing.T, vegeta tool) []string {
	t.Helper()
	var files []string
	for _, n := range []string{"basic", "mixed", "withbody"} {
		for _, ext := range []string{"bin", "csv", "json"} {
			p, err := filepath.Abs(filepath.Join("testdata", "vegeta", n+"."+ext))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write(bytes.Repeat([]byte("x"), 100))
	}))
	defer srv.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.bin")
	targets := fmt.Sprintf("GET %s/ok\n\nGET %s/fail\n\nPOST %s/ok\n@%s\n\nGET http://%s/\n", srv.URL, srv.URL, srv.URL, filepath.Join(dir, "b"), closed)
	os.WriteFile(filepath.Join(dir, "b"), []byte("body"), 0o644)
	vegeta.run(t, dir, nil, []byte(targets), "attack", "-rate", "100/s", "-duration", "600ms", "-name", "fresh", "-output", fresh)
	return append(files, fresh)
}

// TestVegetaReportEncodePlot: vegeta's result files through `report`
// (text, json, hist, hdrplot) and `encode` (csv, json, gob both ways) of
// both tools, and vegeta's plot flags through loadlab plot. Output must
// be byte-equal where vegeta's is deterministic and its percentiles are
// not involved; what differs must be a known difference (percentiles:
// loadlab's HDR histogram against vegeta's t-digest estimate; fields and
// sections loadlab adds after vegeta's).
func TestVegetaReportEncodePlot(t *testing.T) {
	t.Parallel() // its own servers and child processes; judges no timing closely
	tools := compareTools(t)
	vegeta, loadlab := tools[0], tools[1]
	dir := t.TempDir()
	var diffs []wireDiff
	differs := func(c, field, v, l string) {
		d := wireDiff{c, field, v, l}
		t.Logf("differs: %s", d)
		diffs = append(diffs, d)
	}
	for _, f := range vegetaFiles(t, vegeta) {
		name := filepath.Base(f)
		for _, typ := range []string{"text", "json", "hist[0,1ms,2ms,5ms,10ms,50ms,100ms,1s]", "hdrplot"} {
			c := name + " " + typ
			v := vegeta.run(t, dir, nil, nil, "report", "-type", typ, f)
			l := loadlab.run(t, dir, nil, nil, "report", "-type", typ, f)
			if bytes.Equal(v, l) {
				continue
			}
			switch {
			case strings.HasPrefix(typ, "hist"):
				differs(c, "hist", string(v), string(l))
			case typ == "text":
				compareTextReports(c, string(v), string(l), differs)
			case typ == "json":
				compareJSONReports(t, c, v, l, differs)
			case typ == "hdrplot":
				compareHDRPlots(c, string(v), string(l), differs)
			}
		}
		// encode: vegeta's CSV byte for byte; vegeta's JSON keys; gob read
		// back by vegeta as the original
		vcsv := vegeta.run(t, dir, nil, nil, "encode", "-to", "csv", f)
		if lcsv := loadlab.run(t, dir, nil, nil, "encode", "-to", "csv", f); !bytes.Equal(vcsv, lcsv) {
			differs(name+" encode csv", "csv", string(vcsv), string(lcsv))
		}
		vjson := vegeta.run(t, dir, nil, nil, "encode", "-to", "json", f)
		ljson := loadlab.run(t, dir, nil, nil, "encode", "-to", "json", f)
		compareJSONLines(t, name+" encode json", vjson, ljson, differs)
		gob := filepath.Join(dir, "via-loadlab.bin")
		loadlab.run(t, dir, nil, nil, "encode", "-to", "gob", "-output", gob, f)
		if back := vegeta.run(t, dir, nil, nil, "encode", "-to", "csv", gob); !bytes.Equal(back, vcsv) {
			differs(name+" gob round trip", "gob", string(vcsv), string(back))
		}
		vj := filepath.Join(dir, "via-vegeta.json")
		os.WriteFile(vj, vjson, 0o644)
		if back := loadlab.run(t, dir, nil, nil, "encode", "-to", "csv", vj); !bytes.Equal(back, vcsv) {
			differs(name+" json round trip", "json", string(vcsv), string(back))
		}
		// plot takes vegeta's flags
		for _, tl := range tools {
			out := tl.run(t, dir, nil, nil, "plot", "--title", "plot of "+name, "--threshold", "500", f)
			if !bytes.Contains(out, []byte("<title>plot of "+name+"</title>")) {
				t.Errorf("%s plot --title: no title in %d bytes", tl.name, len(out))
			}
		}
	}
	// The other way: a loadlab results stream, encoded for vegeta with
	// send-time latencies (vegeta's basis), reports in vegeta as loadlab
	// reports it with -basis send.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			http.Error(w, "down", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	lll := filepath.Join(dir, "loadlab.lll")
	loadlab.run(t, dir, nil, []byte("GET "+srv.URL+"/ok?q={{rand.letters 8}}\n\nGET "+srv.URL+"/fail\n"), "attack", "-rate", "100/s", "-duration", "500ms", "-output", lll)
	gob := filepath.Join(dir, "loadlab.bin")
	loadlab.run(t, dir, nil, nil, "encode", "-to", "gob", "-basis", "send", "-output", gob, lll)
	compareJSONReports(t, "loadlab.lll via gob", vegeta.run(t, dir, nil, nil, "report", "-type", "json", gob),
		loadlab.run(t, dir, nil, nil, "report", "-basis", "send", "-type", "json", lll), differs)
	if t.Failed() {
		return
	}
	checkKnownDiffs(t, "report", diffs, true)
}

// compareTextReports: vegeta's lines, in order, then loadlab's additions
// after a blank line; the Latencies line's min, mean and max must agree
// (its percentiles are a known difference).
func compareTextReports(c, v, l string, differs func(c, field, v, l string)) {
	vl, ll := strings.Split(strings.TrimRight(v, "\n"), "\n"), strings.Split(strings.TrimRight(l, "\n"), "\n")
	if len(ll) < len(vl) {
		differs(c, "text", v, l)
		return
	}
	for i, line := range vl {
		if line == ll[i] {
			continue
		}
		if strings.HasPrefix(line, "Latencies") && strings.HasPrefix(ll[i], "Latencies") {
			vf, lf := strings.Fields(line), strings.Fields(ll[i])
			if len(vf) == len(lf) && vf[len(vf)-7] == lf[len(lf)-7] && vf[len(vf)-6] == lf[len(lf)-6] && vf[len(vf)-1] == lf[len(lf)-1] {
				differs(c, "percentiles", line, ll[i])
				continue
			}
		}
		differs(c, "text line "+fmt.Sprint(i+1), line, ll[i])
	}
	if len(ll) > len(vl) {
		if ll[len(vl)] != "" {
			differs(c, "text", v, l)
			return
		}
		differs(c, "sections after vegeta's", "", strings.Join(ll[len(vl):], "\n"))
	}
}

var percentileKeys = map[string]bool{"50th": true, "90th": true, "95th": true, "99th": true}

// compareJSONReports: every key vegeta writes, with its value, except
// the latency percentiles; keys loadlab adds are one known difference.
func compareJSONReports(t *testing.T, c string, v, l []byte, differs func(c, field, v, l string)) {
	var vm, lm map[string]any
	if err := json.Unmarshal(v, &vm); err != nil {
		t.Fatalf("%s: vegeta: %v", c, err)
	}
	if err := json.Unmarshal(l, &lm); err != nil {
		t.Fatalf("%s: loadlab: %v", c, err)
	}
	for k, vv := range vm {
		lv, ok := lm[k]
		if k == "latencies" && ok {
			va, la := vv.(map[string]any), lv.(map[string]any)
			for q := range va {
				if !reflect.DeepEqual(va[q], la[q]) {
					field := "latencies." + q
					if percentileKeys[q] {
						field = "percentiles"
					}
					differs(c, field, fmt.Sprint(va[q]), fmt.Sprint(la[q]))
				}
			}
			continue
		}
		if !reflect.DeepEqual(vv, lv) {
			differs(c, k, fmt.Sprint(vv), fmt.Sprint(lv))
		}
	}
	var extra []string
	for k := range lm {
		if _, ok := vm[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		differs(c, "keys after vegeta's", "", strings.Join(extra, ","))
	}
}

// compareHDRPlots: the same header and rows; the percentile, count and
// 1/(1-percentile) columns equal, the value column a known difference.
func compareHDRPlots(c, v, l string, differs func(c, field, v, l string)) {
	vl, ll := strings.Split(v, "\n"), strings.Split(l, "\n")
	if len(vl) != len(ll) {
		differs(c, "hdrplot rows", fmt.Sprint(len(vl)), fmt.Sprint(len(ll)))
		return
	}
	values := false
	for i := range vl {
		vf, lf := strings.Fields(vl[i]), strings.Fields(ll[i])
		if len(vf) != 4 || len(lf) != 4 || vf[0] == "Value(ms)" {
			if vl[i] != ll[i] {
				differs(c, "hdrplot line", vl[i], ll[i])
			}
			continue
		}
		if strings.Join(vf[1:], " ") != strings.Join(lf[1:], " ") {
			differs(c, "hdrplot line", vl[i], ll[i])
		}
		values = values || vf[0] != lf[0]
	}
	if values {
		differs(c, "percentiles", "hdrplot values", "hdrplot values")
	}
}

// compareJSONLines: each result line holds vegeta's keys with vegeta's
// values; the keys loadlab adds are one known difference.
func compareJSONLines(t *testing.T, c string, v, l []byte, differs func(c, field, v, l string)) {
	vl, ll := bytes.Split(bytes.TrimSpace(v), []byte("\n")), bytes.Split(bytes.TrimSpace(l), []byte("\n"))
	if len(vl) != len(ll) {
		differs(c, "json lines", fmt.Sprint(len(vl)), fmt.Sprint(len(ll)))
		return
	}
	extra := map[string]bool{}
	for i := range vl {
		var vm, lm map[string]any
		if json.Unmarshal(vl[i], &vm) != nil || json.Unmarshal(ll[i], &lm) != nil {
			t.Fatalf("%s line %d: not JSON:\n%s\n%s", c, i+1, vl[i], ll[i])
		}
		for k, vv := range vm {
			if !reflect.DeepEqual(vv, lm[k]) {
				differs(c, "json "+k, fmt.Sprint(vv), fmt.Sprint(lm[k]))
			}
		}
		for k := range lm {
			if _, ok := vm[k]; !ok {
				extra[k] = true
			}
		}
	}
	if len(extra) > 0 {
		var ks []string
		for k := range extra {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		differs(c, "json keys after vegeta's", "", strings.Join(ks, ","))
	}
}
