package targets

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestVegetaVector(t *testing.T) {
	f, err := os.Open("testdata/targets-mixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts, err := ReadAll(f, Options{File: "testdata/targets-mixed.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 4 {
		t.Fatalf("got %d targets, want 4", len(ts))
	}
	want := []struct {
		method, url string
		headers     int
		body        string
	}{
		{"GET", "http://127.0.0.1:18181/news?delay=2ms&jitter=8ms&size=2048", 1, ""},
		{"POST", "http://127.0.0.1:18181/search?delay=1ms&jitter=30ms&fail=503:10", 1, `{"q":"igdquidpkeagcilrxpnyfzfisvpujdohckggeukmglpjkqxbvb"}`},
		{"GET", "http://127.0.0.1:18181/slow?delay=700ms", 0, ""},
		{"GET", "http://127.0.0.1:18199/closed-port", 0, ""},
	}
	for i, w := range want {
		g := ts[i]
		if g.Method != w.method || g.Source() != w.url || len(g.Header) != w.headers || int(g.Index) != i {
			t.Errorf("target %d = %s %s (%d headers, index %d), want %s %s (%d headers)", i, g.Method, g.Source(), len(g.Header), g.Index, w.method, w.url, w.headers)
		}
		var body string
		if g.Body != nil {
			body = strings.TrimSpace(g.Body.Text())
		}
		if body != w.body {
			t.Errorf("target %d body = %q, want %q", i, body, w.body)
		}
	}
	if h := ts[0].StaticHeader(); h.Get("X-Request-Source") != "vectors" {
		t.Errorf("static header = %v", h)
	}
}

func TestParseFormats(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("id={{seq}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, format, in string
		want             []string // "METHOD URL|header count|body"
	}{
		{"http comments and blank lines", "http", "# c\n\nGET http://a/x\n// c2\nAccept: */*\n\n\nHEAD http://a/y\n", []string{"GET http://a/x|1|", "HEAD http://a/y|0|"}},
		{"http no blank line between", "http", "GET http://a/1\nX-A: 1\nGET http://a/2\n", []string{"GET http://a/1|1|", "GET http://a/2|0|"}},
		{"http body file", "http", "POST http://a/p\n@b.txt\n", []string{"POST http://a/p|0|id={{seq}}"}},
		{"http template url", "http", "GET http://a/s?q={{rand.letters 5}}\n", []string{"GET http://a/s?q={{rand.letters 5}}|0|"}},
		{"json", "json", `{"method":"GET","url":"http://a/j","header":{"X-B":["1","2"]}}` + "\n\n" + `{"method":"POST","url":"http://a/k","body":"aGVsbG8="}`, []string{"GET http://a/j|2|", "POST http://a/k|0|hello"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts, err := ReadAll(strings.NewReader(c.in), Options{Format: Format(c.format), File: filepath.Join(dir, "targets.txt")})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range ts {
				body := ""
				if tg.Body != nil {
					body = tg.Body.Source()
				}
				got = append(got, tg.Method+" "+tg.Source()+"|"+itoa(len(tg.Header))+"|"+body)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, format, in, want string
	}{
		{"unknown method", "http", "\nFETCH http://a/\n", `t.txt:2: unknown method "FETCH"`},
		{"no url", "http", "GET\n", `t.txt:1: want "METHOD URL"`},
		{"relative url", "http", "GET /x\n", `t.txt:1: bad URL "/x"`},
		{"bad header", "http", "GET http://a/\nnot a header\n", `t.txt:2: want a "Name: value" header`},
		{"missing body file", "http", "POST http://a/\n@nope.json\n", `t.txt:2: body file: nope.json`},
		{"bad template", "http", "GET http://a/?q={{rand.letters}}\n", `t.txt:1: URL: template column 13: rand.letters takes 1 argument(s), got 0`},
		{"unclosed template", "http", "GET http://a/\nX: {{seq\n", `t.txt:2: header X: template column 1: unclosed "{{"`},
		{"bad json", "json", "{\"method\":\"GET\"\n", `t.txt:1: bad JSON target`},
		{"json no url", "json", `{"method":"GET"}`, `t.txt:1: JSON target has no "url"`},
		{"json bad method", "json", `{"method":"get","url":"http://a/"}`, `t.txt:1: unknown method "get"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadAll(strings.NewReader(c.in), Options{Format: Format(c.format), File: "t.txt", Dir: t.TempDir()})
			if err == nil || !badinput.Is(err) || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("err = %v, want bad input starting %q", err, c.want)
			}
		})
	}
}

func TestGlobalHeadersAndBody(t *testing.T) {
	ts, err := ReadAll(strings.NewReader("POST http://a/\nX-T: 1\n"), Options{
		Header: http.Header{"X-G": {"g{{seq}}"}}, Body: []byte("default"),
	})
	if err != nil {
		t.Fatal(err)
	}
	tg := ts[0]
	if len(tg.Header) != 2 || tg.Header[0].Name != "X-G" || tg.Header[1].Name != "X-T" {
		t.Fatalf("headers = %+v", tg.Header)
	}
	if tg.StaticHeader() != nil {
		t.Error("templated header reported static")
	}
	if tg.Body == nil || tg.Body.Text() != "default" {
		t.Errorf("body = %v", tg.Body)
	}
}

func TestRoundRobinAndLazy(t *testing.T) {
	in := "GET http://a/1\n\nGET http://a/2\n\nGET http://a/3\n"
	ts, _ := ReadAll(strings.NewReader(in), Options{})
	rr, err := NewRoundRobin(ts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 5 {
		tg, _ := rr.Next()
		got = append(got, tg.Source())
	}
	if want := "http://a/1 http://a/2 http://a/3 http://a/1 http://a/2"; strings.Join(got, " ") != want {
		t.Errorf("round robin = %v", got)
	}
	d, _ := NewDecoder(strings.NewReader(in), Options{})
	lz := NewLazy(d)
	n := 0
	for {
		_, err := lz.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("lazy gave %d targets, want 3", n)
	}
	if _, err := NewRoundRobin(nil); !badinput.Is(err) {
		t.Errorf("empty round robin: %v", err)
	}
	d, _ = NewDecoder(strings.NewReader("# nothing\n"), Options{})
	if _, err := NewLazy(d).Next(); !badinput.Is(err) {
		t.Errorf("empty lazy: %v", err)
	}
}

func TestTemplateRender(t *testing.T) {
	cases := []struct {
		src string
		re  string
	}{
		{"plain", "^plain$"},
		{"q={{rand.letters 50}}", "^q=[a-z]{50}$"},
		{"{{seq}}-{{seq}}", "^7-7$"},
		{"{{rand.int 1 3}}", "^[123]$"},
		{"{{rand.int -5 -5}}", "^-5$"},
		{`{{rand.choice a "b c" d}}`, "^(a|b c|d)$"},
		{"{{rand.hex 8}}", "^[0-9a-f]{8}$"},
		{"{{rand.digits 4}}", "^[0-9]{4}$"},
		{"{{rand.alnum 12}}", "^[a-zA-Z0-9]{12}$"},
		{"{{uuid}}", "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"},
		{`{{"{{"}}x}}`, `^\{\{x\}\}$`},
		{"{{ seq }}", "^7$"},
	}
	rng := NewRand(42)
	for _, c := range cases {
		tp, err := Compile(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		re := regexp.MustCompile(c.re)
		for range 50 {
			out := string(tp.Append(nil, rng, 7))
			if !re.MatchString(out) {
				t.Fatalf("%s rendered %q, want %s", c.src, out, c.re)
			}
		}
		if tp.Static() != (c.src == "plain" || strings.HasPrefix(c.src, `{{"`)) {
			t.Errorf("%s: Static() = %v", c.src, tp.Static())
		}
	}
}

func TestTemplateDistribution(t *testing.T) {
	tp := MustCompile("{{rand.int 1 4}}")
	rng := NewRand(1)
	counts := map[string]int{}
	for range 4000 {
		counts[string(tp.Append(nil, rng, 0))]++
	}
	for _, k := range []string{"1", "2", "3", "4"} {
		if counts[k] < 850 || counts[k] > 1150 {
			t.Errorf("rand.int 1 4 gave %s %d times of 4000", k, counts[k])
		}
	}
	letters := MustCompile("{{rand.letters 50}}")
	seen := map[string]bool{}
	for range 1000 {
		seen[string(letters.Append(nil, rng, 0))] = true
	}
	if len(seen) != 1000 {
		t.Errorf("1000 random 50-letter strings had %d distinct", len(seen))
	}
}

func TestTemplateErrors(t *testing.T) {
	cases := map[string]string{
		"{{":                        `column 1: unclosed`,
		"ab{{}}":                    `column 3: empty action`,
		"{{rand.nope 1}}":           `unknown function "rand.nope"`,
		"{{rand.int 5 1}}":          `lower bound 5 is above upper bound 1`,
		"{{rand.int a 1}}":          `must be integers`,
		"{{rand.letters -1}}":       `not a whole number`,
		"{{rand.letters 99999999}}": `not a whole number`,
		"{{rand.choice}}":           `at least one word`,
		"{{seq 1}}":                 `seq takes 0 argument(s)`,
		`{{"abc}}`:                  `bad quoted text`,
	}
	for src, want := range cases {
		_, err := Compile(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%q) = %v, want error containing %q", src, err, want)
		}
	}
}

func TestRenderAllocs(t *testing.T) {
	tp := MustCompile("http://127.0.0.1:8080/search?q={{rand.letters 50}}&n={{seq}}&p={{rand.int 1 1000}}")
	rng := NewRand(3)
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() { buf = tp.Append(buf[:0], rng, 12345) })
	if allocs != 0 {
		t.Errorf("rendering allocates %.1f times per call, want 0", allocs)
	}
}

func BenchmarkRender(b *testing.B) {
	tp := MustCompile("http://127.0.0.1:8080/search?q={{rand.letters 50}}")
	rng := NewRand(3)
	buf := make([]byte, 0, 256)
	for i := 0; b.Loop(); i++ {
		buf = tp.Append(buf[:0], rng, uint64(i))
	}
}
