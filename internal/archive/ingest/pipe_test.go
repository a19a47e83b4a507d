package ingest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
)

// writeStream writes n results in blocks of 1000, and returns the file.
func writeStream(t *testing.T, n int) string {
	return writeStreamMeta(t, n, results.Meta{Attack: "a"})
}

// writeStreamMeta is writeStream with the header meta.
func writeStreamMeta(t *testing.T, n int, meta results.Meta) string {
	path := filepath.Join(t.TempDir(), "r.lll")
	var buf bytes.Buffer
	w, err := results.NewWriter(&buf, meta)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1_700_000_000, 0)
	for i := 0; i < n; i++ {
		due := start.Add(time.Duration(i) * time.Millisecond)
		r := results.Result{Seq: uint64(i), Due: due, Sent: due.Add(time.Duration(i%50) * time.Microsecond),
			Latency: time.Duration(1+i%997) * 37 * time.Microsecond, Code: 200, BytesIn: 10, Method: "GET", URL: "http://x/" + string(rune('a'+i%3))}
		if i%31 == 0 {
			r.Code, r.Error = 500, "500 Internal Server Error"
		}
		if err := w.Encode(&r); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 999 {
			w.Flush()
		}
	}
	w.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// reportDirect is `loadlab report FILE`'s text, read without the pipe.
func reportDirect(t *testing.T, path string) (string, uint64) {
	src, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.Resync(true)
	var buf bytes.Buffer
	m, err := report.Run(&buf, report.NewMerge(report.Input{Name: path, Dec: src}), report.Options{Kind: report.KindText})
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), m.Requests
}

// The pipe hands the figures code exactly what the file holds, batch
// boundaries and a torn tail included.
func TestPipeReadsWhatTheSourceReads(t *testing.T) {
	for _, n := range []int{1, pipeBatch, 3*pipeBatch + 17, 25_000} {
		path := writeStream(t, n)
		want, wantN := reportDirect(t, path)
		bs, warns, err := Bundles(context.Background(), []string{path}, Options{})
		if err != nil || len(warns) != 0 {
			t.Fatal(err, warns)
		}
		if got := bs[0].Run.Steps[0].Text; got != want || bs[0].Run.Requests != wantN || wantN != uint64(n) {
			t.Errorf("%d results: archived %d, text\n%s\nreport says %d\n%s", n, bs[0].Run.Requests, got, wantN, want)
		}
	}
	// a torn tail, as a killed attack leaves: everything before it, and a warning
	path := writeStream(t, 25_000)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, data[:len(data)-200], 0o644)
	want, wantN := reportDirect(t, path)
	bs, warns, err := Bundles(context.Background(), []string{path}, Options{})
	if err != nil || len(warns) == 0 || bs[0].Run.Requests != wantN || wantN == 0 || wantN >= 25_000 || bs[0].Run.Steps[0].Text != want {
		t.Errorf("torn file: err %v warnings %v, archived %d, report %d", err, warns, bs[0].Run.Requests, wantN)
	}
}

var _ = io.EOF
