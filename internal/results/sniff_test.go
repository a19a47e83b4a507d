package results

import (
	"bytes"
	"io"
	"testing"
)

func TestSniffStream(t *testing.T) {
	data := encodeAll(t, sample(50, 100))
	rest, ok := SniffStream(bytes.NewReader(data))
	if !ok {
		t.Fatal("a loadlab stream was not recognised")
	}
	r, err := NewReader(rest)
	if err != nil {
		t.Fatalf("reading after the sniff: %v", err)
	}
	n := 0
	var res Result
	for {
		if err := r.Decode(&res); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		n++
	}
	if n != 50 {
		t.Errorf("read %d results after the sniff, want 50", n)
	}
	for _, in := range []string{"", "LOAD", "timestamp,code\n1,200\n"} {
		rest, ok := SniffStream(bytes.NewReader([]byte(in)))
		if ok {
			t.Errorf("%q taken for a stream", in)
		}
		if back, _ := io.ReadAll(rest); string(back) != in {
			t.Errorf("%q came back as %q", in, back)
		}
	}
}
