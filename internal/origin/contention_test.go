package origin

import (
	"sync"
	"testing"
	"time"
)

// TestContentionSlowsWithRequestsInService: a stage with σ = 1 (a fully
// serialised service) answers one request alone in its 20 ms, but each of
// 8 concurrent users' requests in about 8 × 20 ms: the latency is scaled
// by the requests in service when it starts. Margins are wide (the
// machine is shared): alone under 60 ms, together 100 to 250 ms mean.
func TestContentionSlowsWithRequestsInService(t *testing.T) {
	_, srv := newTestServer(t, Options{})
	mustLoad(t, srv, `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "20ms", "contention": {"sigma": 1}}]}`)
	if r := get(t, srv.URL+"/alone"); r.err != nil || r.status != 200 || r.elapsed > 60*time.Millisecond {
		t.Fatalf("alone: %d %v in %v, want 200 in about 20 ms", r.status, r.err, r.elapsed)
	}
	var mu sync.Mutex
	var total time.Duration
	var n int
	var wg sync.WaitGroup
	end := time.Now().Add(1500 * time.Millisecond)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50 && time.Now().Before(end); i++ {
				r := get(t, srv.URL+"/together")
				if r.err != nil || r.status != 200 {
					t.Errorf("together: %d %v", r.status, r.err)
					return
				}
				mu.Lock()
				total, n = total+r.elapsed, n+1
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n == 0 {
		t.Fatal("no answer")
	}
	if m := total / time.Duration(n); m < 100*time.Millisecond || m > 250*time.Millisecond {
		t.Errorf("8 users: mean %v over %d requests, want about 160 ms (8 × 20 ms)", m, n)
	}
}
