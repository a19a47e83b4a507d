package runblock

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Bounds on what is decoded from a file or a database, checked before
// anything is allocated.
const (
	// MaxBlocks is the most blocks one step's scenario may have: a week
	// of two-second blocks.
	MaxBlocks = 7 * 24 * 3600 / 2
	// MaxHistBytes is the longest encoded histogram read (an encoded
	// latency histogram of loadlab's range takes at most a few tens of KB).
	MaxHistBytes = 1 << 20
)

// codecMagic opens an encoded list of blocks; its last byte is the
// encoding's version.
const codecMagic = "LLRB\x01"

// EncodeBlocks is blocks in a compact binary form DecodeBlocks reads: the
// way the archive stores a step's blocks.
func EncodeBlocks(blocks []Block) []byte {
	b := []byte(codecMagic)
	b = binary.AppendUvarint(b, uint64(len(blocks)))
	for _, k := range blocks {
		b = binary.AppendVarint(b, int64(k.Start))
		b = binary.AppendVarint(b, int64(k.Length))
		b = binary.AppendUvarint(b, k.Requests)
		b = binary.AppendUvarint(b, k.OK)
		b = binary.AppendVarint(b, int64(k.LagP99))
		b = binary.AppendUvarint(b, uint64(len(k.Hist)))
		b = append(b, k.Hist...)
	}
	return b
}

// minBlockBytes is the fewest bytes an encoded block takes (six one-byte
// varints and no histogram).
const minBlockBytes = 6

// DecodeBlocks reads what EncodeBlocks wrote, refusing counts and
// lengths beyond MaxBlocks, MaxHistBytes or the bytes there are. The
// histograms are not decoded (see DecodeHistogram).
func DecodeBlocks(b []byte) ([]Block, error) {
	if !bytes.HasPrefix(b, []byte(codecMagic)) {
		return nil, errors.New("blocks: not an encoded list of time blocks (or of a newer version)")
	}
	r := bytes.NewReader(b[len(codecMagic):])
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, fmt.Errorf("blocks: count: %w", err)
	}
	if n > MaxBlocks || n > uint64(r.Len()/minBlockBytes) {
		return nil, fmt.Errorf("blocks: %d blocks in %d bytes (at most %d)", n, r.Len(), MaxBlocks)
	}
	out := make([]Block, n)
	for i := range out {
		var v [6]uint64
		for j := range v {
			if j == 0 || j == 1 || j == 4 {
				x, err := binary.ReadVarint(r)
				v[j] = uint64(x)
				if err != nil {
					return nil, fmt.Errorf("blocks: block %d: %w", i, err)
				}
				continue
			}
			if v[j], err = binary.ReadUvarint(r); err != nil {
				return nil, fmt.Errorf("blocks: block %d: %w", i, err)
			}
		}
		if v[5] > MaxHistBytes || v[5] > uint64(r.Len()) {
			return nil, fmt.Errorf("blocks: block %d: histogram of %d bytes (%d left, at most %d)", i, v[5], r.Len(), MaxHistBytes)
		}
		k := Block{Start: time.Duration(int64(v[0])), Length: time.Duration(int64(v[1])), Requests: v[2], OK: v[3], LagP99: time.Duration(int64(v[4]))}
		if v[5] > 0 {
			k.Hist = make([]byte, v[5])
			io.ReadFull(r, k.Hist)
		}
		out[i] = k
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("blocks: %d bytes after the last block", r.Len())
	}
	return out, nil
}

// DecodeHistogram decodes a block's histogram, refusing (before the
// histogram is allocated) one longer than MaxHistBytes or of another
// range or precision than metrics.NewHistogram's, so a hostile file
// cannot make it allocate gigabytes.
func DecodeHistogram(enc []byte) (*hdrhistogram.Histogram, error) {
	if len(enc) > MaxHistBytes {
		return nil, fmt.Errorf("histogram of %d bytes (at most %d)", len(enc), MaxHistBytes)
	}
	raw, err := base64.StdEncoding.DecodeString(string(enc))
	if err != nil || len(raw) < 8 {
		return nil, errors.New("histogram: not an encoded HdrHistogram")
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return nil, fmt.Errorf("histogram: %v", err)
	}
	var hdr struct {
		Cookie, PayloadLen, Offset, SigFigs int32
		Lowest, Highest                     int64
	}
	if err := binary.Read(zr, binary.BigEndian, &hdr); err != nil {
		return nil, fmt.Errorf("histogram header: %v", err)
	}
	if hdr.Lowest != int64(metrics.HistogramLowest/metrics.HistogramUnit) || hdr.Highest != int64(metrics.HistogramHighest/metrics.HistogramUnit) ||
		hdr.SigFigs != metrics.HistogramSigFigs {
		return nil, fmt.Errorf("histogram: range %d..%d with %d digits, not loadlab's latency histogram", hdr.Lowest, hdr.Highest, hdr.SigFigs)
	}
	if hdr.PayloadLen < 0 || hdr.PayloadLen > 16*MaxHistBytes {
		return nil, fmt.Errorf("histogram: payload of %d bytes", hdr.PayloadLen)
	}
	return hdrhistogram.Decode(enc)
}
