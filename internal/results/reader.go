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
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Limits that protect the reader from corrupt and hostile lengths.
const (
	maxMetaBytes  = 1 << 20
	maxBlockBytes = 256 << 20 // a block's compressed and decompressed length
	// MinRecordBytes is the least a record takes decompressed: its flags
	// byte and ten varints of at least one byte each. A block holds at
	// most blockMaxRecords records (as many as the writer ever puts in
	// one) and at most one per MinRecordBytes of its decompressed length.
	MinRecordBytes = 11
	// MaxBlockRecords is the most records a block holds: the writer
	// flushes a block when it holds that many.
	MaxBlockRecords = blockMaxRecords
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
	// Hostile is set for a block whose checksum holds but whose header
	// announces more records than its bytes can hold or any writer puts
	// in a block (a decompression bomb): not damage, so reading never
	// skips it, even when resynchronising.
	Hostile bool
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
	trailer    *Trailer // the stream's trailer, once read
	// asBeforeTrailers reads a trailer as loadlab did before it wrote
	// them (an unused error entry): the tests' stand-in for an older
	// loadlab reading a newer stream.
	asBeforeTrailers bool
	blockEnd         int64 // where the block ends, by its header (0: unknown)
	prevSeq          uint64
	prevSes          uint64                 // session of the previous flow record (version 3)
	ends             map[sessionKey]int64   // flagAfter's state in the block (version 3)
	starts           map[sessionKey]int64   // flagSpan's state in the block (version 3)
	bySteps          map[stepKey]prevRecord // the deltas' bases of flow records (version 3)
	steps            []*FlowStep            // flow step dictionary (version 3)
	prevDue          int64
	errs             []string
	attacks          []string
	targets          []targetKey
	zbuf             []byte
	err              error // sticky
	version          uint64
	// resync: skip a damaged block to the next sync marker (version 2)
	// instead of stopping; what was skipped is in damage.
	resync bool
	damage []Damage
	// header is the damage of a header that could not be read (version 2):
	// a resynchronising read counts it among the damage and goes on, a
	// strict one stops at it.
	header    *Damage
	headerMet bool
	consumed  []byte // the bytes of the block being read, for resync
}

// Damage is a region of a stream the reader skipped: a block that failed
// its checks, or bytes that were not a block at all.
type Damage struct {
	Offset int64 // byte offset where the damage starts
	Bytes  int64 // bytes skipped
	Lost   int64 // results lost, from the block's header; -1 when unknown
	// AtLeast says Lost is a lower bound: the region runs past the end of
	// the damaged block into blocks whose headers were lost with it.
	AtLeast bool
	Reason  string // what was wrong
}

// String describes the damage for a warning.
func (d Damage) String() string {
	lost := "an unknown number of results lost"
	switch {
	case d.Lost >= 0 && d.AtLeast:
		lost = fmt.Sprintf("at least %d results lost (the region covers more than the damaged block)", d.Lost)
	case d.Lost >= 0:
		lost = fmt.Sprintf("%d results lost", d.Lost)
	}
	return fmt.Sprintf("damaged region at byte %d (%d bytes: %s), %s; reading went on after it", d.Offset, d.Bytes, d.Reason, lost)
}

// Resync makes a version 2 stream's reader skip damaged blocks: it scans
// for the next block's sync marker and goes on, recording what it skipped
// (see Damaged). A torn tail still ends the stream. Version 1 streams,
// whose blocks depend on the ones before, still stop at the damage.
func (r *Reader) Resync(on bool) { r.resync = on }

