package results

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"sort"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Flush thresholds: a block is written when either is reached.
const (
	blockMaxRecords = 4096
	blockMaxBytes   = 512 << 10
)

// record flag bits.
const (
	flagError   = 1 << 0
	flagBody    = 1 << 1
	flagHeaders = 1 << 2
	flagFlow    = 1 << 3 // version 3: step id, session delta, failed checks
	flagEnd     = 1 << 4 // version 3: the session's outcome id (an error-text entry) and duration
	// flagAfter (version 3): the due time is written as how long after
	// the end of the previous answer of the same session in the block it
	// came (the think time: mostly 0), not as a delta from the previous
	// record's due time.
	flagAfter = 1 << 5
	// flagSpan (version 3, with flagEnd): the session's duration is not
	// written: it runs from the due time of the session's first record
	// in the block to the end of this one.
	flagSpan = 1 << 6
)

// sessionKey is a session of an attack, for the flagAfter state.
type sessionKey struct {
	attack  uint32
	session uint64
}

// stepKey is a flow step of an attack. A flow record's sequence number,
// due time and session are written as deltas from the previous record of
// the same step in the block (the requests of one step follow the
// sessions' arrivals, those of all steps interleave), or from the
// previous record when it is the step's first in the block.
type stepKey struct{ attack, step uint32 }

// prevRecord is what the next record's deltas are taken from.
type prevRecord struct {
	seq uint64
	due int64
	ses uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Writer appends results to a loadlab stream. It is not safe for concurrent
// use: the attack funnels results through one goroutine.
type Writer struct {
	w       io.Writer
	enc     *zstd.Encoder
	raw     []byte // current block, uncompressed, records only
	n       int    // records in raw
	out     []byte // scratch for the framed block
	payload []byte // scratch: dictionary entries then records, uncompressed
	z       []byte // scratch: the compressed payload
	prevSeq uint64
	prevDue int64
	prevSes uint64
	ends    map[sessionKey]int64 // end of each session's last answer in the block (flagAfter)
	starts  map[sessionKey]int64 // due time of each session's first record in the block (flagSpan)
	bySteps map[stepKey]prevRecord
	errs    *interner[string]
	steps   *interner[string]
	attacks *interner[string]
	targets *interner[targetKey]
	err     error // sticky write error
	written int64 // bytes written so far, header included
}

// NewWriter writes the header for meta to w and returns a Writer. Meta's
// Version and Created are filled in when zero.
func NewWriter(w io.Writer, meta Meta) (*Writer, error) {
	meta.Version = Version
	if meta.Flow != "" {
		meta.Version = FlowVersion
	}
	if meta.Created.IsZero() {
		meta.Created = time.Now()
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	hdr := binary.AppendUvarint([]byte(magic), uint64(meta.Version))
	hdr = binary.AppendUvarint(hdr, uint64(len(js)))
	hdr = append(hdr, js...)
	if _, err := w.Write(hdr); err != nil {
		return nil, err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, err
	}
	return &Writer{
		w: w, enc: enc, written: int64(len(hdr)),
		errs:    newInterner[string](maxErrors),
		attacks: newInterner[string](maxErrors),
		targets: newInterner[targetKey](maxTargets),
		steps:   newInterner[string](maxErrors),
	}, nil
}

// Encode appends r to the current block, writing the block out when it is
// full. Method+URL, Error and Attack are interned; r.Target is informational
// and is replaced on reading by the dictionary id of Method+URL.
func (w *Writer) Encode(r *Result) error {
	if w.err != nil {
		return w.err
	}
	var flags byte
	var errID uint32
	if r.Error != "" {
		flags |= flagError
		id, ok := w.errs.id(r.Error)
		if !ok {
			id, _ = w.errs.id(overflowError)
		}
		errID = id
	}
	if r.Body != nil {
		flags |= flagBody
	}
	if len(r.Headers) > 0 {
		flags |= flagHeaders
	}
	var stepID, endID uint32
	if r.FlowStep != nil {
		flags |= flagFlow
		stepID, _ = w.steps.id(r.FlowStep.key)
		if r.Ended.Outcome != "" {
			flags |= flagEnd
			id, ok := w.errs.id(r.Ended.Outcome)
			if !ok {
				id, _ = w.errs.id(overflowError)
			}
			endID = id
		}
	}
	attackID, _ := w.attacks.id(r.Attack)
	targetID, ok := w.targets.id(targetKey{r.Method, r.URL})
	if !ok {
		targetID, _ = w.targets.id(targetKey{r.Method, ""})
	}
	due := r.Due
	if due.IsZero() {
		due = r.Sent
	}
	dueNs := due.UnixNano()
	base := prevRecord{w.prevSeq, w.prevDue, w.prevSes}
	var sk stepKey
	if flags&flagFlow != 0 {
		sk = stepKey{attackID, stepID}
		if p, ok := w.bySteps[sk]; ok {
			base = p
		}
	}
	dueField := dueNs - base.due
	var key sessionKey
	if flags&flagFlow != 0 {
		key = sessionKey{attackID, r.Session}
		if end, ok := w.ends[key]; ok && dueNs >= end {
			flags |= flagAfter
			dueField = dueNs - end
		}
		if w.ends == nil {
			w.ends, w.starts, w.bySteps = map[sessionKey]int64{}, map[sessionKey]int64{}, map[stepKey]prevRecord{}
		}
		w.bySteps[sk] = prevRecord{r.Seq, dueNs, r.Session}
		start, ok := w.starts[key]
		if !ok {
			start = dueNs
		}
		end := r.Sent.UnixNano() + int64(max(r.Latency, 0))
		if flags&flagEnd != 0 {
			if int64(max(r.Ended.Duration, 0)) == end-start {
				flags |= flagSpan
			}
			delete(w.ends, key)
			delete(w.starts, key)
		} else {
			w.ends[key] = end
			w.starts[key] = start
		}
	}
	b := w.raw
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(r.Seq-base.seq))
	b = binary.AppendVarint(b, dueField)
	b = binary.AppendVarint(b, r.Sent.UnixNano()-dueNs)
	b = binary.AppendUvarint(b, uint64(max(r.Latency, 0)))
	b = binary.AppendUvarint(b, uint64(r.Code))
	b = binary.AppendUvarint(b, r.BytesIn)
	b = binary.AppendUvarint(b, r.BytesOut)
	b = binary.AppendUvarint(b, uint64(attackID))
	b = binary.AppendUvarint(b, uint64(targetID))
	b = binary.AppendUvarint(b, uint64(r.Step))
	if flags&flagError != 0 {
		b = binary.AppendUvarint(b, uint64(errID))
	}
	if flags&flagBody != 0 {
		b = appendBytes(b, r.Body)
	}
	if flags&flagHeaders != 0 {
		b = appendHeaders(b, r.Headers)
	}
	if flags&flagFlow != 0 {
		b = binary.AppendUvarint(b, uint64(stepID))
		b = binary.AppendVarint(b, int64(r.Session-base.ses))
		b = binary.AppendUvarint(b, r.Failed)
		w.prevSes = r.Session
	}
	if flags&flagEnd != 0 {
		b = binary.AppendUvarint(b, uint64(endID))
		if flags&flagSpan == 0 {
			b = binary.AppendUvarint(b, uint64(max(r.Ended.Duration, 0)))
		}
	}
	w.raw = b
	w.prevSeq, w.prevDue = r.Seq, dueNs
	w.n++
	if w.n >= blockMaxRecords || len(w.raw) >= blockMaxBytes {
		return w.Flush()
	}
	return nil
}

// Flush writes the pending records, if any, as one block. Call it
// periodically so followers see fresh data, and before exiting.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.n == 0 {
		return nil
	}
	payload := w.appendDict(w.payload[:0])
	payload = append(payload, w.raw...)
	w.payload = payload
	w.out = w.out[:0]
	w.out = append(w.out, syncMarker...)
	lenStart := len(w.out)
	z := w.enc.EncodeAll(payload, w.z[:0])
	w.z = z
	w.out = binary.AppendUvarint(w.out, uint64(len(z)))
	w.out = binary.AppendUvarint(w.out, uint64(len(payload)))
	w.out = binary.AppendUvarint(w.out, uint64(w.n))
	crc := crc32.Update(crc32.Checksum(w.out[lenStart:], castagnoli), castagnoli, z)
	w.out = binary.LittleEndian.AppendUint32(w.out, crc)
	w.out = append(w.out, z...)
	n, err := w.w.Write(w.out)
	w.written += int64(n)
	if err != nil {
		w.err = err
		return err
	}
	w.raw, w.n, w.prevSeq, w.prevDue, w.prevSes = w.raw[:0], 0, 0, 0, 0
	clear(w.ends)
	clear(w.starts)
	clear(w.bySteps)
	return nil
}

