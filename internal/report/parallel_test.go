package report

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Several inputs read at once, each into metrics of its own, give exactly
// the report of the same inputs read as one stream: text and JSON, with
// errors, drops, late requests, several attacks and steps, and a torn tail.
func TestParallelReportEqualsOneStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var files [][]byte
	for f := 0; f < 3; f++ {
		var rs []results.Result
		for i := 0; i < 3000; i++ {
			due := start.Add(time.Duration(i*3+f) * time.Millisecond)
			r := results.Result{Attack: []string{"search", "news"}[i%2], Seq: uint64(i*3 + f), Due: due,
				Sent: due.Add(time.Duration(rng.IntN(3000)) * time.Microsecond), Latency: time.Duration(1+rng.IntN(900)) * time.Millisecond,
				Code: 200, BytesIn: uint64(rng.IntN(5000)), Method: "GET", URL: "http://127.0.0.1:8080/" + []string{"a", "b", "c"}[rng.IntN(3)],
				Step: uint32(i / 1000)}
			switch rng.IntN(50) {
			case 0:
				r.Code, r.Error = 503, "503 Service Unavailable"
			case 1:
				r.Code, r.Error, r.Latency = 0, "read tcp: connection reset by peer", 0
			case 2:
				r.Code, r.Error, r.Latency, r.Sent = 0, results.DroppedPrefix+"max-workers reached", 0, time.Time{}
			}
			rs = append(rs, r)
		}
		data := stream(t, rs)
		if f == 2 {
			data = data[:len(data)-40] // a writer killed mid-block
		}
		files = append(files, data)
	}
	inputs := func() []Input {
		var in []Input
		for i, d := range files {
			src, err := results.OpenReader(bytes.NewReader(d), []string{"a.lll", "b.lll", "c.lll"}[i])
			if err != nil {
				t.Fatal(err)
			}
			src.Resync(true)
			in = append(in, Input{Name: src.Name, Dec: src})
		}
		return in
	}
	for _, kind := range []Kind{KindText, KindJSON, KindHDRPlot} {
		var par, seq bytes.Buffer
		pm := NewMerge(inputs()...)
		if _, err := Run(&par, pm, Options{Kind: kind}); err != nil {
			t.Fatal(err)
		}
		sm := NewMerge(inputs()...)
		sm.oneStream = true
		if _, err := Run(&seq, sm, Options{Kind: kind}); err != nil {
			t.Fatal(err)
		}
		if par.String() != seq.String() {
			t.Errorf("%s: read at once\n%s\nread as one stream\n%s", kind, par.String(), seq.String())
		}
		if len(pm.Warnings) != len(sm.Warnings) || len(pm.Warnings) != 1 || pm.Warnings[0].String() != sm.Warnings[0].String() {
			t.Errorf("%s: warnings %v vs %v", kind, pm.Warnings, sm.Warnings)
		}
	}
}
