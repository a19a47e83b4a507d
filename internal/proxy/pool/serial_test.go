package pool

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// load sends rate requests/s for d through p to url, each holding its
// worker for the upstream's answer, and returns successes and checkout
// timeouts.
func load(t *testing.T, p *Pool, url string, rate int, d time.Duration) (ok, timeouts int64) {
	t.Helper()
	var wg sync.WaitGroup
	var nOK, nTO atomic.Int64
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	n := int(d.Seconds() * float64(rate))
	for i := 0; i < n; i++ {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, _, err := p.Checkout(context.Background())
			if err != nil {
				if err == ErrTimeout {
					nTO.Add(1)
				}
				return
			}
			defer p.Checkin(w)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			resp, err := w.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			nOK.Add(1)
		}()
	}
	wg.Wait()
	return nOK.Load(), nTO.Load()
}

// TestSerialManagerCollapsesUnderOverflowChurn is the search-flood incident
// in miniature: a 100 ms upstream at 100 requests/s needs about 10 workers.
// A fixed pool of 32 holds. A pool of 2 + 30 overflow has the workers too,
// but under the serial manager nearly every checkout starts a worker
// (20 ms) and every checkin dismisses one (5 ms): 2.5 s of manager work per
// second, so its mailbox grows and checkouts time out. The same pool under
// the concurrent manager, whose overflow workers are free, holds.
func TestSerialManagerCollapsesUnderOverflowChurn(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	tests := []struct {
		name         string
		cfg          Config
		wantCollapse bool
	}{
		{"serial, fixed 32", Config{Size: 32, Manager: ManagerSerial, StartCost: 20 * time.Millisecond, StopCost: 5 * time.Millisecond}, false},
		{"serial, 2 + 30 overflow", Config{Size: 2, Overflow: 30, Manager: ManagerSerial, StartCost: 20 * time.Millisecond, StopCost: 5 * time.Millisecond}, true},
		{"concurrent, 2 + 30 overflow", Config{Size: 2, Overflow: 30, Manager: ManagerConcurrent}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			d := &net.Dialer{}
			cc := &ConnCounter{Dial: d.DialContext}
			tc.cfg.CheckoutTimeout = 150 * time.Millisecond
			tc.cfg.Upstream = srv.URL
			p := New(tc.cfg, Options{Dial: cc.DialContext})
			ok, timeouts := load(t, p, srv.URL, 100, time.Second)
			s := p.Snapshot()
			p.Close()
			if done := p.Done(); done != nil {
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					buf := make([]byte, 1<<20)
					n := runtime.Stack(buf, true)
					t.Fatalf("serial manager still running after close: %+v\n%s", p.Snapshot(), buf[:n])
				}
			}
			t.Logf("ok %d, timeouts %d, mailbox peak %d, started %d, dismissed %d", ok, timeouts, s.MailboxPeak, s.OverflowOpened, s.OverflowClosed)
			if tc.wantCollapse {
				if timeouts < 30 || s.MailboxPeak < 20 {
					t.Errorf("overflow churn held: %d timeouts, mailbox peak %d; want >= 30 and >= 20", timeouts, s.MailboxPeak)
				}
			} else if timeouts > 2 || ok < 98 {
				t.Errorf("pool failed: %d ok, %d timeouts; want it to hold", ok, timeouts)
			}
			if tc.cfg.Manager == ManagerSerial && !tc.wantCollapse && s.MailboxPeak > 10 {
				t.Errorf("fixed pool's mailbox peaked at %d", s.MailboxPeak)
			}
			if s.Manager != tc.cfg.Manager {
				t.Errorf("snapshot says manager %q", s.Manager)
			}
			testwait.Until(10*time.Second, func() bool { return cc.Open() == 0 && runtime.NumGoroutine() <= before })
			if cc.Open() != 0 {
				t.Errorf("%d upstream connections left open", cc.Open())
			}
			if g := runtime.NumGoroutine(); g > before {
				t.Errorf("goroutines: %d before, %d after", before, g)
			}
		})
	}
}

