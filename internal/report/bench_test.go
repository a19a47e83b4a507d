package report

import (
	"bytes"
	"io"
	"testing"

	"github.com/loadlab/loadlab/internal/results"
)

// BenchmarkRun reports a loadlab stream of typical results (per result).
func BenchmarkRun(b *testing.B) {
	var buf bytes.Buffer
	w, _ := results.NewWriter(&buf, results.Meta{})
	rs := loadlabRun(100_000)
	for i := range rs {
		_ = w.Encode(&rs[i])
	}
	_ = w.Close()
	data := buf.Bytes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src, err := results.OpenReader(bytes.NewReader(data), "bench")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(io.Discard, NewMerge(Input{Name: "bench", Dec: src}), Options{Kind: KindText}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rs)), "ns/result")
}
