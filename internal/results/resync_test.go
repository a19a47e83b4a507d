package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

// blockSpan is one block of a clean stream: where it starts and ends and
// how many results it holds.
type blockSpan struct {
	start, end int
	count      int
}

// blocksOf finds the blocks of a clean version 2 stream.
func blocksOf(t testing.TB, data []byte) []blockSpan {
	t.Helper()
	var out []blockSpan
	at := bytes.Index(data, []byte(syncMarker))
	for at >= 0 {
		next := bytes.Index(data[at+1:], []byte(syncMarker))
		end := len(data)
		if next >= 0 {
			end = at + 1 + next
		}
		p := data[at+len(syncMarker):]
		_, n1 := binary.Uvarint(p)
		_, n2 := binary.Uvarint(p[n1:])
		c, _ := binary.Uvarint(p[n1+n2:])
		out = append(out, blockSpan{at, end, int(c)})
		if next < 0 {
			break
		}
		at = end
	}
	return out
}

// readResync reads data with resynchronisation on, returning the results
// by sequence number and the damage the reader reported.
func readResync(t testing.TB, data []byte) (map[uint64]Result, []Damage) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Resync(true)
	got := map[uint64]Result{}
	var res Result
	for {
		err := r.Decode(&res)
		if err == io.EOF {
			break
		}
		var ce *CorruptError
		if errors.As(err, &ce) && ce.Torn {
			break
		}
		if err != nil {
			t.Fatalf("resynchronising reader stopped: %v", err)
		}
		got[res.Seq] = res
	}
	return got, r.Damaged()
}

// A damaged block costs that block only: flipped bytes, holes and a block
// cut short in the middle of the file, at random places (fixed seed), in a
// stream of 200,000 results (50 blocks): every result read is one that was
// written, and at least all those outside the damaged blocks are read.
func TestDamageCostsOnlyTheDamagedBlocks(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 40_000
	}
	rs := sample(n, 1000)
	clean := encodeAll(t, rs)
	blocks := blocksOf(t, clean)
	if len(blocks) < 10 {
		t.Fatalf("only %d blocks", len(blocks))
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 30; trial++ {
		data := bytes.Clone(clean)
		touched := map[int]bool{}
		blockAt := func(off int) int {
			for i, b := range blocks {
				if off >= b.start && off < b.end {
					return i
				}
			}
			return -1
		}
		kind := trial % 3
		// Damage one to three places, in reverse offset order so that
		// holes do not move the places still to damage.
		var offs []int
		for k := 0; k < 1+rng.IntN(3); k++ {
			offs = append(offs, blocks[0].start+rng.IntN(len(data)-blocks[0].start-1))
		}
		for i := range offs {
			for j := i + 1; j < len(offs); j++ {
				if offs[j] > offs[i] {
					offs[i], offs[j] = offs[j], offs[i]
				}
			}
		}
		for _, off := range offs {
			switch kind {
			case 0: // flipped bytes
				for k := 0; k < 1+rng.IntN(8); k++ {
					o := min(off+k, len(data)-1)
					data[o] ^= byte(1 + rng.IntN(255))
					touched[blockAt(o)] = true
				}
			case 1: // a hole
				size := 1 + rng.IntN(3000)
				end := min(off+size, len(data))
				for o := off; o < end; o++ {
					touched[blockAt(o)] = true
				}
				data = append(data[:off], data[end:]...)
			case 2: // a block cut short, the rest of the file after it
				if touched[blockAt(off)] {
					continue // cut already
				}
				b := blocks[blockAt(off)]
				cut := b.start + (b.end-b.start)/2
				touched[blockAt(off)] = true
				data = append(data[:cut], data[b.end:]...)
			}
		}
		lost := 0
		for i := range touched {
			if i >= 0 {
				lost += blocks[i].count
			}
		}
		got, damage := readResync(t, data)
		for seq, r := range got {
			if seq >= uint64(n) || r.Code != rs[seq].Code || !r.Due.Equal(rs[seq].Due) || r.Latency != rs[seq].Latency || r.URL != rs[seq].URL || r.Attack != rs[seq].Attack {
				t.Fatalf("trial %d: result %d read back wrong: %+v", trial, seq, r)
			}
		}
		if len(got) < n-lost {
			t.Fatalf("trial %d (kind %d): read %d of %d results, at least %d expected (%d in damaged blocks); damage %v", trial, kind, len(got), n, n-lost, lost, damage)
		}
		if lost > 0 && len(got) < n && len(damage) == 0 {
			t.Fatalf("trial %d: results lost but no damage reported", trial)
		}
	}
}

// Version 1 files (written before the format had sync markers) are read
// as before.
func TestReadsVersion1Streams(t *testing.T) {
	data, err := os.ReadFile("testdata/v1-stream.lll")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := decodeAll(t, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 10000 {
		t.Fatalf("%d results, want 10000", len(rs))
	}
	errs := 0
	for i, r := range rs {
		if r.Seq != uint64(i) || r.Attack != "v1" || r.Method != "GET" || r.URL == "" {
			t.Fatalf("result %d: %+v", i, r)
		}
		if r.Error != "" {
			errs++
		}
	}
	if errs != 589 {
		t.Errorf("%d results with errors, want 589 (every 17th)", errs)
	}
}

// A writer that crashed leaves a torn block; a writer restarted on the
// same file appends fresh blocks after it. Everything but the torn block
// is read, and the torn block is reported.
func TestTornBlockFollowedByARestartedWriter(t *testing.T) {
	first := encodeAll(t, sample(10_000, 1000)) // 3 blocks
	blocks := blocksOf(t, first)
	last := blocks[len(blocks)-1]
	torn := first[:last.start+(last.end-last.start)/3]
	second := sample(20_000, 1000)[10_000:]
	more := encodeAll(t, second)
	more = more[bytes.Index(more, []byte(syncMarker)):] // its blocks, not its header
	data := append(bytes.Clone(torn), more...)
	got, damage := readResync(t, data)
	want := 10_000 - last.count + len(second)
	if len(got) != want {
		t.Fatalf("read %d results, want %d", len(got), want)
	}
	if len(damage) != 1 || damage[0].Offset != int64(last.start) || damage[0].Lost != int64(last.count) {
		t.Fatalf("damage %+v, want the torn block at %d with its %d results", damage, last.start, last.count)
	}
	// Without resynchronisation the torn block ends the stream, as before.
	if rs, err := decodeAll(t, data); err == nil || len(rs) != 10_000-last.count {
		t.Errorf("strict read: %d results, %v", len(rs), err)
	}
}
