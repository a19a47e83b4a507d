package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

// rewriteCount gives the block at off a new record count, with a checksum
// that matches: what a tool (or a bit flip followed by a "repair") would
// leave behind.
func rewriteCount(t *testing.T, data []byte, off int, count uint64) []byte {
	t.Helper()
	rd := bytes.NewReader(data[off+len(syncMarker):])
	zlen, _ := binary.ReadUvarint(rd)
	rawLen, _ := binary.ReadUvarint(rd)
	if _, err := binary.ReadUvarint(rd); err != nil {
		t.Fatal(err)
	}
	hdrEnd := len(data) - rd.Len()
	z := data[hdrEnd+4 : hdrEnd+4+int(zlen)]
	var hdr []byte
	hdr = binary.AppendUvarint(hdr, zlen)
	hdr = binary.AppendUvarint(hdr, rawLen)
	hdr = binary.AppendUvarint(hdr, count)
	crc := crc32.Update(crc32.Checksum(hdr, castagnoli), castagnoli, z)
	out := append([]byte(nil), data[:off+len(syncMarker)]...)
	out = append(out, hdr...)
	out = binary.LittleEndian.AppendUint32(out, crc)
	out = append(out, z...)
	return append(out, data[hdrEnd+4+int(zlen):]...)
}

// A block whose record count was rewritten (smaller, or 0) with a valid
// checksum must not drop its other records silently.
func TestRecordCountMustMatchData(t *testing.T) {
	rs := sample(2*blockMaxRecords+100, 1000) // 3 blocks
	data := encodeAll(t, rs)
	second := bytes.Index(data[bytes.Index(data, []byte(syncMarker))+1:], []byte(syncMarker)) + bytes.Index(data, []byte(syncMarker)) + 1
	for _, count := range []uint64{0, 10} {
		bad := rewriteCount(t, data, second, count)
		got, err := decodeAll(t, bad)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Offset != int64(second) {
			t.Fatalf("count %d: %d results read, err %v; want a corrupt block at %d", count, len(got), err, second)
		}
		if want := blockMaxRecords + int(count); len(got) != want {
			t.Errorf("count %d: %d results before the error, want %d", count, len(got), want)
		}
	}
	if got, err := decodeAll(t, rewriteCount(t, data, second, blockMaxRecords)); err != nil || len(got) != len(rs) {
		t.Fatalf("rewriting the right count: %d, %v", len(got), err)
	}
}
