package targets

import (
	"fmt"
	"testing"
)

// Session variables render their values; a word that is neither a
// function nor a known variable is refused when compiled.
func TestSessionVariables(t *testing.T) {
	slots := map[string]int{"token": 0, "loop.index": 1}
	names := func(n string) (int, error) {
		if s, ok := slots[n]; ok {
			return s, nil
		}
		return 0, fmt.Errorf("variable %s is not defined", n)
	}
	tp, err := CompileNames(`Bearer {{token}} #{{loop.index}} {{rand.digits 2}}`, names)
	if err != nil {
		t.Fatal(err)
	}
	got := string(tp.AppendSession(nil, NewRand(1), 9, 3, PartHeader(0), []string{"abc", "7"}))
	want := string(tp.AppendSession(nil, NewRand(1), 9, 3, PartHeader(0), []string{"abc", "7"}))
	if got[:len("Bearer abc #7 ")] != "Bearer abc #7 " || got != want || len(got) != len("Bearer abc #7 12") {
		t.Fatalf("rendered %q (again %q)", got, want)
	}
	if s := tp.Slots(); len(s) != 2 || s[0] != 0 || s[1] != 1 {
		t.Fatalf("slots %v", s)
	}
	if _, err := CompileNames(`{{who}}`, names); err == nil || err.Error() != "template column 1: variable who is not defined" {
		t.Fatalf("undefined variable: %v", err)
	}
	if _, err := Compile(`{{token}}`); err == nil {
		t.Fatal("a plain target's template took a variable")
	}
	// a URL whose host comes from a variable is checked with a stand-in
	if _, err := BuildTarget(0, "GET", "http://{{token}}/x", nil, nil, names); err != nil {
		t.Fatalf("URL with a variable host: %v", err)
	}
}

// What a captured value may hold depends on where it goes.
func TestSafeFor(t *testing.T) {
	cases := []struct {
		where int
		value string
		ok    bool
	}{
		{InURL, "abc-123_~%20", true},
		{InURL, "a b", false},
		{InURL, "a\r\nb", false},
		{InHeader, "a b\tc", true},
		{InHeader, "a\r\nX-Injected: 1", false},
		{InHeader, "a\x00b", false},
		{InBody, "a\r\nb\x00", true},
	}
	for _, c := range cases {
		if ok, why := SafeFor(c.where, c.value); ok != c.ok || ok != (why == "") {
			t.Errorf("SafeFor(%d, %q) = %v %q, want %v", c.where, c.value, ok, why, c.ok)
		}
	}
}
