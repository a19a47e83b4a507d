package flow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// scFlow names a data file and body files (one in a loop inside a group),
// and has no name: (its name is its file's).
const scFlow = `data: users.csv
pick: random
exhausted: wrap
steps:
  - name: login
    request:
      method: POST
      url: "http://127.0.0.1:1/login"
      headers: {Content-Type: application/json, body_file: "a header, not a file"}
      body_file: login.json
  - group: g
    steps:
      - loop: {count: 2}
        steps:
          - request: {method: PUT, url: "http://127.0.0.1:1/x/{{loop.index}}", body_file: sub/raw.txt}
  - request: {method: POST, url: "http://127.0.0.1:1/plain", body: "kept {{user}}"}
`

// The self-contained flow loads, from a folder holding nothing else, into
// the same flow: name, steps, data rows and bodies, byte for byte.
func TestSelfContainedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"shop.yaml":   scFlow,
		"users.csv":   "user,pin,flag\nann,007,true\n\"b, en\",\"\",\"x: y\"\n'q,\"#not a comment\",null\n",
		"login.json":  "{\"user\":\"{{user}}\",\n  \"pin\":\"{{pin}}\"}\n\n",
		"sub/raw.txt": "  leading spaces\ttab\nno final newline",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig, err := Load(filepath.Join(dir, "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := SelfContained(filepath.Join(dir, "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"users.csv", "login.json", "raw.txt"} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("the self-contained flow still names %s:\n%s", gone, out)
		}
	}
	other := filepath.Join(t.TempDir(), "flow.yaml")
	if err := os.WriteFile(other, out, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(other)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Name != "shop" || got.Pick != "random" || got.Exhausted != "wrap" {
		t.Errorf("name %q pick %q exhausted %q, want shop random wrap", got.Name, got.Pick, got.Exhausted)
	}
	if !reflect.DeepEqual(got.Data.Columns, orig.Data.Columns) || !reflect.DeepEqual(got.Data.Rows, orig.Data.Rows) {
		t.Errorf("data %q %q, want %q %q", got.Data.Columns, got.Data.Rows, orig.Data.Columns, orig.Data.Rows)
	}
	if len(orig.Data.Rows) != 3 {
		t.Fatalf("the original has %d rows, want 3", len(orig.Data.Rows))
	}
	if a, b := describe(orig), describe(got); a != b {
		t.Errorf("steps differ:\n%s\nwant\n%s", b, a)
	}
	for _, want := range []string{files["login.json"], files["sub/raw.txt"], "kept {{user}}"} {
		if !strings.Contains(describe(got), fmt.Sprintf("%q", want)) {
			t.Errorf("no step has the body %q:\n%s", want, describe(got))
		}
	}
}

// describe lists every request step: name, method, URL, headers, body.
func describe(f *Flow) string {
	var b strings.Builder
	for _, s := range f.Requests() {
		fmt.Fprintf(&b, "%s %s %s", s.Name, s.Target.Method, s.Target.URL.Source())
		for _, h := range s.Target.Header {
			fmt.Fprintf(&b, " [%s: %s]", h.Name, h.Value.Source())
		}
		if s.Target.Body != nil {
			fmt.Fprintf(&b, " body %q", s.Target.Body.Source())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A body file that is not text, or a bad flow, is one line of bad input.
func TestSelfContainedBadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.yaml")
	os.WriteFile(file, []byte("steps:\n  - request: {method: POST, url: \"http://127.0.0.1:1/\", body_file: b.bin}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.bin"), []byte{0xff, 0xfe, 0}, 0o644)
	_, err := SelfContained(file)
	var be *badinput.Error
	if !errors.As(err, &be) || !strings.Contains(err.Error(), file+":2: body_file: b.bin is not UTF-8 text") {
		t.Errorf("binary body: %v", err)
	}
	os.WriteFile(file, []byte("data: nope.csv\nsteps:\n  - request: {url: \"http://127.0.0.1:1/\"}\n"), 0o644)
	if _, err := SelfContained(file); !errors.As(err, &be) || !strings.Contains(err.Error(), `data: cannot read data file "nope.csv"`) {
		t.Errorf("missing data file: %v", err)
	}
}
