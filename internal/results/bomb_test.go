package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// forgeBlock is a block as a hostile writer makes it: any payload, any
// announced lengths and count, with a checksum that holds.
func forgeBlock(z []byte, rawLen, count uint64) []byte {
	var hdr []byte
	hdr = binary.AppendUvarint(hdr, uint64(len(z)))
	hdr = binary.AppendUvarint(hdr, rawLen)
	hdr = binary.AppendUvarint(hdr, count)
	out := append([]byte(syncMarker), hdr...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Update(crc32.Checksum(hdr, castagnoli), castagnoli, z))
	return append(out, z...)
}

// streamHead is the file header of a stream with no blocks.
func streamHead(t testing.TB) []byte {
	t.Helper()
	data := encodeAll(t, nil)
	if i := bytes.Index(data, []byte(syncMarker)); i >= 0 {
		data = data[:i]
	}
	return data
}

func zstdAll(t testing.TB, raw []byte) []byte {
	t.Helper()
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(raw, nil)
}

// readCounting reads a stream (resynchronising, as archive add and report
// do) and returns how many results came and the error it ended with.
func readCounting(t testing.TB, data []byte) (int, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Resync(true)
	var res Result
	for n := 0; ; n++ {
		if err := r.Decode(&res); err != nil {
			return n, err
		}
	}
}

// A block whose checksum holds but whose count is more than a block
// holds (more than the writer puts in one, or more records than its
// decompressed bytes can hold at MinRecordBytes each) is a hostile file:
// reading stops there with an error saying so, even resynchronising (it
// is not damage to skip), before the block is decompressed.
func TestHostileCountsStopReading(t *testing.T) {
	good := encodeAll(t, sample(100, 1000))
	at := bytes.Index(good, []byte(syncMarker))
	blk := good[at:]
	rd := bytes.NewReader(blk[len(syncMarker):])
	zlen, _ := binary.ReadUvarint(rd)
	rawLen, _ := binary.ReadUvarint(rd)
	_, _ = binary.ReadUvarint(rd)
	z := blk[len(blk)-int(zlen):]
	for _, tc := range []struct {
		name          string
		rawLen, count uint64
	}{
		{"more than a block holds", (MaxBlockRecords + 1) * MinRecordBytes, MaxBlockRecords + 1},
		{"more than its bytes hold", rawLen, rawLen/MinRecordBytes + 1},
		{"a bomb's count and length", 200 << 20, 16 << 20},
	} {
		data := append(append([]byte(nil), good[:at]...), forgeBlock(z, tc.rawLen, tc.count)...)
		data = append(data, blk...) // a good block after it is not reached
		n, err := readCounting(t, data)
		var ce *CorruptError
		if !errors.As(err, &ce) || !ce.Hostile || ce.Offset != int64(at) {
			t.Fatalf("%s: %d results, err %v; want a hostile block at %d", tc.name, n, err, at)
		}
		if n != 0 {
			t.Errorf("%s: %d results read", tc.name, n)
		}
	}
	// A count larger than the block's length is taken for damage before
	// the checksum is read (as a damaged header most likely is): the block
	// is skipped, none of its results read, the next block's are.
	data := append(append([]byte(nil), good[:at]...), forgeBlock(z, rawLen, 16<<20)...)
	data = append(data, blk...)
	if n, err := readCounting(t, data); err != io.EOF || n != 100 {
		t.Fatalf("a count larger than its length: %d results, %v; want the next block's 100", n, err)
	}
	// the writer's own blocks, full ones included, are not hostile
	if n, err := readCounting(t, encodeAll(t, sample(3*MaxBlockRecords, 1000))); err != io.EOF || n != 3*MaxBlockRecords {
		t.Fatalf("full blocks: %d results, %v", n, err)
	}
}

// A block that decompresses to far more than it announces (a bomb: a
// few KiB expanding to 200 MiB) is cut off at its announced length: the
// reader commits no more memory than that, and skips it as damage.
func TestBlockBombDecodesNoFurtherThanAnnounced(t *testing.T) {
	z := zstdAll(t, make([]byte, 200<<20))
	head := streamHead(t)
	data := append(append([]byte(nil), head...), forgeBlock(z, 64<<10, 100)...)
	good := encodeAll(t, sample(10, 1000))
	data = append(data, good[bytes.Index(good, []byte(syncMarker)):]...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := readCounting(t, data)
	runtime.ReadMemStats(&after)
	if err != io.EOF || n != 10 {
		t.Fatalf("%d results, %v; want the 10 of the good block after the bomb", n, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("reading the bomb allocated %d MiB", grew>>20)
	}
}

// FuzzBlockCounts forges blocks of any counts, lengths and payloads with
// a checksum that holds: a block never yields more results than
// MaxBlockRecords, nor more than its decompressed length holds.
func FuzzBlockCounts(f *testing.F) {
	f.Add(uint64(16<<20), uint64(200<<20), []byte{}, false)
	f.Add(uint64(4096), uint64(4096*11), bytes.Repeat([]byte{0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 64), true)
	f.Add(uint64(1), uint64(12), []byte{1, 1, 0, 0}, true)
	head := streamHead(f)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, count, rawLen uint64, payload []byte, compress bool) {
		z := payload
		if compress {
			z = enc.EncodeAll(payload, nil)
		}
		data := append(append([]byte(nil), head...), forgeBlock(z, rawLen, count)...)
		n, _ := readCounting(t, data)
		if n > MaxBlockRecords || uint64(n)*MinRecordBytes > rawLen {
			t.Fatalf("%d results from a block announcing %d in %d bytes", n, count, rawLen)
		}
	})
}
