package har

import "strings"

// text is a request's URL, header value or body on its way to a template:
// literal pieces and, where a captured value was recognised, the
// variable's name.
type text []piece

type piece struct {
	lit  string // literal text, when name is ""
	name string
}

type request struct {
	url     text
	headers []headerText
	body    text
}

type headerText struct {
	name  string
	value text
}

func newRequest(e *Entry) *request {
	r := &request{url: text{{lit: e.RawURL}}, body: text{{lit: e.Body}}}
	if e.Body == "" {
		r.body = nil
	}
	at := map[string]int{} // header name in lower case -> index in r.headers
	for _, h := range e.Headers {
		if !keepHeader(h.Name) || !token(h.Name) || strings.ContainsAny(h.Value, "\r\n\x00") {
			continue
		}
		// A header recorded twice (any case) is one line, its values
		// joined as HTTP joins them.
		if i, ok := at[strings.ToLower(h.Name)]; ok {
			r.headers[i].value[0].lit += ", " + h.Value
			continue
		}
		at[strings.ToLower(h.Name)] = len(r.headers)
		r.headers = append(r.headers, headerText{name: h.Name, value: text{{lit: h.Value}}})
	}
	return r
}

// contains reports whether a literal piece of t holds v.
func (t text) contains(v string) bool {
	for _, p := range t {
		if p.name == "" && strings.Contains(p.lit, v) {
			return true
		}
	}
	return false
}

// replace puts name where the literal pieces hold v.
func (t text) replace(v, name string) text {
	var out text
	for _, p := range t {
		if p.name != "" || !strings.Contains(p.lit, v) {
			out = append(out, p)
			continue
		}
		parts := strings.Split(p.lit, v)
		for i, s := range parts {
			if i > 0 {
				out = append(out, piece{name: name})
			}
			if s != "" {
				out = append(out, piece{lit: s})
			}
		}
	}
	return out
}

// render writes t in the template language: variables as {{name}}, a
// literal "{{" as {{"{{"}}.
func (t text) render() string {
	var b strings.Builder
	for i, p := range t {
		if p.name != "" {
			b.WriteString("{{" + p.name + "}}")
			continue
		}
		lit := strings.ReplaceAll(p.lit, "{{", `{{"{{"}}`)
		if i+1 < len(t) && strings.HasSuffix(lit, "{") {
			// A "{" just before a variable would open an action with it.
			lit = lit[:len(lit)-1] + `{{"{"}}`
		}
		b.WriteString(lit)
	}
	return b.String()
}

// all returns the request's texts.
func (r *request) all() []*text {
	out := []*text{&r.url, &r.body}
	for i := range r.headers {
		out = append(out, &r.headers[i].value)
	}
	return out
}
