package results

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Format names a results encoding.
type Format string

// The results encodings loadlab reads.
const (
	FormatLoadlab Format = "loadlab" // loadlab's checksummed stream
	FormatGob     Format = "gob"     // what `vegeta attack` writes
	FormatCSV     Format = "csv"     // `vegeta encode -to csv`
	FormatJSON    Format = "json"    // `vegeta encode -to json`, JSON lines
	FormatEmpty   Format = "empty"   // no bytes at all
)

// detectBytes is how much of the input detection looks at.
const detectBytes = 64 << 10

// Source is an opened results file of any supported format. It implements
// Decoder.
type Source struct {
	Name   string // file name, "-" for stdin
	Format Format
	Meta   *Meta // loadlab streams only
	dec    Decoder
	closer io.Closer
}

// Decode reads the next result; io.EOF at the end, *CorruptError when the
// rest of the input cannot be read.
func (s *Source) Decode(r *Result) error { return s.dec.Decode(r) }

// Resync makes a loadlab stream skip damaged blocks and go on (see
// Reader.Resync); other formats ignore it.
func (s *Source) Resync(on bool) {
	if rd, ok := s.dec.(*Reader); ok {
		rd.Resync(on)
	}
}

// Damaged lists the regions of a loadlab stream skipped so far.
func (s *Source) Damaged() []Damage {
	if rd, ok := s.dec.(*Reader); ok {
		return rd.Damaged()
	}
	return nil
}

// Close releases the decoder and the file.
func (s *Source) Close() error {
	var err error
	if c, ok := s.dec.(io.Closer); ok {
		err = c.Close()
	}
	if s.closer != nil {
		err = errors.Join(err, s.closer.Close())
	}
	return err
}

// Open opens a results file ("-" or "" reads stdin from the process) and
// detects its format. Problems with the file are *badinput.Error values
// naming it.
func Open(path string) (*Source, error) {
	if path == "" || path == "-" {
		return OpenReader(os.Stdin, "-")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, badinput.Wrap(path, err)
	}
	s, err := OpenReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.closer = f
	return s, nil
}

// OpenReader detects the format of r and returns a Source reading it. name
// is used in error messages.
func OpenReader(r io.Reader, name string) (*Source, error) {
	br := bufio.NewReaderSize(r, detectBytes)
	head, err := br.Peek(detectBytes)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, badinput.Wrap(name, err)
	}
	f, err := Detect(head, len(head) < detectBytes)
	if err != nil {
		return nil, badinput.Wrap(name, err)
	}
	s := &Source{Name: name, Format: f}
	switch f {
	case FormatEmpty:
		s.dec = emptyDecoder{}
	case FormatLoadlab:
		rd, err := NewReader(br)
		if err != nil {
			return nil, badinput.Wrap(name, err)
		}
		m := rd.Meta()
		s.Meta, s.dec = &m, rd
	case FormatGob:
		s.dec = NewGobDecoder(br)
	case FormatCSV:
		s.dec = NewCSVDecoder(br)
	case FormatJSON:
		s.dec = NewJSONDecoder(br)
	}
	return s, nil
}

// Detect names the format of a results input from its first bytes. complete
// says head is the whole input (so a gob record cut by the end of head is
// not merely a long record).
func Detect(head []byte, complete bool) (Format, error) {
	if len(head) == 0 {
		return FormatEmpty, nil
	}
	if IsStream(head) {
		return FormatLoadlab, nil
	}
	if len(head) < len(magic) && bytes.HasPrefix([]byte(magic), head) {
		return "", errors.New("not a results file: truncated loadlab header")
	}
	text := bytes.TrimLeft(head, " \t\r\n")
	if len(text) > 0 && text[0] == '{' {
		var res Result
		err := NewJSONDecoder(bytes.NewReader(head)).Decode(&res)
		if err == nil || isTornOnly(err, complete) {
			return FormatJSON, nil
		}
		if isTorn(err) {
			return "", errTruncatedFirst(FormatJSON)
		}
	}
	if len(text) > 0 && text[0] >= '0' && text[0] <= '9' {
		var res Result
		err := NewCSVDecoder(bytes.NewReader(head)).Decode(&res)
		if err == nil || isTornOnly(err, complete) {
			return FormatCSV, nil
		}
		if isTorn(err) {
			return "", errTruncatedFirst(FormatCSV)
		}
	}
	switch looksLikeVegetaGob(head, complete) {
	case gobYes:
		return FormatGob, nil
	case gobTruncated:
		return "", errTruncatedFirst(FormatGob)
	}
	return "", errors.New("not a results file: neither a loadlab stream nor vegeta's gob, CSV or JSON results")
}

// errTruncatedFirst says a whole input ends inside its first result.
func errTruncatedFirst(f Format) error {
	return fmt.Errorf("not a results file: it ends inside its first result (%s results cut short?)", f)
}

// isTorn reports whether err says the input ends inside a record.
func isTorn(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce) && ce.Torn
}

// isTornOnly reports whether err only says the (partial) head ends inside a
// record, which is expected when head is a prefix of a longer input.
func isTornOnly(err error, complete bool) bool {
	return !complete && isTorn(err)
}

// Answers of looksLikeVegetaGob.
const (
	gobNo        = iota
	gobYes       // a vegeta gob stream
	gobTruncated // a whole input that ends inside vegeta's first result
)

// looksLikeVegetaGob decodes the first result of head with encoding/gob. A
// long first record (a kept body) may not fit in head: then the type
// definition, which comes first, must name vegeta's fields.
func looksLikeVegetaGob(head []byte, complete bool) int {
	v := vegetaResult{Headers: make(http.Header)} // see GobDecoder.Decode: not a map sized by the stream
	err := gob.NewDecoder(bytes.NewReader(head)).Decode(&v)
	if err == nil {
		return gobYes
	}
	if !(errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) ||
		!bytes.Contains(head, []byte("Timestamp")) || !bytes.Contains(head, []byte("Latency")) {
		return gobNo
	}
	if complete {
		return gobTruncated
	}
	return gobYes
}

type emptyDecoder struct{}

func (emptyDecoder) Decode(*Result) error { return io.EOF }

// String returns the format's name.
func (f Format) String() string { return string(f) }

// ParseFormat maps a name given on the command line to a Format.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatLoadlab, FormatGob, FormatCSV, FormatJSON:
		return Format(s), nil
	case "vegeta":
		return FormatGob, nil
	}
	return "", fmt.Errorf("unknown results format %q (want loadlab, csv, json or gob)", s)
}
