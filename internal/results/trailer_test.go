package results

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// readAll decodes every result of data, reading as loadlab did before it
// wrote trailers when old is set, and returns them with the trailer.
func readAllOf(t *testing.T, data []byte, old bool) ([]Result, *Trailer) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.asBeforeTrailers = old
	var out []Result
	for {
		var res Result
		err := r.Decode(&res)
		if err == io.EOF {
			if d := r.Damaged(); len(d) > 0 {
				t.Fatalf("damage %v", d)
			}
			return out, r.Trailer()
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
}

// A stream's trailer is read back after its last result; the results are
// the same as without it, and the same to a reader that knows no
// trailers (an older loadlab), which sees no damage.
func TestTrailer(t *testing.T) {
	rs := sample(2*blockMaxRecords+5, 1000)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{Attack: "search", Created: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if err := w.Encode(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	health := json.RawMessage(`{"lag_p99":1200000,"generator_cpu":0.42,"busy":0.31,"steal":0}`)
	if err := w.WriteTrailer(Trailer{Health: health}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, tr := readAllOf(t, buf.Bytes(), false)
	if tr == nil || tr.Version != TrailerVersion || string(tr.Health) != string(health) {
		t.Fatalf("trailer %+v", tr)
	}
	plain, none := readAllOf(t, encodeAll(t, rs), false)
	if none != nil {
		t.Errorf("a stream without a trailer read one: %+v", none)
	}
	if !reflect.DeepEqual(got, plain) {
		t.Error("the results of a stream with a trailer differ from the same without")
	}
	old, oldTr := readAllOf(t, buf.Bytes(), true)
	if oldTr != nil || !reflect.DeepEqual(old, plain) {
		t.Error("a reader that knows no trailers reads other results")
	}
	for _, r := range got {
		if strings.Contains(r.Error, "loadlab-trailer") {
			t.Fatalf("the trailer read as an error: %+v", r)
		}
	}

	// a StreamSink writes it at its close
	var sbuf bytes.Buffer
	s, err := NewStreamSink(&sbuf, Meta{}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s.Add(&rs[0])
	if err := s.CloseWith(&Trailer{Health: health}); err != nil {
		t.Fatal(err)
	}
	if got, tr := readAllOf(t, sbuf.Bytes(), false); len(got) != 1 || tr == nil || string(tr.Health) != string(health) {
		t.Errorf("stream sink: %d results, trailer %+v", len(got), tr)
	}
}

// Streams written before trailers (the version 1 file in testdata) read
// as before, with no trailer.
func TestOldStreamHasNoTrailer(t *testing.T) {
	data, err := os.ReadFile("testdata/v1-stream.lll")
	if err != nil {
		t.Fatal(err)
	}
	got, tr := readAllOf(t, data, false)
	if len(got) == 0 || tr != nil {
		t.Errorf("%d results, trailer %+v", len(got), tr)
	}
}