// Close flushes the last block. It does not close the underlying writer.
func (w *Writer) Close() error {
	err := w.Flush()
	w.enc.Close()
	if err == nil {
		w.err = errors.New("results: writer closed")
	}
	return err
}

// Written is the number of bytes written so far, header included.
func (w *Writer) Written() int64 { return w.written }

// appendDict appends the dictionary entries the block uses, each with its
// id, so that the block decodes without the blocks before it.
func (w *Writer) appendDict(b []byte) []byte {
	n := len(w.errs.used) + len(w.attacks.used) + len(w.targets.used) + len(w.steps.used)
	b = binary.AppendUvarint(b, uint64(n))
	for _, id := range w.errs.used {
		b = append(b, dictError)
		b = binary.AppendUvarint(b, uint64(id))
		b = appendBytes(b, []byte(w.errs.vals[id]))
	}
	for _, id := range w.attacks.used {
		b = append(b, dictAttack)
		b = binary.AppendUvarint(b, uint64(id))
		b = appendBytes(b, []byte(w.attacks.vals[id]))
	}
	for _, id := range w.targets.used {
		t := w.targets.vals[id]
		b = append(b, dictTarget)
		b = binary.AppendUvarint(b, uint64(id))
		b = appendBytes(b, []byte(t.method))
		b = appendBytes(b, []byte(t.url))
	}
	for _, id := range w.steps.used {
		b = append(b, dictStep)
		b = binary.AppendUvarint(b, uint64(id))
		b = appendBytes(b, []byte(w.steps.vals[id]))
	}
	w.errs.nextBlock()
	w.steps.nextBlock()
	w.attacks.nextBlock()
	w.targets.nextBlock()
	return b
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendHeaders writes headers in sorted key order so output is stable.
func appendHeaders(b []byte, h map[string][]string) []byte {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendBytes(b, []byte(k))
		vs := h[k]
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendBytes(b, []byte(v))
		}
	}
	return b
}
