package archive

import (
	"strings"
	"testing"
)

func TestParseLabel(t *testing.T) {
	for in, want := range map[string]string{
		"build=2020-02-04": "build|2020-02-04", "commit=a=b": "commit|a=b", "k8s.io/app=x y": "k8s.io/app|x y",
		"nokey": "", "=v": "", "k=": "", "a b=c": "", "k=line\nbreak": "",
	} {
		k, v, err := ParseLabel(in)
		got := k + "|" + v
		if err != nil {
			got = ""
		}
		if got != want {
			t.Errorf("ParseLabel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// Whatever the input, a label parses into a key and value that print back
// as the same label on one line, or is refused with one line.
func FuzzParseLabel(f *testing.F) {
	for _, s := range []string{"build=2020-02-04", "k=", "=v", "a=b=c", "é=1", "k=\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, v, err := ParseLabel(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on several lines: %q", err)
			}
			return
		}
		if k == "" || v == "" || k+"="+v != s || strings.ContainsAny(v, "\r\n") {
			t.Fatalf("ParseLabel(%q) = %q, %q", s, k, v)
		}
	})
}

func TestSlugAndID(t *testing.T) {
	id := NewID("00e4510abe3715d2b76c7288bcaa60f44397578e09ce835913b55a2de1c04f1e")
	if len(id) != IDLen || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz234567") != "" || id != NewID("00e4510abe3715d2b76c7288bcaa60f44397578e09ce835913b55a2de1c04f1e") {
		t.Errorf("id %q", id)
	}
	for _, c := range []struct {
		rate  float64
		users []int
		want  string
	}{
		{349.6, nil, "regression-hunt-60s-350rps-"},
		{155.2, []int{32}, "regression-hunt-60s-32users-"},       // a closed loop: its users, not the rate they achieved
		{120, []int{4, 32, 4}, "regression-hunt-60s-4-32users-"}, // a sweep of users
		{0, nil, "regression-hunt-60s-"},
	} {
		if s := Slug("Regression Hunt!", 60e9, c.rate, c.users, id); s != c.want+id {
			t.Errorf("slug %q, want %q", s, c.want+id)
		}
	}
}
