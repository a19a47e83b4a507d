package sqlstore

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// zstdOf is data compressed as one zstd frame.
func zstdOf(t testing.TB, data []byte) []byte {
	t.Helper()
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(data, nil)
}

// A forged archive whose chunk expands to far more than a chunk (a
// decompression bomb: 256 MiB of zeros in a few KiB), or whose chunk holds
// more or fewer bytes than the file's recorded size leaves for it, is an
// error naming the chunk when the file is read, not memory the reader
// commits: the decoder writes no further than a chunk's room.
func TestForgedChunksAreErrors(t *testing.T) {
	bomb := zstdOf(t, make([]byte, 256<<20))
	if len(bomb) > 64<<10 {
		t.Fatalf("the bomb is %d bytes compressed", len(bomb))
	}
	cases := []struct {
		name, codec string
		data        []byte
		want        string
	}{
		{"bomb", codecZstd, bomb, "does not decompress"},
		{"zstd chunk longer than the file", codecZstd, zstdOf(t, bytes.Repeat([]byte("ab"), 40)), "does not decompress"},
		{"zstd chunk shorter than the file", codecZstd, zstdOf(t, []byte("ab")), "holds 2 bytes"},
		{"raw chunk longer than the file", codecRaw, bytes.Repeat([]byte("x"), 5000), "holds 5000 bytes"},
		{"unknown codec", "gzip", []byte("x"), "unknown codec"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, filepath.Join(t.TempDir(), "a.db"))
			b := bundle(t, tc.name, time.Date(2020, 2, 4, 10, 0, 0, 0, time.UTC), time.Millisecond, nil)
			id, _, err := s.Add(ctx, identified(t, b))
			if err != nil {
				t.Fatal(err)
			}
			// report.md is compressible text, stored in chunks; its first
			// chunk is replaced and its recorded size set to 50 bytes
			if _, err := s.db.ExecContext(ctx, `UPDATE chunks SET codec = ?, data = ? WHERE name = 'report.md' AND n = 0`, tc.codec, tc.data); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(ctx, `UPDATE files SET size = 50 WHERE name = 'report.md'`); err != nil {
				t.Fatal(err)
			}
			rc, err := s.OpenFile(ctx, id, "report.md")
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			n, err := io.Copy(io.Discard, rc)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "chunk 0 of report.md") || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "forged") {
				t.Fatalf("read %d bytes, err %v; want an error naming chunk 0 of report.md: %s", n, err, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("reading the forged chunk allocated %d MiB", grew>>20)
			}
		})
	}
}

// Past a file's recorded size nothing is read: a forged extra chunk is
// never decompressed nor served.
func TestChunksPastRecordedSizeUnread(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "a.db"))
	id, _, err := s.Add(ctx, identified(t, bundle(t, "extra", time.Date(2020, 2, 4, 10, 0, 0, 0, time.UTC), time.Millisecond, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	if err := s.db.QueryRowContext(ctx, `SELECT size FROM files WHERE name = 'name'`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO chunks (run_seq, name, n, codec, data) SELECT run_seq, name, 1, 'zstd', ? FROM chunks WHERE name = 'name' AND n = 0`,
		zstdOf(t, make([]byte, 64<<20))); err != nil {
		t.Fatal(err)
	}
	rc, err := s.OpenFile(ctx, id, "name")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil || int64(len(got)) != size {
		t.Fatalf("read %d bytes, %v; want the %d recorded", len(got), err, size)
	}
}

// FuzzDecodeChunk gives the chunk decoder hostile bytes and sizes: it
// never returns more than the size asked for, and returns exactly that
// or an error.
func FuzzDecodeChunk(f *testing.F) {
	f.Add(true, zstdOf(f, make([]byte, 3<<20)), 100)
	f.Add(true, zstdOf(f, []byte("hello hello hello")), 17)
	f.Add(false, []byte("raw"), 3)
	f.Add(true, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58, 0, 0, 0, 0}, 10)
	buf := make([]byte, 0, ChunkSize)
	f.Fuzz(func(t *testing.T, compressed bool, data []byte, want int) {
		if want < 0 || want > ChunkSize {
			return
		}
		codec := codecRaw
		if compressed {
			codec = codecZstd
		}
		out, err := decodeChunk(codec, data, want, buf)
		if err == nil && len(out) != want {
			t.Fatalf("returned %d bytes, want %d", len(out), want)
		}
		if cap(out) > ChunkSize && compressed {
			t.Fatalf("decoded into %d bytes of room", cap(out))
		}
	})
}
