package har

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// flowFile is the flow file's shape (docs/flows.md) as far as an import
// writes it; decoding with KnownFields refuses any other key.
type flowFile struct {
	Name  string `yaml:"name"`
	Steps []struct {
		Think   string `yaml:"think"`
		Request *struct {
			Method  string            `yaml:"method"`
			URL     string            `yaml:"url"`
			Headers map[string]string `yaml:"headers"`
			Body    string            `yaml:"body"`
		} `yaml:"request"`
		Capture []struct {
			Var    string `yaml:"var"`
			JSON   string `yaml:"json"`
			Header string `yaml:"header"`
		} `yaml:"capture"`
		Check []struct {
			Status int `yaml:"status"`
		} `yaml:"check"`
	} `yaml:"steps"`
}

func decodeFlow(t testing.TB, b []byte) flowFile {
	t.Helper()
	var f flowFile
	d := yaml.NewDecoder(bytes.NewReader(b))
	d.KnownFields(true)
	if err := d.Decode(&f); err != nil {
		t.Fatalf("the flow does not decode: %v\n%s", err, b)
	}
	return f
}

func readFile(t *testing.T, name string) *Recording {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// login-browse.har was recorded by headless Chromium against a real
// loadlab origin (testdata/record.mjs): a page that loads a script, a
// style sheet and an image, logs in (POST /login answers a token), fetches
// /home with the bearer token, sends a beacon to a second origin, and
// pages through /search by the list's "next".
func TestImportRecording(t *testing.T) {
	rec := readFile(t, "testdata/login-browse.har")
	out := Convert(rec, Options{Name: "login-browse"})
	if out.Total != 9 || out.Kept != 5 || out.Left[leftStatic] != 3 || out.Left[leftHost] != 1 || len(out.OtherHosts) != 1 {
		t.Errorf("kept %d of %d, left %v, other hosts %v", out.Kept, out.Total, out.Left, out.OtherHosts)
	}
	y := out.YAML("login-browse.har")
	f := decodeFlow(t, y)
	host := "http://" + out.Host
	var reqs []string
	var thinks []time.Duration
	for _, st := range f.Steps {
		if st.Think != "" {
			d, err := time.ParseDuration(st.Think)
			if err != nil {
				t.Fatalf("think %q: %v", st.Think, err)
			}
			thinks = append(thinks, d)
			continue
		}
		m := st.Request.Method
		if m == "" {
			m = "GET"
		}
		reqs = append(reqs, m+" "+strings.TrimPrefix(st.Request.URL, host))
		if len(st.Check) != 1 || st.Check[0].Status != 200 {
			t.Errorf("%s: checks %+v, want the recorded 200", st.Request.URL, st.Check)
		}
		if _, ok := st.Request.Headers["Cookie"]; ok {
			t.Errorf("%s replays the recorded Cookie header; the cookie jar has it", st.Request.URL)
		}
		for h := range st.Request.Headers {
			if strings.HasPrefix(strings.ToLower(h), "sec-") || strings.EqualFold(h, "User-Agent") {
				t.Errorf("%s replays the browser's %s", st.Request.URL, h)
			}
		}
	}
	// The list's next link ("/search?page=2") is followed as recorded: a
	// variable right after the host would be part of the host.
	want := []string{"GET /app?beacon=", "POST /login", "GET /home", "GET /search?q=shoes", "GET /search?page=2"}
	if len(reqs) != len(want) {
		t.Fatalf("requests %q, want %q\n%s", reqs, want, y)
	}
	for i := range want {
		if !strings.HasPrefix(reqs[i], want[i]) {
			t.Errorf("request %d = %q, want %q", i, reqs[i], want[i])
		}
	}
	// The page waited 600 ms, 900 ms, 1200 ms and 700 ms between them
	// (plus its own work): one think step each.
	if len(thinks) != 4 {
		t.Fatalf("thinks %v, want 4\n%s", thinks, y)
	}
	for i, lo := range []time.Duration{600, 900, 1200, 700} {
		if lo *= time.Millisecond; thinks[i] < lo || thinks[i] > lo+2*time.Second {
			t.Errorf("think %d = %v, want about %v", i, thinks[i], lo)
		}
	}
	login, search := f.Steps[2], f.Steps[6]
	if len(login.Capture) != 1 || login.Capture[0].Var != "token" || login.Capture[0].JSON != "$.token" {
		t.Errorf("login captures %+v, want token from $.token", login.Capture)
	}
	if login.Request.Body != `{"user":"ann","password":"secret-ann"}` || login.Request.Headers["Content-Type"] != "application/json" {
		t.Errorf("login request %+v", login.Request)
	}
	if len(search.Capture) != 0 {
		t.Errorf("search captures %+v, want none", search.Capture)
	}
	for _, i := range []int{4, 6, 8} {
		if got := f.Steps[i].Request.Headers["Authorization"]; got != "Bearer {{token}}" {
			t.Errorf("step %d Authorization %q, want the captured token", i, got)
		}
	}
	if bytes.Contains(y, []byte("loadlab_session")) {
		t.Errorf("the session cookie leaked into the flow:\n%s", y)
	}
}

func TestImportKeepsWhatIsAsked(t *testing.T) {
	rec := readFile(t, "testdata/login-browse.har")
	all := Convert(rec, Options{IncludeStatic: true, Hosts: []string{"127.0.0.1:45487"}})
	if all.Kept != 9 || len(all.Left) != 0 {
		t.Errorf("with -include-static and the beacon host: kept %d, left %v", all.Kept, all.Left)
	}
	byName := Convert(rec, Options{Hosts: []string{"127.0.0.1"}})
	if byName.Kept != 6 {
		t.Errorf("a host name keeps every port of it: kept %d", byName.Kept)
	}
	f := decodeFlow(t, Convert(rec, Options{MinThink: time.Second}).YAML("x.har"))
	n := 0
	for _, st := range f.Steps {
		if st.Think != "" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("with a 1s shortest think, %d think steps, want 1 (the 1.2s pause)", n)
	}
}
