package targets

import (
	"fmt"
	"net/url"
	"strings"
)

// CheckDuetBase checks the base URL side B of a duet is sent to
// (scheme://host:port, http or https, no path) and returns it without a
// trailing slash.
func CheckDuetBase(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("want a base URL such as http://127.0.0.1:8081, got %q", s)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("want only scheme://host:port (the targets' paths are kept), got %q", s)
	}
	return u.Scheme + "://" + u.Host, nil
}

// Duet returns the target list of a duet: every target as written (index
// 2i, side A) followed by the same target with its scheme://host:port
// replaced by base (index 2i+1, side B), so a round robin alternates
// between the two sides. Results tell the sides by their URL
// (results.DuetSide), so a target already sent to base is refused. base
// is checked by CheckDuetBase.
func Duet(ts []*Target, base string) ([]*Target, error) {
	out := make([]*Target, 0, 2*len(ts))
	for i, t := range ts {
		src := t.URL.Source()
		rest, ok := pathOf(src)
		if !ok {
			return nil, fmt.Errorf("target %d (%s): a duet needs an absolute http(s) URL whose host is not templated, got %q", i+1, t.where(), src)
		}
		if src[:len(src)-len(rest)] == base {
			return nil, fmt.Errorf("target %d (%s) is already sent to %s, side B's base URL, so results could not tell the sides apart; to measure one server against itself, write it another way (http://[::ffff:127.0.0.1]:PORT for http://127.0.0.1:PORT: the same address, no name to resolve)", i+1, t.where(), base)
		}
		var header [][2]string
		for _, h := range t.Header {
			header = append(header, [2]string{h.Name, h.Value.Source()})
		}
		var body *string
		if t.Body != nil {
			b := t.Body.Source()
			body = &b
		}
		a, err := Rebuild(uint32(2*i), t.Method, src, header, body)
		if err != nil {
			return nil, err
		}
		b, err := Rebuild(uint32(2*i+1), t.Method, base+rest, header, body)
		if err != nil {
			return nil, err
		}
		a.File, a.Line, b.File, b.Line = t.File, t.Line, t.File, t.Line
		out = append(out, a, b)
	}
	return out, nil
}

// pathOf is what follows scheme://host:port in a URL as written: its
// path, query and fragment.
func pathOf(src string) (string, bool) {
	scheme, rest, ok := strings.Cut(src, "://")
	if !ok || (scheme != "http" && scheme != "https") {
		return "", false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if strings.Contains(rest[:end], "{{") || end == 0 {
		return "", false
	}
	return rest[end:], true
}

// where names a target's place for a message: file:line, or its line.
func (t *Target) where() string {
	if t.File != "" {
		return fmt.Sprintf("%s:%d", t.File, t.Line)
	}
	return fmt.Sprintf("line %d", t.Line)
}
