package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/loadlab/loadlab/internal/archive"
)

// ChunkSize is how much of a raw file one row holds.
const ChunkSize = 1 << 20

// Chunk codecs: stored as is (already compressed, as loadlab's results
// streams are), or zstd-compressed.
const (
	codecRaw  = "raw"
	codecZstd = "zstd"
)

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	dec     *zstd.Decoder
)

func codecs() (*zstd.Encoder, *zstd.Decoder) {
	encOnce.Do(func() {
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		// A chunk never decompresses to more than ChunkSize: DecodeAll
		// stops at its destination's capacity, whatever the frame says.
		dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(ChunkSize), zstd.WithDecodeAllCapLimit(true))
	})
	return enc, dec
}

// insertFiles stores every file in chunks; a file whose first chunk does
// not shrink by a twentieth under zstd is stored as it is.
func (s *Store) insertFiles(ctx context.Context, tx *sql.Tx, seq int64, files []archive.BundleFile) error {
	e, _ := codecs()
	qf := s.d.rebind("INSERT INTO files (run_seq, ord, name, size) VALUES (?, ?, ?, ?)")
	qc := s.d.rebind("INSERT INTO chunks (run_seq, name, n, codec, data) VALUES (?, ?, ?, ?, ?)")
	buf := make([]byte, ChunkSize)
	var zbuf []byte
	for i, f := range files {
		rc, err := f.Open()
		if err != nil {
			return err
		}
		var size int64
		compress := true
		for n := 0; ; n++ {
			if err := ctx.Err(); err != nil {
				rc.Close()
				return err
			}
			k, rerr := io.ReadFull(rc, buf)
			if k == 0 && n > 0 {
				break
			}
			size += int64(k)
			data, codec := buf[:k], codecRaw
			if compress && k > 0 {
				zbuf = e.EncodeAll(buf[:k], zbuf[:0])
				if len(zbuf) < k-k/20 {
					data, codec = zbuf, codecZstd
				} else if n == 0 {
					compress = false
				}
			}
			if _, err := tx.ExecContext(ctx, qc, seq, f.Name, n, codec, data); err != nil {
				rc.Close()
				return s.dbError(err)
			}
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				break
			}
			if rerr != nil {
				rc.Close()
				return fmt.Errorf("%s: %w", f.Name, rerr)
			}
		}
		rc.Close()
		if _, err := tx.ExecContext(ctx, qf, seq, i, f.Name, size); err != nil {
			return s.dbError(err)
		}
	}
	return nil
}

// Files lists the run's stored files in the order they were added.
func (s *Store) Files(ctx context.Context, id string) ([]archive.File, error) {
	seq, err := s.seq(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind("SELECT name, size FROM files WHERE run_seq = ? ORDER BY ord"), seq)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	var out []archive.File
	for rows.Next() {
		var f archive.File
		if err := rows.Scan(&f.Name, &f.Size); err != nil {
			return nil, s.dbError(err)
		}
		out = append(out, f)
	}
	return out, s.dbError(rows.Err())
}

// OpenFile streams one stored file, a chunk at a time.
func (s *Store) OpenFile(ctx context.Context, id, name string) (io.ReadCloser, error) {
	seq, err := s.seq(ctx, id)
	if err != nil {
		return nil, err
	}
	var size int64
	err = s.db.QueryRowContext(ctx, s.d.rebind("SELECT size FROM files WHERE run_seq = ? AND name = ?"), seq, name).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, archive.NotFound(fmt.Sprintf("file %s of run %s", name, id))
	}
	if err != nil {
		return nil, s.dbError(err)
	}
	return &chunkReader{ctx: ctx, s: s, seq: seq, name: name, left: size}, nil
}

// chunkReader reads a file's chunks in order, one query each, so memory
// stays at one chunk whatever the file's size. Each chunk must hold
// exactly what the file's recorded size leaves for it (ChunkSize, less
// for the last): a chunk that decompresses to more is cut off there (the
// decoder writes no further than a chunk's room) and is an error, as is
// one that holds less; nothing past the recorded size is read.
type chunkReader struct {
	ctx  context.Context
	s    *Store
	seq  int64
	name string
	n    int
	left int64 // bytes of the file not yet read from chunks
	cur  bytes.Reader
	buf  []byte // a chunk decompressed
	done bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for c.cur.Len() == 0 {
		if c.done {
			return 0, io.EOF
		}
		if err := c.next(); err != nil {
			c.done = true
			return 0, err
		}
	}
	return c.cur.Read(p)
}

// next reads the next chunk into cur.
func (c *chunkReader) next() error {
	if c.left <= 0 && c.n > 0 {
		return io.EOF
	}
	var codec string
	var data []byte
	err := c.s.db.QueryRowContext(c.ctx, c.s.d.rebind("SELECT codec, data FROM chunks WHERE run_seq = ? AND name = ? AND n = ?"),
		c.seq, c.name, c.n).Scan(&codec, &data)
	if errors.Is(err, sql.ErrNoRows) {
		if c.left > 0 {
			return c.damaged(fmt.Sprintf("missing, %d bytes short of its recorded size", c.left))
		}
		return io.EOF
	}
	if err != nil {
		return c.s.dbError(err)
	}
	want := int(min(c.left, ChunkSize))
	if c.buf == nil && codec == codecZstd {
		c.buf = make([]byte, 0, ChunkSize)
	}
	if data, err = decodeChunk(codec, data, want, c.buf); err != nil {
		return c.damaged(err.Error())
	}
	c.n++
	c.left -= int64(want)
	c.cur.Reset(data)
	return nil
}

// decodeChunk is a stored chunk's bytes, which must be exactly want
// (at most ChunkSize); a zstd chunk is decompressed into buf (of capacity
// want at least), never past want bytes, whatever its frame announces.
func decodeChunk(codec string, data []byte, want int, buf []byte) ([]byte, error) {
	switch codec {
	case codecZstd:
		_, d := codecs()
		out, err := d.DecodeAll(data, buf[:0:want])
		if err != nil {
			return nil, fmt.Errorf("does not decompress to its %d bytes (%v)", want, err)
		}
		data = out
	case codecRaw:
	default:
		return nil, fmt.Errorf("has an unknown codec %q", codec)
	}
	if len(data) != want {
		return nil, fmt.Errorf("holds %d bytes, its file's recorded size leaves %d for it", len(data), want)
	}
	return data, nil
}

// damaged is the error of a chunk that does not hold what the file's
// recorded size says: a damaged or forged archive.
func (c *chunkReader) damaged(what string) error {
	return fmt.Errorf("%s: chunk %d of %s %s: a damaged or forged archive", c.s.name, c.n, c.name, what)
}

func (c *chunkReader) Close() error { c.done = true; return nil }
