package har

import "strings"

// text is a request's URL, header value or body on its way to a template:
// literal pieces and, where a captured value was recognised, the
// variable's name.
type text []piece

type piece struct {
	lit  string // literal text, when name is ""
	name string
	// fixed literal text is never replaced (a URL's scheme and host);
	// noLead text is not replaced where it starts (a URL's path: a variable
	// right after the host would make it part of the host).
	fixed, noLead bool
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
	r := &request{url: urlText(e.RawURL), body: text{{lit: e.Body}}}
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

// urlText is a recorded URL whose scheme and host are fixed.
func urlText(raw string) text {
	i := strings.Index(raw, "://")
	if i < 0 {
		return text{{lit: raw, noLead: true}}
	}
	j := strings.IndexAny(raw[i+3:], "/?#")
	if j < 0 {
		return text{{lit: raw, fixed: true}}
	}
	return text{{lit: raw[:i+3+j], fixed: true}, {lit: raw[i+3+j:], noLead: true}}
}

// at is where a literal piece may take v from, or -1.
func (p piece) at(v string) int {
	if p.name != "" || p.fixed {
		return -1
	}
	from := 0
	if p.noLead {
		from = 1
	}
	if from > len(p.lit) {
		return -1
	}
	if i := strings.Index(p.lit[from:], v); i >= 0 {
		return from + i
	}
	return -1
}

// contains reports whether a literal piece of t holds v where it may be
// replaced.
func (t text) contains(v string) bool {
	for _, p := range t {
		if p.at(v) >= 0 {
			return true
		}
	}
	return false
}

// replace puts name where the literal pieces hold v.
func (t text) replace(v, name string) text {
	var out text
	for _, p := range t {
		for {
			i := p.at(v)
			if i < 0 {
				break
			}
			if i > 0 {
				out = append(out, piece{lit: p.lit[:i], fixed: p.fixed, noLead: p.noLead})
			}
			out = append(out, piece{name: name})
			p = piece{lit: p.lit[i+len(v):]}
		}
		if p.lit != "" || p.name != "" {
			out = append(out, p)
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
