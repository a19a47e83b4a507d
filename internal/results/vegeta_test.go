package results

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

func readAllSource(t testing.TB, s Decoder) ([]Result, error) {
	t.Helper()
	var out []Result
	for {
		var r Result
		err := s.Decode(&r)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func openVector(t *testing.T, name string) (*Source, []Result) {
	t.Helper()
	s, err := Open(filepath.Join("testdata", "vegeta", name))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, err := readAllSource(t, s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s, rs
}

// sameResult compares the fields vegeta records.
func sameResult(a, b *Result) bool {
	ab, bb := a.Body, b.Body
	if len(ab) == 0 {
		ab = nil
	}
	if len(bb) == 0 {
		bb = nil
	}
	return a.Attack == b.Attack && a.Seq == b.Seq && a.Code == b.Code &&
		a.Sent.Equal(b.Sent) && a.Latency == b.Latency && a.BytesIn == b.BytesIn &&
		a.BytesOut == b.BytesOut && a.Error == b.Error && bytes.Equal(ab, bb) &&
		a.Method == b.Method && a.URL == b.URL && reflect.DeepEqual(a.Headers, b.Headers)
}

func TestVegetaVectorsAllFormatsAgree(t *testing.T) {
	for _, name := range []string{"withbody", "mixed"} {
		t.Run(name, func(t *testing.T) {
			var ref []Result
			for _, tc := range []struct {
				ext  string
				want Format
			}{{"bin", FormatGob}, {"csv", FormatCSV}, {"json", FormatJSON}} {
				s, rs := openVector(t, name+"."+tc.ext)
				if s.Format != tc.want {
					t.Fatalf("%s.%s detected as %s, want %s", name, tc.ext, s.Format, tc.want)
				}
				if ref == nil {
					ref = rs
					if len(ref) < 100 {
						t.Fatalf("only %d results in %s.bin", len(ref), name)
					}
					continue
				}
				if len(rs) != len(ref) {
					t.Fatalf("%s.%s: %d results, want %d", name, tc.ext, len(rs), len(ref))
				}
				for i := range rs {
					if !sameResult(&rs[i], &ref[i]) {
						t.Fatalf("%s.%s result %d:\n got %+v\nwant %+v", name, tc.ext, i, rs[i], ref[i])
					}
				}
			}
		})
	}
}

// TestCSVEncoderMatchesVegeta re-encodes vegeta's gob file and expects the
// bytes `vegeta encode -to csv` wrote.
func TestCSVEncoderMatchesVegeta(t *testing.T) {
	for _, name := range []string{"withbody", "mixed"} {
		_, rs := openVector(t, name+".bin")
		var buf bytes.Buffer
		enc := NewCSVEncoder(&buf)
		for i := range rs {
			if err := enc.Encode(&rs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "vegeta", name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("%s: CSV differs from vegeta's (%d vs %d bytes)", name, buf.Len(), len(want))
		}
	}
}

func TestEncodersRoundTrip(t *testing.T) {
	rs := sample(300, 1000)
	rs[3].Body = []byte("hello")
	rs[3].Headers = http.Header{"Content-Type": {"text/plain"}, "X-Multi": {"a", "b"}}
	rs[9].Error = `Get "http://x/": dial tcp: connection refused, "quoted"`
	rs[9].Code = 0
	for i := range rs {
		rs[i].Target = uint32(i % 3)
	}
	type enc interface{ Encode(*Result) error }
	tests := []struct {
		name   string
		format Format
		make   func(w io.Writer) (enc, func() error)
		extras bool // keeps due, step, target
	}{
		{"csv", FormatCSV, func(w io.Writer) (enc, func() error) { e := NewCSVEncoder(w); return e, e.Flush }, false},
		{"json", FormatJSON, func(w io.Writer) (enc, func() error) { return NewJSONEncoder(w), nil }, true},
		{"gob", FormatGob, func(w io.Writer) (enc, func() error) { return NewGobEncoder(w), nil }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			e, flush := tc.make(&buf)
			for i := range rs {
				if err := e.Encode(&rs[i]); err != nil {
					t.Fatal(err)
				}
			}
			if flush != nil {
				if err := flush(); err != nil {
					t.Fatal(err)
				}
			}
			s, err := OpenReader(bytes.NewReader(buf.Bytes()), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tc.format {
				t.Fatalf("detected %s, want %s", s.Format, tc.format)
			}
			got, err := readAllSource(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(rs) {
				t.Fatalf("%d results, want %d", len(got), len(rs))
			}
			for i := range got {
				if !sameResult(&got[i], &rs[i]) {
					t.Fatalf("result %d:\n got %+v\nwant %+v", i, got[i], rs[i])
				}
				if tc.extras {
					if !got[i].Due.Equal(rs[i].Due) || got[i].Step != rs[i].Step || got[i].Target != rs[i].Target {
						t.Fatalf("result %d extras: got due %v step %d target %d, want %v %d %d", i,
							got[i].Due, got[i].Step, got[i].Target, rs[i].Due, rs[i].Step, rs[i].Target)
					}
				}
			}
		})
	}
}

func TestTornTextAndGobTails(t *testing.T) {
	for _, tc := range []struct {
		file  string
		cut   int // bytes removed from the end
		wantN int
	}{
		{"withbody.csv", 7, 99},
		{"withbody.json", 7, 99},
		{"withbody.bin", 7, 99},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "vegeta", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			data = data[:len(data)-tc.cut]
			s, err := OpenReader(bytes.NewReader(data), tc.file)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := readAllSource(t, s)
			if len(rs) != tc.wantN {
				t.Fatalf("%d results before the tail, want %d", len(rs), tc.wantN)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || !ce.Torn {
				t.Fatalf("want a torn-tail CorruptError, got %v", err)
			}
			if ce.Offset <= 0 || ce.Offset >= int64(len(data)) {
				t.Fatalf("offset %d outside the file (%d bytes)", ce.Offset, len(data))
			}
		})
	}
}

func TestCorruptMiddleOfCSV(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "vegeta", "withbody.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	off := len(bytes.Join(lines[:10], nil))
	lines[10] = []byte("garbage,line\n")
	s, err := OpenReader(bytes.NewReader(bytes.Join(lines, nil)), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := readAllSource(t, s)
	var ce *CorruptError
	if len(rs) != 10 || !errors.As(err, &ce) || ce.Torn || ce.Offset != int64(off) {
		t.Fatalf("got %d results, err %v; want 10 and a corrupt record at %d", len(rs), err, off)
	}
}

func TestDetect(t *testing.T) {
	stream := encodeAll(t, sample(10, 100))
	tests := []struct {
		name string
		in   []byte
		want Format
		bad  bool
	}{
		{"empty", nil, FormatEmpty, false},
		{"loadlab", stream, FormatLoadlab, false},
		{"json", []byte(`{"code":200,"timestamp":"2026-01-01T00:00:00Z","latency":5}` + "\n"), FormatJSON, false},
		{"csv old 9 columns", []byte("1,200,5,0,0,,,,0\n"), FormatCSV, false},
		{"text", []byte("hello world\n"), "", true},
		{"half a loadlab magic", []byte("LOAD"), "", true},
		{"bad json", []byte("{nope}\n"), "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenReader(bytes.NewReader(tc.in), "in")
			if tc.bad {
				if err == nil || !badinput.Is(err) {
					t.Fatalf("want a bad-input error, got %v (format %v)", err, s)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tc.want {
				t.Fatalf("detected %s, want %s", s.Format, tc.want)
			}
		})
	}
}

func TestOpenMissingFileIsBadInput(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.bin"))
	if !badinput.Is(err) {
		t.Fatalf("want bad input, got %v", err)
	}
}

func TestDroppedMarker(t *testing.T) {
	r := Result{Due: time.Unix(1, 0), Sent: time.Unix(1, 0), Error: DroppedPrefix + "max-workers reached"}
	if !r.Dropped() {
		t.Fatal("dropped result not recognised")
	}
	r.Code = 200
	if r.Dropped() {
		t.Fatal("a response is never a drop")
	}
}

func TestDetectTruncatedFirstResult(t *testing.T) {
	for _, tc := range []struct {
		file string
		keep int
	}{
		{"mixed.bin", 2000}, // the gob type definition and part of the first result
		{"mixed.csv", 20},
		{"mixed.json", 20},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "vegeta", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = OpenReader(bytes.NewReader(b[:tc.keep]), tc.file)
			if !badinput.Is(err) || !strings.Contains(err.Error(), tc.file+": not a results file: it ends inside its first result") {
				t.Fatalf("got %v, want a bad-input error saying the file ends inside its first result", err)
			}
		})
	}
}
