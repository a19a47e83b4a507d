package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/testwait"
)

// vegetaVector is a result file recorded by the real vegeta (testdata/vegeta).
func vegetaVector(name string) string {
	return filepath.Join("testdata", "vegeta", name)
}

func TestReportCommand(t *testing.T) {
	want, err := os.ReadFile(vegetaVector("basic.hist.txt"))
	if err != nil {
		t.Fatal(err)
	}
	gob, err := os.ReadFile(vegetaVector("withbody.bin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name     string
		stdin    []byte
		args     []string
		code     int
		stdout   string // prefix, or exact when exact is set
		exact    bool
		stderrIn string
	}{
		{"text", nil, []string{"report", vegetaVector("basic.bin")}, 0,
			"Requests      [total, rate, throughput]         1000, 200.20, 189.78\n", false, ""},
		{"hist exact", nil, []string{"report", "-type", "hist[0,5ms,10ms,25ms,50ms,100ms,1s]", vegetaVector("basic.csv")}, 0,
			string(want), true, ""},
		{"stdin gob", gob, []string{"report", "-type=json"}, 0, `{"latencies":{"total":164454945,"mean":1644549,`, false, ""},
		{"merged", nil, []string{"report", vegetaVector("basic.bin"), vegetaVector("withbody.json")}, 0,
			"Requests      [total, rate, throughput]         1100, ", false, ""},
		{"every", nil, []string{"report", "-every", "2s", vegetaVector("withbody.bin")}, 0, "Interval  ", false, ""},
		{"bad type", nil, []string{"report", "-type", "pie", vegetaVector("basic.bin")}, 2, "", true, "-type: unknown report type \"pie\""},
		{"every with hdrplot", nil, []string{"report", "-every", "1s", "-type", "hdrplot", vegetaVector("basic.bin")}, 2, "", true, "-every: works with -type text or json"},
		{"missing file", nil, []string{"report", filepath.Join(dir, "nope.bin")}, 2, "", true, "nope.bin"},
		{"not results", []byte("hello\n"), []string{"report"}, 2, "", true, "stdin: not a results file"},
		{"torn tail", gob[:len(gob)-9], []string{"report"}, 0, "Requests      [total, rate, throughput]         99, ", false, "warning: stdin: torn tail at byte offset"},
		{"help", nil, []string{"report", "-help"}, 0, "Usage: loadlab report", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, errs)
			}
			if tc.exact && out != tc.stdout || !tc.exact && !strings.HasPrefix(out, tc.stdout) {
				t.Fatalf("stdout:\n%s\nwant (prefix):\n%s", out, tc.stdout)
			}
			if !strings.Contains(errs, tc.stderrIn) {
				t.Fatalf("stderr %q, want it to contain %q", errs, tc.stderrIn)
			}
			if tc.code == 2 && strings.Count(strings.TrimSpace(errs), "\n") > 0 && !strings.Contains(errs, "Usage") {
				t.Fatalf("bad input must be one line, got %q", errs)
			}
		})
	}
}

