package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

var vectorNames = []string{"basic", "mixed", "withbody"}

func vector(t *testing.T, name string) string { return filepath.Join("testdata", "vegeta", name) }

func readVector(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(vector(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runReport reports one vector file with the given -type.
func runReport(t *testing.T, file, typ string) ([]byte, *metrics.Metrics) {
	t.Helper()
	src, err := results.Open(vector(t, file))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	kind, bs, err := ParseType(typ)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	m, err := Run(&out, NewMerge(Input{Name: file, Dec: src}), Options{Kind: kind, Buckets: bs})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), m
}

// exactLatencies returns the sorted latencies of a vector, for percentile
// checks.
func exactLatencies(t *testing.T, file string) []time.Duration {
	src, err := results.Open(vector(t, file))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out []time.Duration
	var r results.Result
	for src.Decode(&r) == nil {
		out = append(out, r.Latency)
	}
	slices.Sort(out)
	return out
}

// nearestRank is the exact percentile with HdrHistogram's rank rule: the
// sample at rank Round(q*n), at least 1.
func nearestRank(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// withinHDR reports whether got is the exact value within HdrHistogram's
// 3-significant-digit precision.
func withinHDR(got, exact time.Duration) bool {
	return math.Abs(float64(got-exact)) <= 0.001*float64(exact)+1
}

type vegetaJSON struct {
	Latencies struct {
		Total int64 `json:"total"`
		Mean  int64 `json:"mean"`
		P50   int64 `json:"50th"`
		P90   int64 `json:"90th"`
		P95   int64 `json:"95th"`
		P99   int64 `json:"99th"`
		Max   int64 `json:"max"`
		Min   int64 `json:"min"`
	} `json:"latencies"`
	BytesIn struct {
		Total uint64  `json:"total"`
		Mean  float64 `json:"mean"`
	} `json:"bytes_in"`
	BytesOut struct {
		Total uint64  `json:"total"`
		Mean  float64 `json:"mean"`
	} `json:"bytes_out"`
	Earliest    time.Time      `json:"earliest"`
	Latest      time.Time      `json:"latest"`
	End         time.Time      `json:"end"`
	Duration    int64          `json:"duration"`
	Wait        int64          `json:"wait"`
	Requests    uint64         `json:"requests"`
	Rate        float64        `json:"rate"`
	Throughput  float64        `json:"throughput"`
	Success     float64        `json:"success"`
	StatusCodes map[string]int `json:"status_codes"`
	Errors      []string       `json:"errors"`
}

func TestJSONReportMatchesVegeta(t *testing.T) {
	for _, name := range vectorNames {
		var want vegetaJSON
		if err := json.Unmarshal(readVector(t, name+".report.json"), &want); err != nil {
			t.Fatal(err)
		}
		sorted := exactLatencies(t, name+".bin")
		for _, ext := range []string{"bin", "csv", "json"} {
			t.Run(name+"."+ext, func(t *testing.T) {
				out, _ := runReport(t, name+"."+ext, "json")
				var got vegetaJSON
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				// exact fields
				gl, wl := got.Latencies, want.Latencies
				for _, c := range []struct {
					field     string
					got, want any
				}{
					{"requests", got.Requests, want.Requests},
					{"rate", got.Rate, want.Rate},
					{"throughput", got.Throughput, want.Throughput},
					{"success", got.Success, want.Success},
					{"duration", got.Duration, want.Duration},
					{"wait", got.Wait, want.Wait},
					{"earliest", got.Earliest.UnixNano(), want.Earliest.UnixNano()},
					{"latest", got.Latest.UnixNano(), want.Latest.UnixNano()},
					{"end", got.End.UnixNano(), want.End.UnixNano()},
					{"bytes_in", got.BytesIn, want.BytesIn},
					{"bytes_out", got.BytesOut, want.BytesOut},
					{"latencies.total", gl.Total, wl.Total},
					{"latencies.mean", gl.Mean, wl.Mean},
					{"latencies.min", gl.Min, wl.Min},
					{"latencies.max", gl.Max, wl.Max},
					{"status_codes", len(got.StatusCodes), len(want.StatusCodes)},
					{"errors", strings.Join(got.Errors, "|"), strings.Join(want.Errors, "|")},
				} {
					if c.got != c.want {
						t.Errorf("%s: got %v, vegeta %v", c.field, c.got, c.want)
					}
				}
				for k, v := range want.StatusCodes {
					if got.StatusCodes[k] != v {
						t.Errorf("status %s: got %d, vegeta %d", k, got.StatusCodes[k], v)
					}
				}
				// percentiles: exact within HDR precision, and vegeta's
				// t-digest estimate within one rank of the exact value
				for _, p := range []struct {
					q         float64
					got, vege int64
				}{{0.5, gl.P50, wl.P50}, {0.9, gl.P90, wl.P90}, {0.95, gl.P95, wl.P95}, {0.99, gl.P99, wl.P99}} {
					exact := nearestRank(sorted, p.q)
					if !withinHDR(time.Duration(p.got), exact) {
						t.Errorf("p%v: got %v, exact %v", p.q*100, time.Duration(p.got), exact)
					}
					lo := nearestRank(sorted, p.q-1.5/float64(len(sorted)))
					hi := nearestRank(sorted, min(1, p.q+1.5/float64(len(sorted))))
					if time.Duration(p.vege) < lo || time.Duration(p.vege) > hi {
						t.Errorf("p%v: vegeta's estimate %v outside [%v, %v]", p.q*100, time.Duration(p.vege), lo, hi)
					}
				}
			})
		}
	}
}

func TestTextReportMatchesVegeta(t *testing.T) {
	for _, name := range vectorNames {
		want := strings.Split(string(readVector(t, name+".report.txt")), "\n")
		for _, ext := range []string{"bin", "csv", "json"} {
			t.Run(name+"."+ext, func(t *testing.T) {
				out, _ := runReport(t, name+"."+ext, "text")
				got := strings.Split(string(out), "\n")
				if len(got) < len(want) {
					t.Fatalf("report too short:\n%s", out)
				}
				for i, w := range want {
					if !strings.HasPrefix(w, "Latencies") {
						if got[i] != w {
							t.Errorf("line %d:\n got %q\nwant %q", i+1, got[i], w)
						}
						continue
					}
					// same layout, exact min, mean and max; percentiles are
					// checked against exact values in the JSON test
					gf, wf := strings.Fields(got[i]), strings.Fields(w)
					if len(gf) != len(wf) || !strings.HasPrefix(got[i], w[:strings.Index(w, "]")+3]) {
						t.Fatalf("latencies layout:\n got %q\nwant %q", got[i], w)
					}
					n := len(wf)
					for _, k := range []int{n - 7, n - 6, n - 1} {
						if gf[k] != wf[k] {
							t.Errorf("latencies field %d: got %s, want %s", k, gf[k], wf[k])
						}
					}
				}
			})
		}
	}
}

func TestHistMatchesVegeta(t *testing.T) {
	for _, name := range vectorNames {
		want := readVector(t, name+".hist.txt")
		for _, ext := range []string{"bin", "csv", "json"} {
			out, _ := runReport(t, name+"."+ext, "hist[0,5ms,10ms,25ms,50ms,100ms,1s]")
			if !bytes.Equal(out, want) {
				t.Errorf("%s.%s:\n got:\n%s\nwant:\n%s", name, ext, out, want)
			}
		}
	}
}

func TestHDRPlotMatchesVegeta(t *testing.T) {
	for _, name := range vectorNames {
		sorted := exactLatencies(t, name+".bin")
		out, _ := runReport(t, name+".bin", "hdrplot")
		got := bufio.NewScanner(bytes.NewReader(out))
		want := bufio.NewScanner(bytes.NewReader(readVector(t, name+".hdrplot.txt")))
		line := 0
		for want.Scan() {
			line++
			if !got.Scan() {
				t.Fatalf("%s: output ends at line %d", name, line)
			}
			gf, wf := strings.Fields(got.Text()), strings.Fields(want.Text())
			if len(gf) != 4 || len(wf) != 4 {
				t.Fatalf("%s line %d: %q vs %q", name, line, got.Text(), want.Text())
			}
			if line == 1 {
				if got.Text() != want.Text() {
					t.Fatalf("header %q, want %q", got.Text(), want.Text())
				}
				continue
			}
			if gf[1] != wf[1] || gf[2] != wf[2] || gf[3] != wf[3] {
				t.Errorf("%s line %d: %q, want %q", name, line, got.Text(), want.Text())
			}
			var ms, q float64
			if err := json.Unmarshal([]byte(gf[0]), &ms); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(gf[1]), &q)
			exact := nearestRank(sorted, q)
			if !withinHDR(time.Duration(ms*1e6+0.5), exact) {
				t.Errorf("%s line %d: %vms, exact %v", name, line, ms, exact)
			}
		}
	}
}

// TestMergedShards splits a vector in two files and expects the report of
// both to equal the report of the whole.
func TestMergedShards(t *testing.T) {
	src, err := results.Open(vector(t, "basic.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	ea, eb := results.NewJSONEncoder(&a), results.NewCSVEncoder(&b)
	var r results.Result
	for i := 0; src.Decode(&r) == nil; i++ {
		if i%3 == 0 {
			_ = ea.Encode(&r)
		} else {
			_ = eb.Encode(&r)
		}
	}
	_ = eb.Flush()
	sa, _ := results.OpenReader(&a, "a.json")
	sb, _ := results.OpenReader(&b, "b.csv")
	var out bytes.Buffer
	if _, err := Run(&out, NewMerge(Input{Name: "a", Dec: sa}, Input{Name: "b", Dec: sb}), Options{Kind: KindJSON}); err != nil {
		t.Fatal(err)
	}
	whole, _ := runReport(t, "basic.bin", "json")
	if !bytes.Equal(out.Bytes(), whole) {
		t.Fatalf("merged:\n%s\nwhole:\n%s", out.Bytes(), whole)
	}
}
