package results

import (
	"encoding/gob"
	"errors"
	"io"
	"net/http"
	"time"
)

// vegetaResult mirrors vegeta's lib.Result (v12) field for field, so that
// encoding/gob, which matches struct fields by name, can read and write the
// files `vegeta attack` produces. Older vegeta versions used "Header"; gob
// skips fields a side does not know, so those files read too.
type vegetaResult struct {
	Attack    string
	Seq       uint64
	Code      uint16
	Timestamp time.Time
	Latency   time.Duration
	BytesOut  uint64
	BytesIn   uint64
	Error     string
	Body      []byte
	Method    string
	URL       string
	Headers   http.Header
}

func (v *vegetaResult) to(r *Result) {
	*r = Result{
		Attack: v.Attack, Seq: v.Seq, Code: v.Code,
		Sent: v.Timestamp, Latency: v.Latency,
		BytesOut: v.BytesOut, BytesIn: v.BytesIn, Error: v.Error,
		Body: v.Body, Method: v.Method, URL: v.URL, Headers: v.Headers,
	}
}

func (v *vegetaResult) from(r *Result) {
	*v = vegetaResult{
		Attack: r.Attack, Seq: r.Seq, Code: r.Code,
		Timestamp: r.Sent, Latency: r.Latency,
		BytesOut: r.BytesOut, BytesIn: r.BytesIn, Error: r.Error,
		Body: r.Body, Method: r.Method, URL: r.URL, Headers: r.Headers,
	}
}

// GobDecoder reads the gob stream `vegeta attack` writes. It implements
// Decoder; a truncated or damaged stream ends with a *CorruptError whose
// Offset is where the last good result ended.
type GobDecoder struct {
	src  *countingReader
	dec  *gob.Decoder
	good int64 // offset after the last complete result
	err  error
}

// NewGobDecoder returns a decoder for vegeta's gob results stream.
func NewGobDecoder(r io.Reader) *GobDecoder {
	cr := newCountingReader(r)
	return &GobDecoder{src: cr, dec: gob.NewDecoder(cr)}
}

// Decode reads the next result.
func (d *GobDecoder) Decode(r *Result) error {
	if d.err != nil {
		return d.err
	}
	// Headers starts as an empty map, not nil: encoding/gob sizes a map it
	// makes by the count the stream claims, unchecked, so a damaged or
	// hostile count (billions) would take the memory of the machine; into
	// an existing map it inserts entry by entry and stops at the end of
	// the message.
	v := vegetaResult{Headers: make(http.Header)}
	if err := d.dec.Decode(&v); err != nil {
		switch {
		case err == io.EOF && d.src.n == d.good:
			d.err = io.EOF
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			d.err = &CorruptError{Offset: d.good, Torn: true, Reason: "vegeta gob stream ends inside a result"}
		default:
			d.err = &CorruptError{Offset: d.good, Reason: "vegeta gob stream: " + err.Error()}
		}
		return d.err
	}
	d.good = d.src.n
	if len(v.Headers) == 0 {
		v.Headers = nil // gob leaves empty maps out: none were recorded
	}
	v.to(r)
	return nil
}

// Offset is the number of bytes consumed so far.
func (d *GobDecoder) Offset() int64 { return d.good }

// GobEncoder writes results as vegeta's gob stream, readable by
// `vegeta report` and `vegeta encode`. Loadlab's extra fields (due time,
// step, target) are not part of vegeta's record and are dropped.
type GobEncoder struct{ enc *gob.Encoder }

// NewGobEncoder returns an encoder writing vegeta's gob format to w.
func NewGobEncoder(w io.Writer) *GobEncoder { return &GobEncoder{enc: gob.NewEncoder(w)} }

// Encode writes one result.
func (e *GobEncoder) Encode(r *Result) error {
	var v vegetaResult
	v.from(r)
	return e.enc.Encode(&v)
}