func TestEncodeCommandRoundTrips(t *testing.T) {
	dir := t.TempDir()
	ll := filepath.Join(dir, "basic.ll")
	csv := filepath.Join(dir, "basic.csv")
	if code, _, errs := runCLI(t, nil, "encode", "-to", "loadlab", "-output", ll, vegetaVector("basic.bin")); code != 0 {
		t.Fatalf("encode to loadlab: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, nil, "encode", "-to", "csv", "-output", csv, ll); code != 0 {
		t.Fatalf("encode to csv: %d %s", code, errs)
	}
	got, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(vegetaVector("basic.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// vegeta -> loadlab -> CSV keeps every vegeta column but the headers
	// and bodies the loadlab stream keeps too, so the CSV is vegeta's own
	if !bytes.Equal(got, want) {
		t.Fatalf("CSV after a loadlab round trip differs from vegeta's (%d vs %d bytes)", len(got), len(want))
	}
	_, jsonOut, _ := runCLI(t, nil, "encode", ll)
	if !strings.HasPrefix(jsonOut, `{"attack":"","seq":1,"code":200,"timestamp":"2026-11-21T21:22:54.418999696Z"`) {
		t.Fatalf("json: %.200s", jsonOut)
	}
	if code, _, errs := runCLI(t, nil, "encode", "-to", "xml", ll); code != 2 || !strings.Contains(errs, "-to") {
		t.Fatalf("bad -to: %d %q", code, errs)
	}
	st, _ := os.Stat(ll)
	t.Logf("basic: vegeta gob %d bytes, loadlab %d bytes", 193041, st.Size())
}

// TestReportFollow: -follow reads a loadlab stream as it grows and stops
// after -follow-idle; it refuses stdin, several files and vegeta files.
func TestReportFollow(t *testing.T) {
	dir := t.TempDir()
	stream := filepath.Join(dir, "r.lll")
	code, _, stderr := runCLI(t, nil, "encode", "-to", "loadlab", "-output", stream, vegetaVector("basic.bin"))
	if code != 0 {
		t.Fatalf("encode: exit %d: %s", code, stderr)
	}
	_, plain, _ := runCLI(t, nil, "report", stream)
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{"finished file, stops when idle", []string{"report", "-follow", "-follow-idle", "200ms", stream}, 0, plain, ""},
		{"stdin", []string{"report", "-follow"}, 2, "", "follows exactly one results file"},
		{"two files", []string{"report", "-follow", stream, stream}, 2, "", "follows exactly one results file"},
		{"vegeta file", []string{"report", "-follow", "-follow-idle", "200ms", vegetaVector("basic.bin")}, 2, "", "loadlab results streams only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code || stdout != tc.stdout || !strings.Contains(stderr, tc.stderrIn) {
				t.Fatalf("exit %d (want %d)\nstdout %q\nstderr %q", code, tc.code, stdout, stderr)
			}
		})
	}
}

// TestReportFollowAcrossWriterCrash: a writer crashes leaving a torn
// block, and a writer restarted on the same file appends fresh blocks
// while `report -follow` reads: everything but the torn block is
// reported, with a warning naming the damaged region.
func TestReportFollowAcrossWriterCrash(t *testing.T) {
	stream := func(n int, from uint64) []byte {
		var b bytes.Buffer
		w, err := results.NewWriter(&b, results.Meta{Attack: "a"})
		if err != nil {
			t.Fatal(err)
		}
		due := time.Unix(1_800_000_000, 0)
		for i := 0; i < n; i++ {
			r := results.Result{Attack: "a", Seq: from + uint64(i), Due: due.Add(time.Duration(i) * time.Millisecond), Code: 200, Method: "GET", URL: "http://x/"}
			r.Sent = r.Due
			w.Encode(&r)
			if i%1000 == 999 {
				w.Flush()
			}
		}
		w.Close()
		return b.Bytes()
	}
	first := stream(3000, 0) // three blocks of 1000
	second := stream(2000, 3000)
	marker := []byte("LLSYNC2")
	last := bytes.LastIndex(first, marker) - 1
	torn := first[:last+(len(first)-last)/2] // the third block cut in half
	more := second[bytes.Index(second, marker)-1:]
	file := filepath.Join(t.TempDir(), "live.lll")
	if err := os.WriteFile(file, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		// The restarted writer appends once the report has read the torn
		// file to its end and follows it.
		readTo(file, int64(len(torn)), 30*time.Second)
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.Write(more)
			f.Close()
		}
	}()
	code, out, stderr := runCLI(t, nil, "report", "-follow", "-follow-idle", "1500ms", file)
	if code != 0 || !strings.Contains(out, "Requests      [total, rate, throughput]         4000,") || !strings.Contains(stderr, "1000 results lost") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}

// readTo waits (up to timeout) until this process has file open and read
// at least n bytes of it, as /proc/self/fdinfo shows (at once where there
// is no such table).
func readTo(file string, n int64, timeout time.Duration) {
	if _, err := os.Stat("/proc/self/fdinfo"); err != nil {
		return
	}
	testwait.Until(timeout, func() bool {
		fds, _ := os.ReadDir("/proc/self/fd")
		for _, fd := range fds {
			if target, err := os.Readlink("/proc/self/fd/" + fd.Name()); err != nil || target != file {
				continue
			}
			info, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
			if err != nil {
				continue
			}
			var pos int64
			if _, err := fmt.Sscanf(string(info), "pos:\t%d", &pos); err == nil && pos >= n {
				return true
			}
		}
		return false
	})
}
