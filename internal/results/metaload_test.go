package results

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/loadlab/loadlab/internal/load"
)

// headerJSON is the JSON header of the stream in file, as it lies on disk.
func headerJSON(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexByte(data, '{')
	var raw json.RawMessage
	if i < 0 || json.NewDecoder(bytes.NewReader(data[i:])).Decode(&raw) != nil {
		t.Fatalf("%s: no JSON header", file)
	}
	return raw
}

// Real streams of every version read their load from the header (the
// schedule as given, and a closed loop's users when the header kept
// them), and a header written again is byte for byte the one on disk.
func TestMetaLoadOfRealStreams(t *testing.T) {
	for _, c := range []struct {
		file, load string
		closed     bool
	}{
		{"testdata/v1-stream.lll", "", false},
		// a closed loop of 16 users, written before headers kept users:
		// its header names only its rate of 0
		{"../archive/site/testdata/users-16/steps/01-16-users/page.lll", "0", false},
		{"../archive/site/testdata/users-4-16/steps/01-4-users/page.lll", "0", false},
	} {
		src, err := Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m := src.Meta
		src.Close()
		if m.Load.String() != c.load || m.Load.IsClosed() != c.closed {
			t.Errorf("%s: load %q (closed %v), want %q", c.file, m.Load, m.Load.IsClosed(), c.load)
		}
		js, err := json.Marshal(m)
		if err != nil || !bytes.Equal(js, headerJSON(t, c.file)) {
			t.Errorf("%s: header written again as\n%s\nwant\n%s", c.file, js, headerJSON(t, c.file))
		}
	}
}

// A header's users are a closed loop's (with its rate as given); a count
// of none or less than none (a broken or hostile header) is a paced
// attack's.
func TestMetaLoadFromHeader(t *testing.T) {
	for _, c := range []struct {
		js   string
		want load.Load
	}{
		{`{"version":2,"rate":"0","users":16}`, load.Load{Rate: "0", Users: 16, MaxUsers: 16}},
		{`{"version":2,"rate":"100/s"}`, load.Paced("100/s")},
		{`{"version":2,"rate":"0","users":-3}`, load.Paced("0")},
		{`{"version":2}`, load.Load{}},
	} {
		var m Meta
		if err := json.Unmarshal([]byte(c.js), &m); err != nil || m.Load != c.want {
			t.Errorf("%s: load %+v (%v), want %+v", c.js, m.Load, err, c.want)
		}
		js, _ := json.Marshal(m)
		var again Meta
		if err := json.Unmarshal(js, &again); err != nil || again.Load != m.Load {
			t.Errorf("%s: written as %s, read back as %+v", c.js, js, again.Load)
		}
	}
}
