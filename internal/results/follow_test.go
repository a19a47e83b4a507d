package results

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// tail is the file a follower reads, as the test sees it: it reports each
// time the follower reached the end of what was written (and so waits for
// more), with the offset it got to.
type tail struct {
	r    io.Reader
	read atomic.Int64
	eof  chan int64
}

func (t *tail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	off := t.read.Add(int64(n))
	if n == 0 && err == io.EOF {
		select {
		case t.eof <- off:
		default: // nobody waits: the follower polls again soon
		}
	}
	return n, err
}

// TestFollowLiveFile reads a stream while another goroutine is still writing
// it block by block, as `loadlab report -follow` does with a running attack.
// Each block is written once the follower has read all before it and waits
// at the end of the file, so every block is one the follower waited for.
func TestFollowLiveFile(t *testing.T) {
	tests := []struct {
		name   string
		cancel bool // stop by ctx instead of by idleness
	}{
		{"stops when idle", false},
		{"stops when cancelled", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "live.lll")
			wf, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer wf.Close()
			w, err := NewWriter(wf, Meta{})
			if err != nil {
				t.Fatal(err)
			}
			rf, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer rf.Close()
			tl := &tail{r: rf, eof: make(chan int64, 1)}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Idle stops the follower once the writer is done: it must not
			// stop it between blocks, which come as soon as the follower
			// waits (1 s leaves room for a goroutine kept off the CPU).
			idle := time.Second
			if tc.cancel {
				idle = 0
			}
			rs := sample(300, 1000)
			written := make(chan struct{})
			var lastWrite time.Time // read once the writer is done
			// waitFollower waits until the follower has read the whole file
			// and waits for more.
			waitFollower := func() {
				size, err := wf.Seek(0, io.SeekCurrent)
				for err == nil {
					if off := <-tl.eof; off >= size {
						return
					}
				}
			}
			go func() {
				defer close(written)
				for i := range rs {
					w.Encode(&rs[i])
					if i%100 == 99 {
						waitFollower()
						lastWrite = time.Now() // before the follower can see it
						w.Flush()              // a block every 100 results
					}
				}
				if tc.cancel {
					waitFollower() // then Ctrl-C
					cancel()
				}
			}()
			start := time.Now()
			r, err := NewReader(Follow(ctx, tl, 5*time.Millisecond, idle))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				var res Result
				err := r.Decode(&res)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Seq != uint64(n) {
					t.Fatalf("result %d has seq %d", n, res.Seq)
				}
				n++
			}
			if n != len(rs) {
				t.Fatalf("followed %d results, want %d", n, len(rs))
			}
			<-written
			if !tc.cancel {
				if quiet := time.Since(lastWrite); quiet < idle {
					t.Errorf("stopped %v after the last block, before the %v idle time", quiet, idle)
				}
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Fatalf("follow took %s to stop", el)
			}
		})
	}
}
