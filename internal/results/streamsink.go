package results

import (
	"io"
	"sync"
	"time"
)

// StreamSink is the Sink that writes results to a loadlab stream while an
// attack runs. It flushes the pending block every period, so that a reader
// following the file sees fresh data and a crash loses at most one period of
// results; Close writes the last block. Add is safe to call while the
// periodic flush runs (the attack calls it from its result goroutine).
type StreamSink struct {
	mu   sync.Mutex
	w    *Writer
	err  error // first write error
	stop chan struct{}
	done chan struct{}
}

// NewStreamSink writes the stream header for meta to out and starts
// flushing every period (> 0).
func NewStreamSink(out io.Writer, meta Meta, period time.Duration) (*StreamSink, error) {
	w, err := NewWriter(out, meta)
	if err != nil {
		return nil, err
	}
	s := &StreamSink{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go s.flushEvery(period)
	return s, nil
}

func (s *StreamSink) flushEvery(period time.Duration) {
	defer close(s.done)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.mu.Lock()
			s.keep(s.w.Flush())
			s.mu.Unlock()
		case <-s.stop:
			return
		}
	}
}

// keep remembers the first error. Called with mu held.
func (s *StreamSink) keep(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
}

// Add appends r to the stream. A write error is kept and returned by Close;
// the results after it are not written.
func (s *StreamSink) Add(r *Result) {
	s.mu.Lock()
	if s.err == nil {
		s.keep(s.w.Encode(r))
	}
	s.mu.Unlock()
}

// Close stops the periodic flush and writes the last block. It returns the
// first write error, if any. It does not close the underlying writer.
func (s *StreamSink) Close() error { return s.CloseWith(nil) }

// CloseWith is Close writing t, when not nil, as the stream's trailer
// after its last results.
func (s *StreamSink) CloseWith(t *Trailer) error {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if t != nil && s.err == nil {
		s.keep(s.w.WriteTrailer(*t))
	}
	s.keep(s.w.Close())
	return s.err
}
