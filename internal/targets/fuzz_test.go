package targets

import (
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/loadlab/loadlab/internal/badinput"
)

func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"", "plain", "q={{rand.letters 50}}", "{{seq}}", "{{rand.int 1 1000}}", `{{rand.choice a "b c"}}`, "{{uuid}}", "{{", "{{}}", `{{"x`, "{{rand.int 9223372036854775807 9223372036854775807}}", "{{rand.int -9223372036854775808 9223372036854775807}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tp, err := Compile(src)
		if err != nil {
			if _, ok := err.(*TemplateError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		out := tp.Append(nil, NewRand(1), 5)
		if tp.Static() && string(out) != tp.Text() {
			t.Fatalf("static render %q != text %q", out, tp.Text())
		}
		if !strings.Contains(src, "{{") && string(out) != src {
			t.Fatalf("text without actions rendered %q, want %q", out, src)
		}
	})
}

func FuzzTargets(f *testing.F) {
	f.Add("GET http://a/\nX: 1\n\nPOST http://b/?q={{seq}}\n@x\n", false)
	f.Add("# c\nHEAD http://[::1]:80/x\n", false)
	f.Add(`{"method":"GET","url":"http://a/","header":{"A":["b"]},"body":"eA=="}`, true)
	f.Add("GET http://a/{{rand.letters 3\n", false)
	f.Add("GET http://a/{{rand.choice x \"y\\r\\nz\"}}\nX-A: {{\"v\\r\\nInjected: yes\"}}\n", false)
	f.Add(`{"method":"GET","url":"http://a/","header":{"A":["{{rand.choice ok \"b\\r\\nc\"}}"]}}`, true)
	f.Fuzz(func(t *testing.T, in string, json bool) {
		format := HTTP
		if json {
			format = JSON
		}
		ts, err := ReadAll(strings.NewReader(in), Options{Format: format, File: "f", Dir: "testdata"})
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("non-badinput error %T: %v", err, err)
			}
			return
		}
		// What an accepted target renders is safe on the wire whatever the
		// draws: no header value, URL or Host with CR, LF or NUL.
		for _, tg := range ts {
			if !ValidMethod(tg.Method) || tg.URL == nil {
				t.Fatalf("bad target accepted: %+v", tg)
			}
			for seed := uint64(1); seed <= 8; seed++ {
				rng := NewRand(seed)
				if u := tg.URL.Append(nil, rng, seed); !urlPiece(string(u)) {
					t.Fatalf("URL template %q rendered %q", tg.URL.Source(), u)
				}
				for _, h := range tg.Header {
					if v := h.Value.Append(nil, rng, seed); !httpguts.ValidHeaderFieldValue(string(v)) || !httpguts.ValidHeaderFieldName(h.Name) {
						t.Fatalf("header %q template %q rendered %q", h.Name, h.Value.Source(), v)
					}
				}
			}
		}
	})
}
