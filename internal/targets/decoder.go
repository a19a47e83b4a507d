package targets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Format is a target file format.
type Format string

// The target formats, named as vegeta's -format flag names them.
const (
	HTTP Format = "http" // "METHOD URL", header lines, optional @bodyfile, blank-line separated
	JSON Format = "json" // one {"method","url","header","body"(base64)} object per line
)

// ParseFormat checks a -format flag value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case HTTP, JSON:
		return Format(s), nil
	}
	return "", badinput.Field("-format", "unknown target format %q (want http or json)", s)
}

// Options tell the decoder how to read targets.
type Options struct {
	Format Format      // HTTP (default) or JSON
	File   string      // name used in messages; "" means stdin
	Dir    string      // directory also searched for relative @body files (default: File's)
	Header http.Header // headers added to every target before its own (-header)
	Body   []byte      // body for targets that have none (-body), may be templated
}

// maxLine bounds one line of a target file.
const maxLine = 1 << 20

// Decoder reads targets one at a time from a stream, so huge or endless
// target streams need no memory (the -lazy mode).
type Decoder struct {
	opts    Options
	sc      *bufio.Scanner
	line    int
	n       uint32
	global  []Header
	body    *Template
	bodies  map[string]*Template // @file bodies, compiled once
	pending string               // a method line met while reading headers
}

// NewDecoder returns a Decoder of r. Bad global headers or body templates
// are reported here.
func NewDecoder(r io.Reader, opts Options) (*Decoder, error) {
	if opts.Format == "" {
		opts.Format = HTTP
	}
	if opts.Dir == "" && opts.File != "" {
		opts.Dir = filepath.Dir(opts.File)
	}
	d := &Decoder{opts: opts, bodies: map[string]*Template{}}
	d.sc = bufio.NewScanner(r)
	d.sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	names := make([]string, 0, len(opts.Header))
	for k := range opts.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range opts.Header[k] {
			h, err := compileHeader(k, v)
			if err != nil {
				return nil, badinput.Field("-header", "%v", err)
			}
			d.global = append(d.global, h)
		}
	}
	if opts.Body != nil {
		t, err := Compile(string(opts.Body))
		if err != nil {
			return nil, badinput.Field("-body", "%v", err)
		}
		d.body = t
	}
	return d, nil
}

// Next returns the next target, or io.EOF after the last one. Problems in
// the stream are *badinput.Error values naming the file and line.
func (d *Decoder) Next() (*Target, error) {
	var t *Target
	var err error
	if d.opts.Format == JSON {
		t, err = d.nextJSON()
	} else {
		t, err = d.nextHTTP()
	}
	if err != nil {
		return nil, err
	}
	t.Index = d.n
	t.File = d.opts.File
	d.n++
	if t.Body == nil {
		t.Body = d.body
	}
	t.finalize()
	return t, nil
}

// ReadAll reads every target of r.
func ReadAll(r io.Reader, opts Options) ([]*Target, error) {
	d, err := NewDecoder(r, opts)
	if err != nil {
		return nil, err
	}
	return d.All()
}

// All reads every remaining target.
func (d *Decoder) All() ([]*Target, error) {
	var ts []*Target
	for {
		t, err := d.Next()
		if errors.Is(err, io.EOF) {
			return ts, nil
		}
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
}

func (d *Decoder) errAt(line int, format string, args ...any) error {
	e := badinput.At(d.opts.File, line, format, args...)
	if e.File == "" {
		e.File = "stdin"
	}
	return e
}

// scan returns the next raw line, or ok=false at the end of the stream.
func (d *Decoder) scan() (string, bool, error) {
	if d.pending != "" {
		s := d.pending
		d.pending = ""
		return s, true, nil
	}
	if !d.sc.Scan() {
		if err := d.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return "", false, d.errAt(d.line+1, "line longer than %d bytes", maxLine)
			}
			return "", false, badinput.Wrap(d.opts.File, err)
		}
		return "", false, nil
	}
	d.line++
	return d.sc.Text(), true, nil
}