// Damaged lists the regions skipped so far.
func (r *Reader) Damaged() []Damage { return r.damage }

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
	if ver != 1 && ver != Version && ver != FlowVersion {
		return nil, fmt.Errorf("results stream version %d is not supported (this loadlab reads versions 1 to %d)", ver, FlowVersion)
	}
	metaAt := cr.n
	n, err := binary.ReadUvarint(cr)
	var meta Meta
	var damaged *Damage
	switch {
	case err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return nil, &CorruptError{Offset: cr.n, Torn: true, Reason: "truncated header"}
	case err != nil || n > maxMetaBytes:
		if ver < 2 {
			return nil, &CorruptError{Offset: cr.n, Reason: "bad header length"}
		}
		damaged = &Damage{Offset: metaAt, Reason: "bad header length"}
	default:
		js := make([]byte, n)
		if got, err := io.ReadFull(cr, js); err != nil {
			js = js[:got]
			if ver < 2 || !bytes.Contains(js, []byte(syncMarker)) {
				return nil, &CorruptError{Offset: cr.n, Torn: true, Reason: "truncated header"}
			}
		}
		if err := json.Unmarshal(js, &meta); err != nil {
			if ver < 2 {
				return nil, &CorruptError{Offset: int64(len(magic)), Reason: "header is not valid JSON: " + err.Error()}
			}
			meta = Meta{}
			damaged = &Damage{Offset: metaAt, Reason: "header is not valid JSON: " + err.Error()}
			// a damaged length may have taken the first block's bytes: the
			// search for its marker starts inside the header
			if len(js) > 1 {
				cr.unread(js[1:])
			}
		}
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockBytes), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, err
	}
	rd := &Reader{src: cr, meta: meta, dec: dec, version: ver}
	if damaged != nil {
		// Version 2 blocks decode on their own: the results are read from
		// the first sync marker on; only the header's metadata is lost.
		damaged.Lost = 0
		damaged.Reason += "; the header's metadata (attack name, rate, planned requests, command, shard) is lost, the results are read from the blocks"
		skipped := cr.n - metaAt
		rd.scanToMarker(&skipped)
		damaged.Bytes = skipped
		rd.header = damaged
	}
	return rd, nil
}

// HeaderDamaged reports the damaged header of a version 2 stream, nil when
// it was read whole: its metadata (Meta) is then empty, and the results
// are read from the blocks, which decode on their own.
func (r *Reader) HeaderDamaged() *Damage { return r.header }

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
	if r.header != nil && !r.headerMet {
		r.headerMet = true
		if !r.resync {
			why, _, _ := strings.Cut(r.header.Reason, "; ")
			r.err = &CorruptError{Offset: r.header.Offset, Reason: why + " (read without -strict, the results are read from the blocks, which do not depend on it)"}
			return r.err
		}
		r.damage = append(r.damage, *r.header)
	}
	for {
		for r.left == 0 {
			if err := r.nextBlock(); err != nil {
				if r.skip(err) {
					continue
				}
				r.err = err
				return err
			}
		}
		if err := r.decodeRecord(res); err != nil {
			err = &CorruptError{Offset: r.blockAt, Reason: "bad record: " + err.Error()}
			if r.skip(err) {
				continue
			}
			r.err = err
			return r.err
		}
		r.left--
		if r.left == 0 && r.pos != len(r.block) {
			// The header's count says the block is done but its data is
			// not: a count rewritten smaller (with a valid checksum) would
			// otherwise drop the remaining records without a word.
			r.err = &CorruptError{Offset: r.blockAt, Reason: fmt.Sprintf("block holds %d bytes past its %d records: its record count does not match its data", len(r.block)-r.pos, r.blockCount)}
		}
		return nil
	}
}

// Close releases the decompressor.
func (r *Reader) Close() error {
	r.dec.Close()
	return nil
}

