package har

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// MinValueLen is the shortest returned value taken for a capture: shorter
// ones ("ok", "1", "en") turn up in later requests by chance.
const MinValueLen = 8

// maxCandidates bounds the values taken from one answer.
const maxCandidates = 2000

// candidate is a value an answer returned, where it was, and a name for
// the variable.
type candidate struct {
	value string
	cap   Capture // Var empty until the value is seen sent back
	hint  string
	src   int // index of the kept entry whose answer returned it
}

// correlate finds values the answers returned that later requests sent
// back, puts variables in their place in reqs and returns, per kept
// entry, the captures its answer gives. A value counts only when no
// request up to the answer that returned it had sent it already (the
// client knew it: a user name echoed back is not the server's). Values
// set by Set-Cookie are the cookie jar's, not captures.
func correlate(kept []*Entry, reqs []*request) [][]Capture {
	caps := make([][]Capture, len(kept))
	var pool []*candidate
	seen := map[string]bool{}  // values in the pool
	names := map[string]bool{} // variable names given
	for j := range kept {
		// Values returned before this request, longest first, so a value
		// inside a longer one does not split it.
		sort.SliceStable(pool, func(a, b int) bool { return len(pool[a].value) > len(pool[b].value) })
		for _, c := range pool {
			for _, t := range reqs[j].all() {
				if t.contains(c.value) {
					if c.cap.Var == "" {
						c.cap.Var = uniqueName(c.hint, names)
						caps[c.src] = append(caps[c.src], c.cap)
					}
					*t = t.replace(c.value, c.cap.Var)
				}
			}
		}
		// Then this answer's values join the pool, unless a request so
		// far had sent them.
		for _, c := range answerValues(kept[j]) {
			if seen[c.value] || sentBefore(kept[:j+1], c.value) {
				continue
			}
			seen[c.value] = true
			c.src = j
			pool = append(pool, c)
		}
	}
	for i := range caps {
		sort.SliceStable(caps[i], func(a, b int) bool { return caps[i][a].Var < caps[i][b].Var })
	}
	return caps
}

// sentBefore reports whether a request of es sent v (URL, header or body).
func sentBefore(es []*Entry, v string) bool {
	for _, e := range es {
		if strings.Contains(e.RawURL, v) || strings.Contains(e.Body, v) {
			return true
		}
		for _, h := range e.Headers {
			if strings.Contains(h.Value, v) {
				return true
			}
		}
	}
	return false
}

// responseHeadersSkipped are answer headers never taken as captures: the
// cookie jar's, and ones describing the answer rather than handing out a
// value.
var responseHeadersSkipped = map[string]bool{
	"set-cookie": true, "date": true, "content-type": true, "content-length": true,
	"content-encoding": true, "cache-control": true, "expires": true, "last-modified": true,
	"etag": true, "vary": true, "server": true, "connection": true, "keep-alive": true,
	"transfer-encoding": true, "age": true, "via": true, "alt-svc": true,
	"strict-transport-security": true, "content-security-policy": true,
	"access-control-allow-origin": true, "access-control-allow-headers": true,
	"access-control-allow-methods": true, "access-control-expose-headers": true,
	"www-authenticate": true, "report-to": true, "nel": true,
}

// answerValues lists the values e's answer returned that a capture can
// take: the string leaves of a JSON body (by JSON path) and the values of
// its other headers.
func answerValues(e *Entry) []*candidate {
	var out []*candidate
	if len(e.RespBody) > 0 && looksJSON(e) {
		var v any
		d := json.NewDecoder(strings.NewReader(string(e.RespBody)))
		d.UseNumber()
		if d.Decode(&v) == nil {
			walkJSON(v, "$", "", &out)
		}
	}
	for _, h := range e.RespHdr {
		n := strings.ToLower(h.Name)
		if strings.HasPrefix(n, ":") || responseHeadersSkipped[n] || !usable(h.Value) {
			continue
		}
		out = append(out, &candidate{value: h.Value, cap: Capture{Header: h.Name}, hint: strings.ToLower(h.Name)})
	}
	return out
}

func looksJSON(e *Entry) bool {
	if strings.Contains(e.MIME, "json") {
		return true
	}
	b := strings.TrimSpace(string(e.RespBody[:min(len(e.RespBody), 64)]))
	return strings.HasPrefix(b, "{") || strings.HasPrefix(b, "[")
}

// simpleKey is a key a JSON path can name as .key.
var simpleKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func walkJSON(v any, path, key string, out *[]*candidate) {
	if len(*out) >= maxCandidates {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if simpleKey.MatchString(k) {
				walkJSON(x[k], path+"."+k, k, out)
			}
		}
	case []any:
		for i, it := range x {
			walkJSON(it, path+"["+strconv.Itoa(i)+"]", key, out)
		}
	case string:
		if usable(x) {
			*out = append(*out, &candidate{value: x, cap: Capture{JSON: path}, hint: key})
		}
	}
}

// usable reports whether a returned value can be told apart in later
// requests and put in a template: long enough, one line, no "{{".
func usable(v string) bool {
	if len(v) < MinValueLen || len(v) > 4096 || strings.Contains(v, "{{") || strings.Contains(v, "}}") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return false
		}
	}
	return true
}

// reserved are names the template language already uses.
var reserved = map[string]bool{"seq": true, "rand": true, "uuid": true, "loop": true}

// uniqueName makes a variable name from hint: letters, digits and "_",
// not starting with a digit, not a template action, not given before.
func uniqueName(hint string, names map[string]bool) string {
	var b strings.Builder
	for _, r := range hint {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	base := strings.Trim(b.String(), "_")
	if base == "" {
		base = "value"
	}
	if base[0] >= '0' && base[0] <= '9' || reserved[base] {
		base = "v_" + base
	}
	name := base
	for i := 2; names[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	names[name] = true
	return name
}
