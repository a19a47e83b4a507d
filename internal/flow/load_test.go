package flow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Every bad flow is one line naming the file, the line and the field.
func TestBadFlows(t *testing.T) {
	cases := []struct {
		name, flow string
		files      map[string]string
		want       string // the error, with FILE for the flow file's path
	}{
		{"unknown step kind", "steps:\n  - fetch: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:2: steps[0].fetch: unknown step kind (want request, think, group or loop)"},
		{"unknown field", "steps:\n  - request: {url: http://127.0.0.1:1/, verb: GET}\n", nil,
			"FILE:2: steps[0].request.verb: unknown field (known here: method, url, headers, body, body_file)"},
		{"unknown top field", "name: x\nstep: []\n", nil,
			"FILE:2: step: unknown field (known here: name, data, pick, exhausted, cookies, on_failure, steps)"},
		{"capture naming no variable", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    capture:\n      - {json: $.token}\n", nil,
			"FILE:4: steps[0].capture[0].var: a capture must name the variable it sets (var: NAME)"},
		{"bad JSON path", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    capture:\n      - {var: t, json: \"$.items[x]\"}\n", nil,
			`FILE:4: steps[0].capture[0].json: JSON path "$.items[x]", column 8: want [N] with N a whole number from 0, [*] or ['name'], got [x]`},
		{"variable used before defined", "steps:\n  - request: {url: \"http://127.0.0.1:1/?t={{token}}\"}\n  - request: {url: http://127.0.0.1:1/}\n    capture: [{var: token, status: true}]\n", nil,
			"FILE:2: steps[0].request.url: template column 23: variable token is used before anything defines it (a data column, or a capture of an earlier step)"},
		{"loop item outside its loop", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    capture: [{var: ids, json: \"$[*]\"}]\n  - loop: {over: ids}\n    steps:\n      - request: {url: \"http://127.0.0.1:1/{{loop.item}}\"}\n  - request: {url: \"http://127.0.0.1:1/{{loop.item}}\"}\n", nil,
			"FILE:7: steps[2].request.url: template column 20: variable loop.item is used before anything defines it (a data column, or a capture of an earlier step)"},
		{"loop over a non-list", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    capture: [{var: id, json: \"$.id\"}]\n  - loop: {over: id}\n    steps: [{request: {url: http://127.0.0.1:1/}}]\n", nil,
			"FILE:4: steps[1].loop.over: variable id is not a list: capture it with a JSON path holding [*], e.g. $.items[*].id"},
		{"missing data file", "data: nope.csv\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			`FILE:1: data: cannot read data file "nope.csv": no such file or directory`},
		{"empty data file", "data: users.csv\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", map[string]string{"users.csv": "\n"},
			"DIR/users.csv: data file is empty: want a header row and at least one row"},
		{"ragged row", "data: users.csv\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", map[string]string{"users.csv": "user,password\nann,x\nben\n"},
			"DIR/users.csv:3: ragged row: wrong number of fields (every row must have as many fields as the header)"},
		{"ragged JSON row", "data: users.json\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", map[string]string{"users.json": `[{"user":"ann","pw":"x"},{"user":"ben"}]`},
			"DIR/users.json: ragged row: element 1 has 1 fields, the first has 2 (pw, user)"},
		{"data value unfit for a header", "data: users.csv\nsteps:\n  - request: {url: http://127.0.0.1:1/, headers: {X-User: \"{{user}}\"}}\n", map[string]string{"users.csv": "user\n\"a\rb\"\n"},
			"DIR/users.csv: row 1, column user: the value holds a control character (CR, LF, NUL...), which a header value cannot carry"},
		{"two kinds in a step", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    think: 1s\n", nil,
			"FILE:3: steps[0].think: a step is one of request, think, group or loop; this one is also request"},
		{"bad status", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    check: [{status: 999}]\n", nil,
			`FILE:3: steps[0].check[0].status: want a status code from 100 to 599, got "999"`},
		{"uniform backwards", "steps:\n  - think: {uniform: [2s, 1s]}\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:2: steps[0].think.uniform: MAX 1s is below MIN 2s"},
		{"no request", "steps:\n  - think: 1s\n", nil,
			"FILE:2: steps: the flow sends no request"},
		{"not YAML", "steps: [\n", nil, "FILE:1: "},
		{"bad regex", "steps:\n  - request: {url: http://127.0.0.1:1/}\n    capture: [{var: x, regex: \"(\"}]\n", nil,
			"FILE:3: steps[0].capture[0].regex: error parsing regexp: missing closing ): `(`"},
		{"loop too long", "steps:\n  - loop: {count: 10001}\n    steps: [{request: {url: http://127.0.0.1:1/}}]\n", nil,
			`FILE:2: steps[0].loop.count: want a whole number from 1 to 10000, got "10001"`},
		{"inline data not rows", "data: [ann, ben]\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:1: data[0]: want a row (a mapping of column: value), got a value \"ann\""},
		{"inline data ragged", "data:\n  - {user: ann, pw: x}\n  - {user: ben}\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:3: data[1]: ragged row: 1 columns, the first row has 2"},
		{"inline data unknown column", "data:\n  - {user: ann}\n  - {name: ben}\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:3: data[1].name: a column the first row does not have (it has user)"},
		{"inline data nested value", "data:\n  - {user: [ann]}\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:2: data[0].user: want a string, number or boolean, got a list"},
		{"inline data empty", "data: []\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			"FILE:1: data: an empty list of rows: want at least one row"},
		{"inline data bad column", "data:\n  - {\"1x\": ann}\nsteps:\n  - request: {url: http://127.0.0.1:1/}\n", nil,
			`FILE:2: column "1x" is not a variable name`},
		{"inline value unfit for a header", "data:\n  - {user: ann}\n  - {user: \"a\\rb\"}\nsteps:\n  - request: {url: http://127.0.0.1:1/, headers: {X-User: \"{{user}}\"}}\n", nil,
			"FILE:3: row 2, column user: the value holds a control character"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "flow.yaml")
			if err := os.WriteFile(file, []byte(c.flow), 0o644); err != nil {
				t.Fatal(err)
			}
			for name, body := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(file)
			if err == nil {
				t.Fatal("loaded")
			}
			var be *badinput.Error
			if !errors.As(err, &be) {
				t.Fatalf("%T %v: not bad input", err, err)
			}
			msg := err.Error()
			want := strings.ReplaceAll(strings.ReplaceAll(c.want, "FILE", file), "DIR", dir)
			if !strings.HasPrefix(msg, want) || strings.Contains(msg, "\n") {
				t.Fatalf("error\n %s\nwant\n %s", msg, want)
			}
		})
	}
}

// FuzzParse: any flow file either loads or is one line of bad input;
// never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(journey))
	f.Add([]byte("steps:\n  - loop: {count: 2}\n    steps:\n      - request: {url: \"http://h/{{loop.index}}\"}\n"))
	f.Add([]byte("steps:\n  - think: {exponential: 1s}\n  - group: g\n    steps: [{request: {url: http://h/}, check: [{json: $.a, exists: false}]}]\n"))
	f.Add([]byte("data:\n  - {user: ann, pin: \"007\"}\n  - {pin: 1, user: ben}\nsteps:\n  - request: {url: \"http://h/{{user}}\", method: POST, body: \"{{pin}}\"}\n"))
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte("user,password\nann,x\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Parse(filepath.Join(dir, "flow.yaml"), data)
		if err != nil {
			if !badinput.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line of bad input: %T %q", err, err)
			}
			return
		}
		if firstRequest(fl.Steps) == nil {
			t.Fatal("a flow without a request loaded")
		}
	})
}