func (r *Reader) nextBlock() error {
	start := r.src.n
	r.blockAt, r.blockCount, r.blockEnd = start, 0, 0
	r.src.record = &r.consumed
	r.consumed = r.consumed[:0]
	defer func() { r.src.record = nil }()
	want := blockMagic
	if r.version >= 2 {
		want = syncMarker
	}
	m := make([]byte, len(want))
	n, err := io.ReadFull(r.src, m)
	if err == io.EOF {
		return io.EOF
	}
	torn := func(why string) error { return &CorruptError{Offset: start, Torn: true, Reason: why} }
	bad := func(why string) error { return &CorruptError{Offset: start, Reason: why} }
	if err != nil {
		return torn(fmt.Sprintf("file ends %d bytes into a block header", n))
	}
	if string(m) != want {
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
	if err3 == nil {
		r.blockCount = count
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return torn("file ends inside a block header")
		}
		return bad("bad block header")
	}
	if zlen > maxBlockBytes || rawLen > maxBlockBytes || count > rawLen {
		// damage, most likely (the checksum is not read yet): skipped
		// as such when resynchronising
		return bad("implausible block lengths")
	}
	r.blockEnd = r.src.n + 4 + int64(zlen)
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
	if count > MaxBlockRecords || count*MinRecordBytes > rawLen {
		// Checked before anything is decompressed, with the checksum
		// holding: a writer's count, not a damaged one.
		return &CorruptError{Offset: start, Hostile: true, Reason: fmt.Sprintf(
			"block announces %d results in %d bytes decompressed (at most %d per block, of at least %d bytes each): a hostile or forged file",
			count, rawLen, MaxBlockRecords, MinRecordBytes)}
	}
	raw, err := r.decompress(z, rawLen)
	if err != nil || uint64(len(raw)) != rawLen {
		return bad("block does not decompress")
	}
	r.block, r.pos = raw, 0
	if err := r.readDict(); err != nil {
		return bad("bad dictionary: " + err.Error())
	}
	r.left = int(count)
	r.blockAt, r.blockCount = start, count
	r.prevSeq, r.prevDue, r.prevSes = 0, 0, 0
	clear(r.ends)
	clear(r.starts)
	clear(r.bySteps)
	if count == 0 && r.pos != len(r.block) {
		return bad(fmt.Sprintf("block announces no records but holds %d bytes of them: its record count does not match its data", len(r.block)-r.pos))
	}
	return nil
}

// smallBlock is the decompressed length up to which a block is decoded
// into a buffer of its announced length at once; the writer's blocks are
// about half of it.
const smallBlock = 1 << 20

