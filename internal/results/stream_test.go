package results

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// sample makes n realistic results at rate per second, 1 kB bodies
// discarded, 5% 500s, like a typical paced attack.
func sample(n int, rate int) []Result {
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Unix(1_795_296_179, 519_438_910)
	out := make([]Result, n)
	for i := range out {
		due := start.Add(time.Duration(i) * time.Second / time.Duration(rate))
		r := Result{
			Attack: "search", Seq: uint64(i), Due: due,
			Sent:    due.Add(time.Duration(rng.IntN(80_000))),
			Latency: 5*time.Millisecond + time.Duration(rng.IntN(20_000_000)),
			Code:    200, BytesIn: 1024, Method: "GET", URL: "http://127.0.0.1:8080/search?q={{rand.letters 50}}",
		}
		if rng.IntN(20) == 0 {
			r.Code, r.Error, r.BytesIn = 500, "500 Internal Server Error", 21
		}
		if i%100 == 7 {
			r.Attack, r.Method, r.URL, r.Step = "news", "GET", "http://127.0.0.1:8080/news", 2
		}
		out[i] = r
	}
	return out
}

func encodeAll(t testing.TB, rs []Result) []byte {
	t.Helper()
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
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeAll(t testing.TB, data []byte) ([]Result, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []Result
	for {
		var res Result
		err := r.Decode(&res)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
}

func TestRoundTrip(t *testing.T) {
	withExtras := sample(10, 100)
	withExtras[3].Body = []byte("hello")
	withExtras[3].Headers = http.Header{"Content-Type": {"text/plain"}, "X-Multi": {"a", "b"}}
	withExtras[4].Body = []byte{}
	withExtras[5].Due = time.Time{} // unknown due time (vegeta input)
	tests := []struct {
		name string
		in   []Result
	}{
		{"empty", nil},
		{"one", sample(1, 10)},
		{"many blocks", sample(3*blockMaxRecords+17, 5000)},
		{"bodies and headers", withExtras},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(t, encodeAll(t, tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.in) {
				t.Fatalf("got %d results, want %d", len(got), len(tc.in))
			}
			for i := range got {
				want := tc.in[i]
				if want.Due.IsZero() {
					want.Due = want.Sent
				}
				got[i].Target = 0
				if !got[i].Due.Equal(want.Due) || !got[i].Sent.Equal(want.Sent) {
					t.Fatalf("result %d times: got %v/%v want %v/%v", i, got[i].Due, got[i].Sent, want.Due, want.Sent)
				}
				got[i].Due, got[i].Sent, want.Due, want.Sent = time.Time{}, time.Time{}, time.Time{}, time.Time{}
				if !reflect.DeepEqual(got[i], want) {
					t.Fatalf("result %d:\n got %+v\nwant %+v", i, got[i], want)
				}
			}
		})
	}
}

func TestTornAndCorruptTails(t *testing.T) {
	rs := sample(2*blockMaxRecords+100, 1000) // 3 blocks
	data := encodeAll(t, rs)
	// find the start of the last block
	last := bytes.LastIndex(data, []byte(syncMarker))
	tests := []struct {
		name     string
		data     []byte
		wantN    int
		wantTorn bool
		wantOff  int64
	}{
		{"cut inside last block", data[:len(data)-5], 2 * blockMaxRecords, true, int64(last)},
		{"cut inside marker", data[:last+2], 2 * blockMaxRecords, true, int64(last)},
		{"flipped byte in last block", flip(data, len(data)-3), 2 * blockMaxRecords, false, int64(last)},
		{"clean", data, len(rs), false, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAll(t, tc.data)
			if len(got) != tc.wantN {
				t.Fatalf("got %d results before the error, want %d", len(got), tc.wantN)
			}
			if tc.wantOff < 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("want CorruptError, got %v", err)
			}
			if ce.Torn != tc.wantTorn || ce.Offset != tc.wantOff {
				t.Fatalf("got torn=%v offset=%d, want torn=%v offset=%d", ce.Torn, ce.Offset, tc.wantTorn, tc.wantOff)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0xff
	return c
}

// TestBytesPerRequest documents the compactness goal: a typical paced run
// must cost at most 16 bytes per request.
func TestBytesPerRequest(t *testing.T) {
	const n = 100_000
	data := encodeAll(t, sample(n, 1000))
	per := float64(len(data)) / n
	t.Logf("%.2f bytes per request", per)
	if per > 16 {
		t.Fatalf("%.2f bytes per request, want <= 16", per)
	}
}

func FuzzReader(f *testing.F) {
	f.Add(encodeAll(f, sample(50, 100)))
	f.Add([]byte(magic))
	f.Add([]byte("LOADLAB\n\x01\x02{}LLB1"))
	f.Add(encodeAll(f, sample(9000, 100))) // three blocks
	flipped := encodeAll(f, sample(50, 100))
	flipped[len(magic)+3] ^= 0x04 // the header's JSON: read from the blocks
	f.Add(flipped)
	f.Add(encodeFlow(f, flowSample(300))) // version 3: a flow's records
	f.Fuzz(func(t *testing.T, data []byte) {
		// Both ways of reading: stopping at damage, and skipping it.
		for _, resync := range []bool{false, true} {
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				return
			}
			r.Resync(resync)
			var res Result
			for i := 0; i < 1_000_000; i++ {
				if err := r.Decode(&res); err != nil {
					break
				}
			}
			for _, d := range r.Damaged() {
				if d.Offset < 0 || d.Bytes < 0 || d.Offset > int64(len(data)) {
					t.Fatalf("implausible damage %+v in %d bytes", d, len(data))
				}
			}
		}
	})
}