func isComment(s string) bool { return strings.HasPrefix(s, "#") || strings.HasPrefix(s, "//") }

// nextLine returns the next line that is neither blank nor a comment,
// trimmed, or io.EOF at the end of the input.
func (d *Decoder) nextLine() (string, error) {
	for {
		s, ok, err := d.scan()
		if err != nil {
			return "", err
		}
		if !ok {
			return "", io.EOF
		}
		if line := strings.TrimSpace(s); line != "" && !isComment(line) {
			return line, nil
		}
	}
}

// nextHTTP parses vegeta's http format:
//
//	METHOD URL
//	Header-Name: value
//	@path/to/body
//
// Targets are separated by blank lines (a new "METHOD URL" line also starts
// a new target); lines starting with # or // are comments.
func (d *Decoder) nextHTTP() (*Target, error) {
	line, err := d.nextLine()
	if err != nil {
		return nil, err
	}
	at := d.line
	method, rawURL, ok := strings.Cut(line, " ")
	rawURL = strings.TrimSpace(rawURL)
	if !ok || rawURL == "" {
		return nil, d.errAt(at, "want \"METHOD URL\", got %s", quote(line))
	}
	t, err := d.newTarget(at, method, rawURL)
	if err != nil {
		return nil, err
	}
	t.Header = append(t.Header, d.global...)
	for {
		s, ok, err := d.scan()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		s = strings.TrimSpace(s)
		if s == "" {
			break
		}
		if isComment(s) {
			continue
		}
		if strings.HasPrefix(s, "@") {
			if t.Body, err = d.bodyFile(d.line, strings.TrimSpace(s[1:])); err != nil {
				return nil, err
			}
			continue
		}
		name, value, ok := strings.Cut(s, ":")
		if m, _, _ := strings.Cut(s, " "); ValidMethod(m) && (!ok || strings.Contains(name, " ")) {
			d.pending = s // the next target starts here, on the current line
			break
		}
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, d.errAt(d.line, "want a \"Name: value\" header, \"@bodyfile\" or a blank line, got %s", quote(s))
		}
		h, err := compileHeader(name, strings.TrimSpace(value))
		if err != nil {
			return nil, d.errAt(d.line, "%v", err)
		}
		t.Header = append(t.Header, h)
	}
	return t, nil
}

// newTarget checks the method and URL of a target starting at line.
func (d *Decoder) newTarget(line int, method, rawURL string) (*Target, error) {
	if !ValidMethod(method) {
		return nil, d.errAt(line, "unknown method %s (want GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE or CONNECT)", quote(method))
	}
	u, err := Compile(rawURL)
	if err != nil {
		return nil, d.errAt(line, "URL: %v", err)
	}
	if msg := checkURL(u); msg != "" {
		return nil, d.errAt(line, "%s", msg)
	}
	return &Target{Method: method, URL: u, Line: line}, nil
}

// bodyFile loads and compiles an @body file, looked up as given, then
// relative to the targets file's directory.
func (d *Decoder) bodyFile(line int, path string) (*Template, error) {
	if path == "" {
		return nil, d.errAt(line, "@ needs a body file name")
	}
	if t, ok := d.bodies[path]; ok {
		return t, nil
	}
	data, err := os.ReadFile(path)
	if err != nil && !filepath.IsAbs(path) && d.opts.Dir != "" {
		if b, err2 := os.ReadFile(filepath.Join(d.opts.Dir, path)); err2 == nil {
			data, err = b, nil
		}
	}
	if err != nil {
		return nil, d.errAt(line, "body file: %v", unwrapPath(err))
	}
	t, err := Compile(string(data))
	if err != nil {
		return nil, d.errAt(line, "body file %s: %v", path, err)
	}
	d.bodies[path] = t
	return t, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