// decompress decodes a block's payload, never past rawLen, its announced
// length: a block that holds more fails, having taken no more memory. A
// block announced larger than smallBlock is decoded as a stream into a
// buffer that grows with what the payload really holds, so that a forged
// length commits no memory the data does not fill.
func (r *Reader) decompress(z []byte, rawLen uint64) ([]byte, error) {
	if rawLen <= smallBlock || uint64(cap(r.block)) >= rawLen {
		if uint64(cap(r.block)) < rawLen {
			r.block = make([]byte, 0, smallBlock)
		}
		return r.dec.DecodeAll(z, r.block[:0:rawLen])
	}
	if err := r.dec.Reset(bytes.NewReader(z)); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(r.block[:0])
	_, err := buf.ReadFrom(io.LimitReader(r.dec, int64(rawLen)+1))
	r.dec.Reset(nil)
	return buf.Bytes(), err
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
		if r.version >= 2 {
			if err := r.dictEntry(kind); err != nil {
				return err
			}
			continue
		}
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

// dictEntry reads a version 2 dictionary entry: its id, then its value.
func (r *Reader) dictEntry(kind byte) error {
	id, err := r.uvarint()
	if err != nil {
		return err
	}
	s, err := r.bytes()
	if err != nil {
		return err
	}
	switch kind {
	case dictError:
		if id >= maxErrors {
			return fmt.Errorf("error id %d out of range", id)
		}
		if t, ok := trailerEntry(s); ok && !r.asBeforeTrailers {
			r.trailer = t
			return nil
		}
		r.errs = setAt(r.errs, id, string(s))
	case dictAttack:
		if id >= maxErrors {
			return fmt.Errorf("attack id %d out of range", id)
		}
		r.attacks = setAt(r.attacks, id, string(s))
	case dictTarget:
		u, err := r.bytes()
		if err != nil {
			return err
		}
		if id >= maxTargets {
			return fmt.Errorf("target id %d out of range", id)
		}
		r.targets = setAt(r.targets, id, targetKey{string(s), string(u)})
	case dictStep:
		if id >= maxErrors {
			return fmt.Errorf("flow step id %d out of range", id)
		}
		if int(id) < len(r.steps) && r.steps[id] != nil && r.steps[id].key == string(s) {
			return nil // the same step again: keep its FlowStep
		}
		r.steps = setAt(r.steps, id, flowStepOf(string(s)))
	default:
		return fmt.Errorf("unknown dictionary kind %d", kind)
	}
	return nil
}

// setAt sets xs[i] = v, growing xs as needed.
func setAt[T any](xs []T, i uint64, v T) []T {
	for uint64(len(xs)) <= i {
		var zero T
		xs = append(xs, zero)
	}
	xs[i] = v
	return xs
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
	if flags&flagFlow != 0 {
		stepID, sesDelta, err := r.flowFields(res, flags)
		if err != nil {
			return err
		}
		sk := stepKey{uint32(v[4]), stepID}
		base := prevRecord{r.prevSeq, r.prevDue, r.prevSes}
		if p, ok := r.bySteps[sk]; ok {
			base = p
		}
		seq, due = base.seq+uint64(sv[0]), base.due+sv[1]
		res.Session = base.ses + uint64(sesDelta)
		key := sessionKey{uint32(v[4]), res.Session}
		if flags&flagAfter != 0 {
			end, ok := r.ends[key]
			if !ok {
				return errors.New("a due time after an answer the block does not hold")
			}
			due = end + sv[1]
		}
		res.Seq, res.Due, res.Sent = seq, time.Unix(0, due), time.Unix(0, due+sv[2])
		r.prevSes = res.Session
		if r.ends == nil {
			r.ends, r.starts, r.bySteps = map[sessionKey]int64{}, map[sessionKey]int64{}, map[stepKey]prevRecord{}
		}
		r.bySteps[sk] = prevRecord{seq, due, res.Session}
		start, ok := r.starts[key]
		if !ok {
			start = due
		}
		end := due + sv[2] + int64(res.Latency)
		if flags&flagEnd != 0 {
			if flags&flagSpan != 0 {
				res.Ended.Duration = time.Duration(end - start)
			}
			delete(r.ends, key)
			delete(r.starts, key)
		} else {
			r.ends[key] = end
			r.starts[key] = start
		}
	} else if flags&(flagAfter|flagSpan) != 0 {
		return errors.New("a flow record's flag without a flow step")
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

// countingReader counts bytes consumed, for error offsets; it can record
// what it hands out and take bytes back, so that a reader that finds a
// block damaged can look for the next one inside it.
type countingReader struct {
	r      *bufio.Reader
	n      int64
	back   []byte  // bytes given back, read before r
	record *[]byte // when set, every byte read is appended here
}

func (c *countingReader) Read(p []byte) (int, error) {
	var n int
	var err error
	if len(c.back) > 0 {
		n = copy(p, c.back)
		c.back = c.back[n:]
	} else {
		n, err = c.r.Read(p)
	}
	c.n += int64(n)
	if c.record != nil {
		*c.record = append(*c.record, p[:n]...)
	}
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	var b byte
	var err error
	if len(c.back) > 0 {
		b, c.back = c.back[0], c.back[1:]
	} else if b, err = c.r.ReadByte(); err != nil {
		return 0, err
	}
	c.n++
	if c.record != nil {
		*c.record = append(*c.record, b)
	}
	return b, nil
}

// unread gives p back: it is read again before the rest of the input.
func (c *countingReader) unread(p []byte) {
	c.back = append(append([]byte(nil), p...), c.back...)
	c.n -= int64(len(p))
}

// flowFields reads a version 3 record's flow fields (flagFlow, flagEnd):
// it sets the step, the failed checks and the outcome, and returns the
// step's id and the session's delta for the caller to resolve.
func (r *Reader) flowFields(res *Result, flags byte) (step uint32, sesDelta int64, err error) {
	id, err := r.uvarint()
	if err != nil {
		return 0, 0, err
	}
	if id >= uint64(len(r.steps)) || r.steps[id] == nil {
		return 0, 0, errors.New("flow step id out of range")
	}
	res.FlowStep = r.steps[id]
	if sesDelta, err = r.varint(); err != nil {
		return 0, 0, err
	}
	if res.Failed, err = r.uvarint(); err != nil {
		return 0, 0, err
	}
	if flags&flagEnd == 0 {
		return uint32(id), sesDelta, nil
	}
	end, err := r.uvarint()
	if err != nil {
		return 0, 0, err
	}
	if end >= uint64(len(r.errs)) {
		return 0, 0, errors.New("session outcome id out of range")
	}
	var dur uint64
	if flags&flagSpan == 0 { // else the caller computes it
		if dur, err = r.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	res.Ended = SessionEnd{Outcome: r.errs[end], Duration: time.Duration(dur)}
	return uint32(id), sesDelta, nil
}
