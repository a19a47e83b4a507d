package pool

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

func TestCheckoutOverflowAndTimeout(t *testing.T) {
	tests := []struct {
		name         string
		size, over   int
		take         int // checkouts held
		wantOverflow int
		wantTimeout  bool
		timeout      time.Duration
	}{
		{"idle workers", 2, 1, 1, 0, false, 50 * time.Millisecond},
		{"overflow on demand", 2, 2, 4, 2, false, 50 * time.Millisecond},
		{"exhausted then timeout", 1, 1, 2, 1, true, 30 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Name: "t", Size: tc.size, Overflow: tc.over, CheckoutTimeout: tc.timeout}, Options{})
			defer p.Close()
			var held []*Worker
			for i := 0; i < tc.take; i++ {
				w, wait, err := p.Checkout(context.Background())
				if err != nil || wait != 0 {
					t.Fatalf("checkout %d: %v after %v", i, err, wait)
				}
				held = append(held, w)
			}
			s := p.Snapshot()
			if s.OverflowInUse != tc.wantOverflow || s.InUse != tc.take {
				t.Fatalf("snapshot %+v, want overflow %d in use %d", s, tc.wantOverflow, tc.take)
			}
			if tc.wantTimeout {
				start := time.Now()
				_, wait, err := p.Checkout(context.Background())
				if !errors.Is(err, ErrTimeout) {
					t.Fatalf("err %v, want timeout", err)
				}
				if el := time.Since(start); el < tc.timeout || wait < tc.timeout {
					t.Fatalf("gave up after %v (wait %v), want >= %v", el, wait, tc.timeout)
				}
				if p.Snapshot().Timeouts != 1 || p.Snapshot().Waiting != 0 {
					t.Fatalf("after timeout %+v", p.Snapshot())
				}
			}
			for _, w := range held {
				p.Checkin(w)
			}
			s = p.Snapshot()
			if s.InUse != 0 || s.OverflowInUse != 0 || s.Idle != tc.size || s.OverflowClosed != uint64(tc.wantOverflow) {
				t.Fatalf("after checkin %+v", s)
			}
		})
	}
}

func TestWaitersServedFIFOAndHandedOverflow(t *testing.T) {
	// Waiters wait as long as the test takes to queue and serve them.
	p := New(Config{Size: 1, Overflow: 1, CheckoutTimeout: time.Minute}, Options{})
	defer p.Close()
	a, _, _ := p.Checkout(context.Background())
	b, _, _ := p.Checkout(context.Background()) // overflow
	if !b.Overflow() || a.Overflow() {
		t.Fatal("expected one persistent and one overflow worker")
	}
	type got struct {
		i int
		w *Worker
	}
	order := make(chan got, 3)
	for i := 0; i < 3; i++ {
		go func() {
			w, _, err := p.Checkout(context.Background())
			if err != nil {
				t.Error(err)
			}
			order <- got{i, w}
		}()
		testwait.Eventually(t, 10*time.Second, fmt.Sprintf("waiter %d to queue", i), func() bool { // queue them in a known order
			return p.Snapshot().Waiting == i+1
		})
	}
	p.Checkin(b) // handed to waiter 0, not dismissed
	if g := <-order; g.i != 0 || g.w != b {
		t.Fatalf("waiter %d got the overflow worker, want waiter 0", g.i)
	}
	if p.Snapshot().OverflowClosed != 0 {
		t.Fatal("overflow worker dismissed while callers waited")
	}
	p.Checkin(a)
	g1 := <-order
	p.Checkin(b)
	g2 := <-order
	if g1.i != 1 || g2.i != 2 {
		t.Fatalf("served waiters %d, %d; want 1, 2 (FIFO)", g1.i, g2.i)
	}
	p.Checkin(g1.w)
	p.Checkin(g2.w)
	testwait.Until(10*time.Second, func() bool { return p.Snapshot().InUse == 0 })
	if s := p.Snapshot(); s.InUse != 0 || s.OverflowInUse != 0 || s.Idle != 1 {
		t.Fatalf("final %+v", s)
	}
}

func TestClosedPoolStillServesWaiters(t *testing.T) {
	p := New(Config{Size: 1, CheckoutTimeout: time.Minute}, Options{})
	w, _, _ := p.Checkout(context.Background())
	got := make(chan error, 1)
	go func() {
		w2, _, err := p.Checkout(context.Background())
		if err == nil {
			p.Checkin(w2)
		}
		got <- err
	}()
	testwait.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return p.Snapshot().Waiting == 1 })
	p.Close()
	if _, _, err := p.Checkout(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("checkout on closed pool: %v", err)
	}
	p.Checkin(w)
	if err := <-got; err != nil {
		t.Fatalf("waiter dropped on close: %v", err)
	}
	if s := p.Snapshot(); s.Idle != 0 || s.InUse != 0 {
		t.Fatalf("closed pool kept workers: %+v", s)
	}
}
