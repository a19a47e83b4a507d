package results

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestHeaderBitFlipsLoseNoResult flips every bit of a stream's header
// length and JSON, one at a time: a resynchronising read still returns
// every result (the blocks decode on their own), and says the header was
// damaged when it could not be read; a strict read stops at it.
func TestHeaderBitFlipsLoseNoResult(t *testing.T) {
	rs := sample(2000, 1000)
	clean := encodeAll(t, rs)
	first := bytes.Index(clean, []byte(syncMarker))
	metaAt := len(magic) + 1 // after the version byte
	damagedSeen := 0
	for off := metaAt; off < first; off++ {
		for bit := 0; bit < 8; bit++ {
			data := bytes.Clone(clean)
			data[off] ^= 1 << bit
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("bit %d of byte %d: %v", bit, off, err)
			}
			r.Resync(true)
			n := 0
			var res Result
			for {
				err := r.Decode(&res)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("bit %d of byte %d: after %d results: %v", bit, off, n, err)
				}
				n++
			}
			if n != len(rs) {
				t.Fatalf("bit %d of byte %d: %d results read, want %d", bit, off, n, len(rs))
			}
			if h := r.HeaderDamaged(); h != nil {
				damagedSeen++
				if d := r.Damaged(); len(d) != 1 || d[0].Offset != int64(metaAt) || d[0].Lost != 0 {
					t.Fatalf("bit %d of byte %d: damage %+v", bit, off, d)
				}
				strict, _ := NewReader(bytes.NewReader(data))
				var ce *CorruptError
				if err := strict.Decode(&res); !errors.As(err, &ce) {
					t.Fatalf("bit %d of byte %d: strict read: %v, want a corrupt header", bit, off, err)
				}
			}
		}
	}
	if damagedSeen < (first-metaAt)*4 {
		t.Errorf("only %d of %d flips damaged the header: the test is not testing much", damagedSeen, (first-metaAt)*8)
	}
}
