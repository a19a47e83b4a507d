package results

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFollowLiveFile reads a stream while another goroutine is still writing
// it block by block, as `loadlab report -follow` does with a running attack.
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
			rs := sample(300, 1000)
			go func() {
				for i := range rs {
					w.Encode(&rs[i])
					if i%100 == 99 {
						w.Flush() // a block every 100 results, 30 ms apart
						time.Sleep(30 * time.Millisecond)
					}
				}
			}()
			rf, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer rf.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			idle := 300 * time.Millisecond
			if tc.cancel {
				idle = 0
				time.AfterFunc(600*time.Millisecond, cancel)
			}
			start := time.Now()
			r, err := NewReader(Follow(ctx, rf, 5*time.Millisecond, idle))
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
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("follow took %s to stop", el)
			}
		})
	}
}
