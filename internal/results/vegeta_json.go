package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// jsonResult is one line of vegeta's JSON encoding (`vegeta encode -to
// json`), keys in vegeta's order, followed by loadlab's extra keys. Vegeta's
// decoder skips keys it does not know, so files with the extras still read
// in vegeta.
type jsonResult struct {
	Attack    string        `json:"attack"`
	Seq       uint64        `json:"seq"`
	Code      uint16        `json:"code"`
	Timestamp time.Time     `json:"timestamp"`
	Latency   time.Duration `json:"latency"`
	BytesOut  uint64        `json:"bytes_out"`
	BytesIn   uint64        `json:"bytes_in"`
	Error     string        `json:"error"`
	Body      []byte        `json:"body"`
	Method    string        `json:"method"`
	URL       string        `json:"url"`
	Headers   http.Header   `json:"headers"`

	// loadlab's extras
	Due    time.Time `json:"due,omitzero"`     // when the request was due
	Step   uint32    `json:"step,omitempty"`   // schedule step
	Target uint32    `json:"target,omitempty"` // target index
	// a templated target's request as really sent (package sent)
	SentHeader http.Header `json:"request_header,omitempty"`
	SentBody   []byte      `json:"request_body,omitempty"`
}

// maxJSONLine bounds one JSON line (a result with a kept body).
const maxJSONLine = 64 << 20

// JSONDecoder reads vegeta's JSON-lines encoding of results, with or
// without loadlab's extra keys. It implements Decoder.
type JSONDecoder struct {
	r    *bufio.Reader
	tail *tailTracker
	off  int64 // offset of the next line
	line int
	buf  []byte
	err  error
}

// NewJSONDecoder returns a decoder for JSON-lines results.
func NewJSONDecoder(r io.Reader) *JSONDecoder {
	t := &tailTracker{r: r}
	return &JSONDecoder{r: bufio.NewReaderSize(t, 64<<10), tail: t}
}

// Decode reads the next result. Blank lines are skipped.
func (d *JSONDecoder) Decode(r *Result) error {
	if d.err != nil {
		return d.err
	}
	for {
		start := d.off
		line, err := d.readLine()
		if err == io.EOF && len(line) == 0 {
			d.err = io.EOF
			return io.EOF
		}
		if err != nil && err != io.EOF {
			d.err = &CorruptError{Offset: start, Reason: fmt.Sprintf("JSON line %d: %v", d.line, err)}
			return d.err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var j jsonResult
		if jerr := json.Unmarshal(line, &j); jerr != nil {
			torn := err == io.EOF && d.tail.last != '\n'
			d.err = &CorruptError{Offset: start, Torn: torn, Reason: fmt.Sprintf("JSON line %d: %v", d.line, jerr)}
			return d.err
		}
		*r = Result{
			Attack: j.Attack, Seq: j.Seq, Code: j.Code, Due: j.Due, Sent: j.Timestamp,
			Latency: j.Latency, BytesOut: j.BytesOut, BytesIn: j.BytesIn, Error: j.Error,
			Body: j.Body, Method: j.Method, URL: j.URL, Headers: j.Headers,
			Step: j.Step, Target: j.Target, SentHeader: j.SentHeader, SentBody: j.SentBody,
		}
		return nil
	}
}

// readLine returns the next line without its newline, bounded by
// maxJSONLine.
func (d *JSONDecoder) readLine() ([]byte, error) {
	d.buf = d.buf[:0]
	d.line++
	for {
		chunk, err := d.r.ReadSlice('\n')
		d.off += int64(len(chunk))
		d.buf = append(d.buf, chunk...)
		if len(d.buf) > maxJSONLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxJSONLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(d.buf, "\r\n"), err
	}
}

// JSONEncoder writes results as vegeta-compatible JSON lines, with
// loadlab's extra keys (due, step, target) after vegeta's when set.
type JSONEncoder struct {
	enc *json.Encoder
}

// NewJSONEncoder returns an encoder writing JSON lines to w.
func NewJSONEncoder(w io.Writer) *JSONEncoder { return &JSONEncoder{enc: json.NewEncoder(w)} }

// Encode writes one result as one line.
func (e *JSONEncoder) Encode(r *Result) error {
	j := jsonResult{
		Attack: r.Attack, Seq: r.Seq, Code: r.Code, Timestamp: r.Sent,
		Latency: r.Latency, BytesOut: r.BytesOut, BytesIn: r.BytesIn, Error: r.Error,
		Body: r.Body, Method: r.Method, URL: r.URL, Headers: r.Headers,
		Step: r.Step, Target: r.Target, SentHeader: r.SentHeader, SentBody: r.SentBody,
	}
	if !r.Due.IsZero() && !r.Due.Equal(r.Sent) {
		j.Due = r.Due
	}
	return e.enc.Encode(&j)
}
