package results

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"time"
)

// Vegeta's CSV columns, in order (vegeta v12; older versions wrote only the
// first nine): timestamp (Unix ns), code, latency (ns), bytes out, bytes in,
// error, body (base64), attack, seq, method, url, headers (base64 of the
// header block in wire format).
const (
	vegetaCSVFields    = 12
	vegetaCSVOldFields = 9
)

// CSVDecoder reads vegeta's CSV encoding of results (`vegeta encode -to
// csv`). It implements Decoder.
type CSVDecoder struct {
	r    *csv.Reader
	tail *tailTracker
	err  error
}

// NewCSVDecoder returns a decoder for vegeta CSV results.
func NewCSVDecoder(r io.Reader) *CSVDecoder {
	tail := &tailTracker{r: r}
	cr := csv.NewReader(tail)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	return &CSVDecoder{r: cr, tail: tail}
}

// Decode reads the next result. A malformed record ends decoding with a
// *CorruptError naming the line and the byte offset of the record; a last
// line cut short (no final newline) is reported as a torn tail.
func (d *CSVDecoder) Decode(r *Result) error {
	if d.err != nil {
		return d.err
	}
	start := d.r.InputOffset()
	rec, err := d.r.Read()
	if err == io.EOF {
		d.err = io.EOF
		return err
	}
	line := 0
	if err == nil {
		line, _ = d.r.FieldPos(0)
		err = parseCSVRecord(rec, r)
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			line = pe.StartLine
			err = pe.Err
		}
		d.err = &CorruptError{Offset: start, Torn: d.tail.cutShort(d.r.InputOffset()), Reason: fmt.Sprintf("CSV line %d: %v", line, err)}
		return d.err
	}
	return nil
}

func parseCSVRecord(rec []string, r *Result) error {
	if len(rec) != vegetaCSVFields && len(rec) != vegetaCSVOldFields {
		return fmt.Errorf("%d fields, want %d (vegeta CSV)", len(rec), vegetaCSVFields)
	}
	ts, err := strconv.ParseInt(rec[0], 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q is not Unix nanoseconds", rec[0])
	}
	code, err := strconv.ParseUint(rec[1], 10, 16)
	if err != nil {
		return fmt.Errorf("status code %q is not a number", rec[1])
	}
	lat, err := strconv.ParseInt(rec[2], 10, 64)
	if err != nil {
		return fmt.Errorf("latency %q is not nanoseconds", rec[2])
	}
	out, err := strconv.ParseUint(rec[3], 10, 64)
	if err != nil {
		return fmt.Errorf("bytes out %q is not a number", rec[3])
	}
	in, err := strconv.ParseUint(rec[4], 10, 64)
	if err != nil {
		return fmt.Errorf("bytes in %q is not a number", rec[4])
	}
	body := r.Body[:0]
	*r = Result{
		Sent: time.Unix(0, ts), Code: uint16(code), Latency: time.Duration(lat),
		BytesOut: out, BytesIn: in, Error: rec[5], Attack: rec[7],
	}
	// As vegeta's decoder: an empty column is an empty body, not none
	// (vegeta's JSON then writes "" rather than null).
	if body == nil {
		body = []byte{}
	}
	b, err := base64.StdEncoding.AppendDecode(body, []byte(rec[6]))
	if err != nil {
		return fmt.Errorf("body is not base64: %v", err)
	}
	r.Body = b
	if r.Seq, err = strconv.ParseUint(rec[8], 10, 64); err != nil {
		return fmt.Errorf("seq %q is not a number", rec[8])
	}
	if len(rec) == vegetaCSVOldFields {
		return nil
	}
	r.Method, r.URL = rec[9], rec[10]
	if rec[11] != "" {
		raw, err := base64.StdEncoding.DecodeString(rec[11])
		if err != nil {
			return fmt.Errorf("headers are not base64: %v", err)
		}
		h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw))).ReadMIMEHeader()
		if err != nil && !(errors.Is(err, io.EOF) && len(h) > 0) {
			return fmt.Errorf("headers: %v", err)
		}
		r.Headers = http.Header(h)
	}
	return nil
}

// CSVEncoder writes results in vegeta's CSV encoding, 12 columns. Vegeta's
// CSV decoder insists on exactly 12 fields per record, so loadlab's extra
// fields (due time, step, target) are not written: use JSON or the loadlab
// stream to keep them.
type CSVEncoder struct {
	w   *csv.Writer
	rec []string
	hb  bytes.Buffer
}

// NewCSVEncoder returns an encoder writing vegeta CSV to w. Call Flush at
// the end.
func NewCSVEncoder(w io.Writer) *CSVEncoder {
	return &CSVEncoder{w: csv.NewWriter(w), rec: make([]string, vegetaCSVFields)}
}

// Encode writes one record.
func (e *CSVEncoder) Encode(r *Result) error {
	rec := e.rec
	rec[0] = strconv.FormatInt(r.Sent.UnixNano(), 10)
	rec[1] = strconv.FormatUint(uint64(r.Code), 10)
	rec[2] = strconv.FormatInt(r.Latency.Nanoseconds(), 10)
	rec[3] = strconv.FormatUint(r.BytesOut, 10)
	rec[4] = strconv.FormatUint(r.BytesIn, 10)
	rec[5] = r.Error
	rec[6] = base64.StdEncoding.EncodeToString(r.Body)
	rec[7] = r.Attack
	rec[8] = strconv.FormatUint(r.Seq, 10)
	rec[9] = r.Method
	rec[10] = r.URL
	rec[11] = ""
	if r.Headers != nil {
		e.hb.Reset()
		if err := r.Headers.Write(&e.hb); err != nil {
			return err
		}
		e.hb.WriteString("\r\n")
		rec[11] = base64.StdEncoding.EncodeToString(e.hb.Bytes())
	}
	return e.w.Write(rec)
}

// Flush writes buffered records out.
func (e *CSVEncoder) Flush() error {
	e.w.Flush()
	return e.w.Error()
}
