package results

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Limits that protect the reader from corrupt lengths.
const (
	maxMetaBytes  = 1 << 20
	maxBlockBytes = 256 << 20
)

// ErrCorrupt is wrapped by every *CorruptError.
var ErrCorrupt = errors.New("corrupt results stream")

// CorruptError reports where a stream stops being readable. Every result
// before Offset has been returned. Torn is true when the stream merely ends
// in the middle of a block, as it does after a crash or while it is still
// being written.
type CorruptError struct {
	Offset int64  // byte offset of the first bad block
	Torn   bool   // the file ends inside a block (incomplete write)
	Reason string // what is wrong
}

// Error describes the problem and where it is.
func (e *CorruptError) Error() string {
	kind := "corrupt block"
	if e.Torn {
		kind = "torn tail"
	}
	return fmt.Sprintf("%s at byte offset %d: %s", kind, e.Offset, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Reader decodes a loadlab results stream. It implements Decoder.
type Reader struct {
	src   *countingReader
	meta  Meta
	dec   *zstd.Decoder
	block []byte // decompressed payload of the current block
	pos   int    // read position in block
	left  int    // records left in block
	// blockAt and blockCount are where the block being read starts and
	// how many records its header announces.
	blockAt    int64
	blockCount uint64
	prevSeq    uint64
	prevDue    int64
	errs       []string
	attacks    []string
	targets    []targetKey
	zbuf       []byte
	err        error // sticky
}

// IsStream reports whether prefix (at least 8 bytes) starts a loadlab stream.
func IsStream(prefix []byte) bool { return bytes.HasPrefix(prefix, []byte(magic)) }

// NewReader reads the stream header from r.
func NewReader(r io.Reader) (*Reader, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(cr, head); err != nil || !IsStream(head) {
		return nil, fmt.Errorf("not a loadlab results stream (bad magic)")
	}
	ver, err := binary.ReadUvarint(cr)
	if err != nil {
		return nil, &CorruptError{Offset: cr.n, Torn: true, Reason: "truncated header"}
	}
	if ver != Version {
		return nil, fmt.Errorf("results stream version %d is not supported (this loadlab reads version %d)", ver, Version)
	}
	n, err := binary.ReadUvarint(cr)
	if err != nil || n > maxMetaBytes {
		return nil, &CorruptError{Offset: cr.n, Torn: err != nil, Reason: "bad header length"}
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(cr, js); err != nil {
		return nil, &CorruptError{Offset: cr.n, Torn: true, Reason: "truncated header"}
	}
	var meta Meta
	if err := json.Unmarshal(js, &meta); err != nil {
		return nil, &CorruptError{Offset: int64(len(magic)), Reason: "header is not valid JSON: " + err.Error()}
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockBytes))
	if err != nil {
		return nil, err
	}
	return &Reader{src: cr, meta: meta, dec: dec}, nil
}

// Meta returns the stream's header.
func (r *Reader) Meta() Meta { return r.meta }

// Offset is the byte offset up to which the stream has been consumed.
func (r *Reader) Offset() int64 { return r.src.n }

// Decode reads the next result into res. It returns io.EOF at a clean end
// and a *CorruptError when the rest of the stream cannot be read.
func (r *Reader) Decode(res *Result) error {
	if r.err != nil {
		return r.err
	}
	for r.left == 0 {
		if err := r.nextBlock(); err != nil {
			r.err = err
			return err
		}
	}
	if err := r.decodeRecord(res); err != nil {
		r.err = &CorruptError{Offset: r.src.n, Reason: "bad record: " + err.Error()}
		return r.err
	}
	r.left--
	if r.left == 0 && r.pos != len(r.block) {
		// The header's count says the block is done but its data is not: a
		// count rewritten smaller (with a valid checksum) would otherwise
		// drop the remaining records without a word.
		r.err = &CorruptError{Offset: r.blockAt, Reason: fmt.Sprintf("block holds %d bytes past its %d records: its record count does not match its data", len(r.block)-r.pos, r.blockCount)}
	}
	return nil
}

// Close releases the decompressor.
func (r *Reader) Close() error {
	r.dec.Close()
	return nil
}

func (r *Reader) nextBlock() error {
	start := r.src.n
	var m [len(blockMagic)]byte
	n, err := io.ReadFull(r.src, m[:])
	if err == io.EOF {
		return io.EOF
	}
	torn := func(why string) error { return &CorruptError{Offset: start, Torn: true, Reason: why} }
	bad := func(why string) error { return &CorruptError{Offset: start, Reason: why} }
	if err != nil {
		return torn(fmt.Sprintf("file ends %d bytes into a block header", n))
	}
	if string(m[:]) != blockMagic {
		return bad("missing block marker")
	}
	var hdr []byte
	readUv := func() (uint64, error) {
		v, err := binary.ReadUvarint(r.src)
		if err == nil {
			hdr = binary.AppendUvarint(hdr, v)
		}
		return v, err
	}
	zlen, err1 := readUv()
	rawLen, err2 := readUv()
	count, err3 := readUv()
	if err := errors.Join(err1, err2, err3); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return torn("file ends inside a block header")
		}
		return bad("bad block header")
	}
	if zlen > maxBlockBytes || rawLen > maxBlockBytes || count > rawLen {
		return bad("implausible block lengths")
	}
	var crcb [4]byte
	if _, err := io.ReadFull(r.src, crcb[:]); err != nil {
		return torn("file ends inside a block header")
	}
	if cap(r.zbuf) < int(zlen) {
		r.zbuf = make([]byte, zlen)
	}
	z := r.zbuf[:zlen]
	if n, err := io.ReadFull(r.src, z); err != nil {
		return torn(fmt.Sprintf("block of %d bytes has only %d", zlen, n))
	}
	crc := crc32.Update(crc32.Checksum(hdr, castagnoli), castagnoli, z)
	if crc != binary.LittleEndian.Uint32(crcb[:]) {
		return bad("checksum mismatch")
	}
	raw, err := r.dec.DecodeAll(z, r.block[:0])
	if err != nil || uint64(len(raw)) != rawLen {
		return bad("block does not decompress")
	}
	r.block, r.pos = raw, 0
	if err := r.readDict(); err != nil {
		return bad("bad dictionary: " + err.Error())
	}
	r.left = int(count)
	r.blockAt, r.blockCount = start, count
	r.prevSeq, r.prevDue = 0, 0
	if count == 0 && r.pos != len(r.block) {
		return bad(fmt.Sprintf("block announces no records but holds %d bytes of them: its record count does not match its data", len(r.block)-r.pos))
	}
	return nil
}