// TestSerialManagerBasics runs the pool's rules under the serial manager:
// idle workers first, then overflow started by the manager (dialled, so
// the worker arrives connected), waiters served FIFO, a timed-out caller's
// checkout still processed and given back, close after checkins.
func TestSerialManagerBasics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	d := &net.Dialer{}
	cc := &ConnCounter{Dial: d.DialContext}
	// The checkout timeout is the time the test has to hand a worker to a
	// waiter: long enough for a loaded machine.
	const timeout = time.Second
	p := New(Config{Size: 1, Overflow: 1, CheckoutTimeout: timeout, Manager: ManagerSerial,
		StartCost: 5 * time.Millisecond, Upstream: srv.URL}, Options{Dial: cc.DialContext})
	a, _, err := p.Checkout(context.Background())
	if err != nil || a.Connected() {
		t.Fatalf("persistent worker: %v, connected %v (want lazy)", err, a.Connected())
	}
	b, wait, err := p.Checkout(context.Background())
	if err != nil || !b.Connected() || wait < 5*time.Millisecond {
		t.Fatalf("overflow worker: %v, connected %v, wait %v (want dialled by the manager, >= start cost)", err, b.Connected(), wait)
	}
	if _, wait, err := p.Checkout(context.Background()); err != ErrTimeout || wait < timeout {
		t.Fatalf("exhausted pool: %v after %v, want timeout after %v", err, wait, timeout)
	}
	testwait.Eventually(t, 10*time.Second, "the cancel to be processed", func() bool {
		s := p.Snapshot()
		return s.Waiting == 0 && s.Mailbox == 0
	})
	got := make(chan *Worker)
	go func() {
		w, _, _ := p.Checkout(context.Background())
		got <- w
	}()
	testwait.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return p.Snapshot().Waiting == 1 })
	p.Checkin(b) // handed to the waiter, not dismissed
	if w := <-got; w != b {
		t.Fatal("waiter did not get the returned worker")
	}
	p.Checkin(a) // overflow is out: this one is dismissed, as poolboy does
	p.Checkin(b) // overflow back to 0: kept idle
	testwait.Until(10*time.Second, func() bool { return p.Snapshot().InUse == 0 })
	s := p.Snapshot()
	if s.InUse != 0 || s.Idle != 1 || s.OverflowInUse != 0 || s.OverflowOpened != 1 || s.OverflowClosed != 1 || s.Timeouts != 1 {
		t.Fatalf("after checkins %+v", s)
	}
	p.Close()
	select {
	case <-p.Done():
	case <-time.After(2 * time.Second):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("manager did not stop: %+v\n%s", p.Snapshot(), buf[:n])
	}
	if _, _, err := p.Checkout(context.Background()); err != ErrClosed {
		t.Fatalf("checkout after close: %v", err)
	}
	if cc.Open() != 0 {
		t.Fatalf("%d connections open after close", cc.Open())
	}
}

// TestSerialManagerInlineKeepsOrder: a checkout or checkin that finds the
// manager idle is applied by its caller (no message left in the mailbox,
// the peak counting it), but one that finds the manager busy (here
// dismissing a worker, for StopCost) waits its turn in the mailbox, even
// when it needs no work: a worker checked in during the dismissal is not
// handed to a later checkout before the dismissal ends, as poolboy's
// mailbox orders them.
func TestSerialManagerInlineKeepsOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	const stopCost = 400 * time.Millisecond
	p := New(Config{Size: 1, Overflow: 1, CheckoutTimeout: 10 * time.Second, Manager: ManagerSerial,
		StopCost: stopCost, Upstream: srv.URL}, Options{})
	defer p.Close()
	a, _, err := p.Checkout(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Snapshot(); s.Mailbox != 0 || s.MailboxPeak != 1 || s.InUse != 1 {
		t.Fatalf("an idle worker taken with the manager idle: %+v, want mailbox 0, peak 1, one in use", s)
	}
	p.Checkin(a)
	if s := p.Snapshot(); s.Idle != 1 || s.InUse != 0 {
		t.Fatalf("checked in with the manager idle: %+v, want the worker idle at once", s)
	}
	a, _, _ = p.Checkout(context.Background())
	b, _, err := p.Checkout(context.Background()) // an overflow worker, started at no cost
	if err != nil || b == a {
		t.Fatalf("overflow checkout: %v", err)
	}
	began := time.Now()
	p.Checkin(b) // overflow out, nobody waiting: the manager dismisses b, stopCost long
	testwait.Eventually(t, 5*time.Second, "the manager to dismiss b", func() bool { return p.Snapshot().OverflowClosed == 1 || p.Snapshot().OverflowInUse == 0 })
	p.Checkin(a) // needs no work, but the manager is busy: into the mailbox
	if s := p.Snapshot(); time.Since(began) < stopCost/2 && (s.Idle != 0 || s.Mailbox != 1) {
		t.Fatalf("a checkin during the dismissal: %+v, want it queued (mailbox 1, nothing idle yet)", s)
	}
	c, wait, err := p.Checkout(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if since := time.Since(began); since < stopCost || c != a {
		t.Fatalf("a checkout after the checkin got %p (a %p) %v into a %v dismissal (wait %v): want a, after the dismissal", c, a, since, stopCost, wait)
	}
	p.Checkin(c)
}
