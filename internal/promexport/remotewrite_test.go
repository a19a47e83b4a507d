package promexport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"google.golang.org/protobuf/proto"

	"github.com/loadlab/loadlab/internal/results"
)

// Remote write 2.0 to a receiver that decodes the request: the last push
// (made by Close) carries every step's final counters, symbolised labels
// with the job and instance, and each metric's type.
func TestRemoteWriteV2(t *testing.T) {
	var mu sync.Mutex
	var last *writev2.Request
	var proto2 bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		raw, err := snappy.Decode(nil, b)
		var req writev2.Request
		if err != nil || proto.Unmarshal(raw, &req) != nil {
			http.Error(w, "bad request", 400)
			return
		}
		mu.Lock()
		last, proto2 = &req, r.Header.Get("Content-Type") == "application/x-protobuf;proto=io.prometheus.write.v2.Request"
		mu.Unlock()
		// A 2.0 receiver says what it accepted.
		w.Header().Set("X-Prometheus-Remote-Write-Samples-Written", strconv.Itoa(len(req.Timeseries)))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	e := New()
	if err := e.Push(PushOptions{URL: srv.URL + "/api/v1/write", Version: 2, Interval: time.Hour, Instance: "gen1", Log: testLog{t}}); err != nil {
		t.Fatal(err)
	}
	due := time.Unix(1_795_296_174, 0)
	for i, step := range []string{"1000/s", "1100/s"} {
		e.Begin(step, nil, nil)
		for k := 0; k < 10*(i+1); k++ {
			r := results.Result{Attack: "search", Seq: uint64(k), Due: due, Sent: due, Latency: time.Millisecond, Code: 200, Method: "GET", URL: "http://x/"}
			e.Add(&r)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if last == nil || !proto2 {
		t.Fatalf("no remote write 2.0 request received (content type ok: %v)", proto2)
	}
	got := map[string]float64{}
	for _, ts := range last.Timeseries {
		l := writev2.DesymbolizeLabels(ts.LabelsRefs, last.Symbols, nil)
		m := map[string]string{}
		for i := 0; i+1 < len(l); i += 2 {
			m[l[i]] = l[i+1]
		}
		if m["__name__"] == "loadlab_attack_requests_total" {
			if m["job"] != "loadlab" || m["instance"] != "gen1" || ts.Metadata.Type != writev2.Metadata_METRIC_TYPE_COUNTER {
				t.Errorf("series %v, metadata %v", m, ts.Metadata)
			}
			got[m["step"]] = ts.Samples[0].Value
		}
	}
	if got["1000/s"] != 10 || got["1100/s"] != 20 {
		t.Errorf("requests by step %v, want 10 and 20", got)
	}
	if ok, failed := e.Pushed(); ok != 1 || failed != 0 {
		t.Errorf("pushes: %d ok, %d failed", ok, failed)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) { l.t.Log(string(p)); return len(p), nil }
