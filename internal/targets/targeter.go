package targets

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Targeter hands out the target of each request. It is safe for concurrent
// use. Next returns io.EOF when a finite stream is exhausted.
type Targeter interface {
	Next() (*Target, error)
}

// RoundRobin cycles through a fixed list of targets.
type RoundRobin struct {
	ts []*Target
	i  atomic.Uint64
}

// NewRoundRobin returns a Targeter cycling through ts, which must not be
// empty.
func NewRoundRobin(ts []*Target) (*RoundRobin, error) {
	if len(ts) == 0 {
		return nil, badinput.Errorf("no targets (give them on stdin or with -targets)")
	}
	return &RoundRobin{ts: ts}, nil
}

// Next returns the next target in turn.
func (r *RoundRobin) Next() (*Target, error) {
	i := r.i.Add(1) - 1
	return r.ts[i%uint64(len(r.ts))], nil
}

// Targets is the list cycled through.
func (r *RoundRobin) Targets() []*Target { return r.ts }

// Lazy reads one target per request from a stream, never holding more than
// one in memory; the attack ends when the stream does.
type Lazy struct {
	mu  sync.Mutex
	d   *Decoder
	err error
}

// NewLazy returns a Targeter reading from d.
func NewLazy(d *Decoder) *Lazy { return &Lazy{d: d} }

// Next decodes the next target; once the stream ended or failed, every call
// returns the same error.
func (l *Lazy) Next() (*Target, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, l.err
	}
	t, err := l.d.Next()
	if err != nil {
		if errors.Is(err, io.EOF) && l.d.n == 0 {
			err = badinput.Errorf("no targets (give them on stdin or with -targets)")
		}
		l.err = err
		return nil, err
	}
	return t, nil
}

// Static returns a round-robin Targeter over a single target given in code,
// e.g. "GET http://127.0.0.1:8080/search?q={{rand.letters 50}}".
func Static(method, url string) (*RoundRobin, error) {
	d := &Decoder{opts: Options{Format: HTTP, File: "target"}, bodies: map[string]*Template{}}
	t, err := d.newTarget(1, method, url)
	if err != nil {
		return nil, err
	}
	t.finalize()
	return NewRoundRobin([]*Target{t})
}
