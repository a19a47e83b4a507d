package blackbox

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCalibrationKeepsItsWord: the calibration announces its worst case
// before its first probe and keeps to it: a budget smaller than the
// first probe's requests ends the probe there (the target receives no
// more than announced), and the time stays under the announced duration.
func TestCalibrationKeepsItsWord(t *testing.T) {
	q := startQueue(t, 4, 5*time.Millisecond, 50*time.Millisecond)
	var log strings.Builder
	o := Options{Target: "GET " + q.URL + "/", Step: time.Second, Timeout: 2 * time.Second, Budget: 7, Log: &log}
	worst := o.Worst()
	began := time.Now()
	f, err := Calibrate(context.Background(), o)
	took := time.Since(began)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("%s", log.String())
	if got := q.received.Load(); got > worst.Requests || got != f.Requests || worst.Requests != 7 {
		t.Errorf("the target received %d requests, the fit counts %d; announced at most %d (want 7)", got, f.Requests, worst.Requests)
	}
	if took > worst.Duration || f.Duration > worst.Duration {
		t.Errorf("took %v, announced at most %v", took, worst.Duration)
	}
	first := strings.SplitN(log.String(), "\n", 2)[0]
	if !strings.Contains(first, "at most 7 requests and "+worst.Duration.String()) {
		t.Errorf("the first line does not announce the worst case: %q", first)
	}
}

// TestCalibrationRefusesAFailingTarget: a target answering 403 at the
// lowest rate is not a queue: the calibration refuses it in one line
// after its first probe.
func TestCalibrationRefusesAFailingTarget(t *testing.T) {
	var got atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	_, err := Calibrate(context.Background(), Options{Target: "GET " + srv.URL + "/", Step: 500 * time.Millisecond, Timeout: time.Second})
	var bad *BadTargetError
	if !errors.As(err, &bad) || !strings.Contains(bad.Msg, "the target fails at 10 req/s (403 Forbidden on 100% of 5 requests): it is not a queue to fit") || strings.Contains(bad.Msg, "\n") {
		t.Fatalf("got %v, want the refusal of a target failing at low load", err)
	}
	if n := got.Load(); n > 6 {
		t.Errorf("the target received %d requests: the calibration went on past its first probe", n)
	}
}

// TestCalibrationSaysWhereItWasRedirected: a target redirecting to
// another path is calibrated where it leads, each request sent there
// directly (the redirecting path receives only the one request that
// found the redirect), and the fit says so.
func TestCalibrationSaysWhereItWasRedirected(t *testing.T) {
	var from, to atomic.Uint64
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		from.Add(1)
		http.Redirect(w, r, "/new", http.StatusFound)
	})
	mux.HandleFunc("/new", func(w http.ResponseWriter, _ *http.Request) {
		to.Add(1)
		time.Sleep(2 * time.Millisecond)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var log strings.Builder
	f, err := Calibrate(context.Background(), Options{Target: "GET " + srv.URL + "/old", Step: 300 * time.Millisecond, Timeout: time.Second, Budget: 40, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := "the target redirects (302) to " + srv.URL + "/new: calibrated there"
	if f.Redirect == nil || f.Redirect.To != srv.URL+"/new" || !strings.Contains(log.String(), want) || !strings.Contains(strings.Join(f.Notes, "\n"), want) {
		t.Errorf("redirect %+v, notes %q, log:\n%s\nwant %q", f.Redirect, f.Notes, log.String(), want)
	}
	if from.Load() != 1 || to.Load()+1 != f.Requests || f.Requests > 40 {
		t.Errorf("/old received %d, /new %d, the fit counts %d (budget 40): want 1 at /old and the rest at /new", from.Load(), to.Load(), f.Requests)
	}
}