func (r *Reader) readDict() error {
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		if r.pos >= len(r.block) {
			return io.ErrUnexpectedEOF
		}
		kind := r.block[r.pos]
		r.pos++
		s, err := r.bytes()
		if err != nil {
			return err
		}
		switch kind {
		case dictError:
			r.errs = append(r.errs, string(s))
		case dictAttack:
			r.attacks = append(r.attacks, string(s))
		case dictTarget:
			u, err := r.bytes()
			if err != nil {
				return err
			}
			r.targets = append(r.targets, targetKey{string(s), string(u)})
		default:
			return fmt.Errorf("unknown dictionary kind %d", kind)
		}
	}
	return nil
}

func (r *Reader) decodeRecord(res *Result) error {
	if r.pos >= len(r.block) {
		return io.ErrUnexpectedEOF
	}
	flags := r.block[r.pos]
	r.pos++
	var v [11]uint64
	var sv [3]int64
	var err error
	for i := range sv {
		if sv[i], err = r.varint(); err != nil {
			return err
		}
	}
	for i := 0; i < 7; i++ {
		if v[i], err = r.uvarint(); err != nil {
			return err
		}
	}
	seq := r.prevSeq + uint64(sv[0])
	due := r.prevDue + sv[1]
	body := res.Body
	*res = Result{
		Seq:      seq,
		Due:      time.Unix(0, due),
		Sent:     time.Unix(0, due+sv[2]),
		Latency:  time.Duration(v[0]),
		Code:     uint16(v[1]),
		BytesIn:  v[2],
		BytesOut: v[3],
		Step:     uint32(v[6]),
		Target:   uint32(v[5]),
	}
	if v[4] >= uint64(len(r.attacks)) || v[5] >= uint64(len(r.targets)) {
		return errors.New("dictionary id out of range")
	}
	res.Attack = r.attacks[v[4]]
	t := r.targets[v[5]]
	res.Method, res.URL = t.method, t.url
	if flags&flagError != 0 {
		id, err := r.uvarint()
		if err != nil {
			return err
		}
		if id >= uint64(len(r.errs)) {
			return errors.New("error id out of range")
		}
		res.Error = r.errs[id]
	}
	if flags&flagBody != 0 {
		b, err := r.bytes()
		if err != nil {
			return err
		}
		if body == nil {
			body = make([]byte, 0, len(b))
		}
		res.Body = append(body[:0], b...)
	}
	if flags&flagHeaders != 0 {
		h, err := r.headers()
		if err != nil {
			return err
		}
		res.Headers = h
	}
	r.prevSeq, r.prevDue = seq, due
	return nil
}

func (r *Reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.block[r.pos:])
	if n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	r.pos += n
	return v, nil
}

func (r *Reader) varint() (int64, error) {
	v, n := binary.Varint(r.block[r.pos:])
	if n <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	r.pos += n
	return v, nil
}

func (r *Reader) bytes() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.block)-r.pos) {
		return nil, io.ErrUnexpectedEOF
	}
	b := r.block[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *Reader) headers() (http.Header, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.block)) {
		return nil, io.ErrUnexpectedEOF
	}
	h := make(http.Header, n)
	for i := uint64(0); i < n; i++ {
		k, err := r.bytes()
		if err != nil {
			return nil, err
		}
		nv, err := r.uvarint()
		if err != nil || nv > uint64(len(r.block)) {
			return nil, io.ErrUnexpectedEOF
		}
		vs := make([]string, 0, nv)
		for j := uint64(0); j < nv; j++ {
			v, err := r.bytes()
			if err != nil {
				return nil, err
			}
			vs = append(vs, string(v))
		}
		h[string(k)] = vs
	}
	return h, nil
}

// countingReader counts bytes consumed, for error offsets.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
