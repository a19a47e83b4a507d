package attackrun

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
)

func job(t *testing.T, targetText string, out *bytes.Buffer, opened *bool) Job {
	t.Helper()
	s, err := schedule.Parse("100/s", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	o := attack.DefaultOptions()
	o.Name, o.Schedule = "t", s
	return Job{Attacks: []Attack{{Targets: strings.NewReader(targetText), Options: o,
		Output: func() (io.Writer, error) { *opened = true; return out, nil }}}}
}

func TestRunWritesAReadableStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var out bytes.Buffer
	var opened bool
	var log bytes.Buffer
	j := job(t, "GET "+srv.URL+"/\n", &out, &opened)
	j.Log = &log
	if err := Run(context.Background(), j).Err(); err != nil {
		t.Fatal(err)
	}
	rd, err := results.NewReader(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		var r results.Result
		if err := rd.Decode(&r); err != nil {
			break
		}
		if r.Code != 200 || r.Attack != "t" {
			t.Fatalf("result %+v", r)
		}
		n++
	}
	if n != 5 || log.Len() != 0 {
		t.Fatalf("%d results, log %q", n, log.String())
	}
}

// Bad targets are refused before the output is opened: an existing
// results file is never truncated by a typo.
func TestBadTargetsDoNotOpenTheOutput(t *testing.T) {
	var out bytes.Buffer
	var opened bool
	err := Run(context.Background(), job(t, "FETCH nowhere\n", &out, &opened)).Err()
	if !badinput.Is(err) || opened {
		t.Fatalf("err %v, output opened %v", err, opened)
	}
}
