package results

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"
)

// counter is a Sink counting results and summing their sequence numbers.
type counter struct{ n, seqs uint64 }

func (c *counter) Add(r *Result) { c.n++; c.seqs += r.Seq }

func TestTee(t *testing.T) {
	a, b := &counter{}, &counter{}
	var order []string
	s := Tee(a, nil, SinkFunc(func(*Result) { order = append(order, "func") }), b)
	for i := range 5 {
		s.Add(&Result{Seq: uint64(i)})
	}
	if a.n != 5 || b.n != 5 || a.seqs != 10 || b.seqs != 10 || len(order) != 5 {
		t.Fatalf("a %+v b %+v func %d: every sink should see the 5 results", a, b, len(order))
	}
	if one := Tee(nil, a); one != Sink(a) {
		t.Fatalf("a tee of one sink should be that sink, got %T", one)
	}
}

// signalWriter collects what is written and signals each write.
type signalWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes chan int
	fail   error
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail != nil {
		return 0, w.fail
	}
	w.buf.Write(p)
	select {
	case w.writes <- len(p):
	default:
	}
	return len(p), nil
}

func (w *signalWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// TestStreamSinkFlushes: results added are readable from the file before
// Close, once the periodic flush has written them, while more are added
// concurrently; after Close every result is there once.
func TestStreamSinkFlushes(t *testing.T) {
	rs := sample(3000, 1000)
	out := &signalWriter{writes: make(chan int, 1)}
	s, err := NewStreamSink(out, Meta{Attack: "search"}, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	<-out.writes // the header
	for i := range 100 {
		s.Add(&rs[i])
	}
	select {
	case <-out.writes:
	case <-time.After(10 * time.Second):
		t.Fatal("no block flushed within 10 s of a 5 ms flush period")
	}
	got, err := decodeAll(t, out.bytes())
	if err != nil || len(got) == 0 || got[0].Seq != 0 {
		t.Fatalf("before Close: %d results, first %+v, err %v; want the flushed block", len(got), got, err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 100; i < len(rs); i++ {
			s.Add(&rs[i])
		}
	}()
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = decodeAll(t, out.bytes())
	if err != nil || len(got) != len(rs) {
		t.Fatalf("after Close: %d results, err %v; want %d", len(got), err, len(rs))
	}
	for i := range got {
		if got[i].Seq != rs[i].Seq || !got[i].Sent.Equal(rs[i].Sent) {
			t.Fatalf("result %d: got seq %d sent %v, want seq %d sent %v", i, got[i].Seq, got[i].Sent, rs[i].Seq, rs[i].Sent)
		}
	}
}

// TestStreamSinkWriteError: a failing file makes Close return the error.
func TestStreamSinkWriteError(t *testing.T) {
	out := &signalWriter{writes: make(chan int, 1)}
	s, err := NewStreamSink(out, Meta{}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	out.mu.Lock()
	out.fail = full
	out.mu.Unlock()
	rs := sample(blockMaxRecords+10, 1000)
	for i := range rs {
		s.Add(&rs[i])
	}
	if err := s.Close(); !errors.Is(err, full) {
		t.Fatalf("Close = %v, want %v", err, full)
	}
}
