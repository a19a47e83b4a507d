package blackbox

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// queueServer is a real loopback target with a known queue: workers
// requests served at once, each for service; a request that finds them
// all busy waits up to wait for one and is then refused with 503. It
// counts the requests it received.
type queueServer struct {
	*httptest.Server
	received atomic.Uint64
}

func startQueue(t *testing.T, workers int, service, wait time.Duration) *queueServer {
	t.Helper()
	q := &queueServer{}
	slots := make(chan struct{}, workers)
	q.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.received.Add(1)
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case slots <- struct{}{}:
		case <-timer.C:
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		time.Sleep(service)
		<-slots
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(q.Close)
	return q
}
