package writeup

import (
	"regexp"
	"strings"
	"testing"
)

var ourTags = regexp.MustCompile(`</?(code|strong|em)>|<a href="[^"<>]*">|</a>`)

// FuzzInline: whatever a finding or a step name holds, the inline
// renderer makes only its own tags, escapes everything else and links
// only to files and http(s) pages.
func FuzzInline(f *testing.F) {
	for _, s := range []string{"`a` **b** *c* [d](steps/01/x.lll)", "<script>alert(1)</script>", "[x](javascript:alert(1))",
		"**`<b>`**", "[a](b\" onclick=\"x)", "odd ` backquote", "*a **b* c**", "[**x**](https://example.com/?a=<b>)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := string(inline(s))
		rest := ourTags.ReplaceAllString(out, "")
		if strings.ContainsAny(rest, "<>") {
			t.Fatalf("inline(%q) = %q: markup not ours", s, out)
		}
		for _, m := range regexp.MustCompile(`<a href="([^"]*)">`).FindAllStringSubmatch(out, -1) {
			if strings.Contains(m[1], ":") && !strings.HasPrefix(m[1], "http://") && !strings.HasPrefix(m[1], "https://") {
				t.Fatalf("inline(%q) links to %q", s, m[1])
			}
		}
	})
}

func TestInline(t *testing.T) {
	for in, want := range map[string]string{
		"**Capacity** (x): `a < b`":   "<strong>Capacity</strong> (x): <code>a &lt; b</code>",
		"*How much?*":                 "<em>How much?</em>",
		"[api.lll](steps/01/api.lll)": `<a href="steps/01/api.lll">api.lll</a>`,
		"[x](javascript:alert(1))":    "[x](javascript:alert(1))",
		"an odd ` stays":              "an odd ` stays",
		"2 * 3 * 4 is not emphasis":   "2 * 3 * 4 is not emphasis",
	} {
		if got := string(inline(in)); got != want {
			t.Errorf("inline(%q) = %q, want %q", in, got, want)
		}
	}
}
