package flow

import (
	"reflect"
	"strings"
	"testing"
)

func TestPathEval(t *testing.T) {
	doc, ok := decodeJSON([]byte(`{"a":{"b":[{"c":1},{"c":"two"},{"d":3}]},"weird key":true,"n":null}`))
	if !ok {
		t.Fatal("not JSON")
	}
	cases := []struct {
		path  string
		want  []string
		found bool
	}{
		{"$.a.b[0].c", []string{"1"}, true},
		{"$.a.b[1].c", []string{"two"}, true},
		{"$.a.b[*].c", []string{"1", "two"}, true},
		{"$['weird key']", []string{"true"}, true},
		{"$.n", []string{"null"}, true},
		{"$.a.b[5]", nil, false},
		{"$.a.x", nil, false},
		{"$.a.b[2]", []string{`{"d":3}`}, true},
		{"$", []string{`{"a":{"b":[{"c":1},{"c":"two"},{"d":3}]},"n":null,"weird key":true}`}, true},
	}
	for _, c := range cases {
		p, err := ParsePath(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		vals, found := p.Eval(doc)
		var got []string
		for _, v := range vals {
			got = append(got, text(v))
		}
		if found != c.found || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v, want %v %v", c.path, got, found, c.want, c.found)
		}
	}
	for _, bad := range []string{"", "a.b", "$.", "$[", "$['x", "$[-1]", "$.a b", "$x"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzPath: any path text compiles or is refused with a one-line reason;
// a compiled one evaluates on any JSON without a panic.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"$.a.b[0].c", "$.items[*].id", "$['x y'][2]", "$"} {
		f.Add(s, `{"a":{"b":[{"c":1}]},"items":[{"id":1},{"id":2}]}`)
	}
	f.Fuzz(func(t *testing.T, path, doc string) {
		p, err := ParsePath(path)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a reason on several lines: %q", err)
			}
			return
		}
		if v, ok := decodeJSON([]byte(doc)); ok {
			p.Eval(v)
		}
	})
}
