package results

import (
	"context"
	"io"
	"time"
)

// Follow wraps a stream that is still being written (an attack's -output
// file) so reads wait for more data instead of ending. At EOF it polls every
// interval; it reports io.EOF once ctx is done or, when idle > 0, once
// nothing new has arrived for idle. The attack flushes a block every 250 ms,
// so a follower sees results within about that delay.
func Follow(ctx context.Context, r io.Reader, interval, idle time.Duration) io.Reader {
	return &follower{ctx: ctx, r: r, every: interval, idle: idle, last: time.Now()}
}

type follower struct {
	ctx   context.Context
	r     io.Reader
	every time.Duration
	idle  time.Duration
	last  time.Time // when data last arrived
}

func (f *follower) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		if n > 0 {
			f.last = time.Now()
			return n, nil
		}
		if err != io.EOF {
			return 0, err
		}
		if f.idle > 0 && time.Since(f.last) >= f.idle {
			return 0, io.EOF
		}
		t := time.NewTimer(f.every)
		select {
		case <-f.ctx.Done():
			t.Stop()
			return 0, io.EOF
		case <-t.C:
		}
	}
}
