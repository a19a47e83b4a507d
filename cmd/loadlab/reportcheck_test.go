package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// report -threshold judges the whole run, merged from its shards: the
// three shards of a 300-request attack hold "requests == 300" together,
// and none alone; failures print why and exit 1; a bad criterion or an
// unknown attack is bad input (exit 2).
func TestReportThresholds(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%50 == 0 {
			w.WriteHeader(500) // 2% errors
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	target := []byte("GET " + srv.URL + "/x\n")
	start := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	var files []string
	done := make(chan int, 3)
	for i := 1; i <= 3; i++ {
		f := filepath.Join(dir, "s"+string(rune('0'+i))+".lll")
		files = append(files, f)
		go func() {
			code, _, _ := runCLI(t, target, "attack", "-quiet", "-name", "search", "-shard", string(rune('0'+i))+"/3", "-rate", "300/s",
				"-duration", "1s", "-start-at", start, "-catch-up", "1m", "-output", f)
			done <- code
		}()
	}
	for range 3 {
		if code := <-done; code != 0 {
			t.Fatalf("shard exit %d", code)
		}
	}
	code, out, stderr := runCLI(t, nil, append([]string{"report", "-threshold", "requests == 300", "-threshold", "search: p99 < 10s"}, files...)...)
	if code != 0 || !strings.Contains(stderr, "threshold requests == 300: 300  ok") || !strings.Contains(stderr, "threshold search: p99 < 10s:") || !strings.Contains(out, "Requests") {
		t.Errorf("merged thresholds: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, nil, "report", "-threshold", "requests == 300", files[0])
	if code != 1 || !strings.Contains(stderr, "threshold requests == 300: 100  FAILED") || !strings.Contains(stderr, "1 of 1 thresholds crossed") {
		t.Errorf("one shard alone: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, nil, append([]string{"report", "-threshold", "success > 99%"}, files...)...)
	if code != 1 || !strings.Contains(stderr, "threshold success > 99%: 98.00%  FAILED") {
		t.Errorf("2%% errors against success > 99%%: exit %d\n%s", code, stderr)
	}
	for _, c := range []struct{ th, want string }{
		{"p99 <", "-threshold: threshold \"p99 <\": missing value"},
		{"news: p99 < 1s", "no attack named \"news\" in the results (attacks: search)"},
	} {
		code, _, stderr = runCLI(t, nil, "report", "-threshold", c.th, files[0])
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("-threshold %q: exit %d %q", c.th, code, stderr)
		}
	}
}
