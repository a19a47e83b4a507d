package flow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Path is a compiled JSON path of the subset flows use: $ then any of
// .name, ['name'], [N] (N from 0) and [*] (every element: the path then
// gives a list).
type Path struct {
	src  string
	segs []pathSeg
	list bool // holds [*]
}

type pathSeg struct {
	key   string
	index int  // with !isKey; -1: [*]
	isKey bool // .name or ['name']
}

// maxPathLen bounds a path's text.
const maxPathLen = 1024

// ParsePath compiles a JSON path; the error says what is wrong and where
// (1-based column).
func ParsePath(src string) (*Path, error) {
	if len(src) > maxPathLen {
		return nil, fmt.Errorf("JSON path longer than %d bytes", maxPathLen)
	}
	if !strings.HasPrefix(src, "$") {
		return nil, fmt.Errorf("JSON path %s: must start with $ (e.g. $.token, $.items[0].id, $.items[*].id)", strconv.Quote(src))
	}
	p := &Path{src: src}
	i := 1
	bad := func(msg string) error {
		return fmt.Errorf("JSON path %s, column %d: %s", strconv.Quote(src), i+1, msg)
	}
	for i < len(src) {
		switch src[i] {
		case '.':
			j := i + 1
			for j < len(src) && src[j] != '.' && src[j] != '[' {
				j++
			}
			name := src[i+1 : j]
			if name == "" {
				return nil, bad("a name must follow '.'")
			}
			if strings.ContainsAny(name, "]'\" *") {
				return nil, bad("bad name " + strconv.Quote(name) + " (use ['name'] for names with other characters)")
			}
			p.segs = append(p.segs, pathSeg{key: name, isKey: true})
			i = j
		case '[':
			end := strings.IndexByte(src[i:], ']')
			if q := src[i+1:]; len(q) > 0 && (q[0] == '\'' || q[0] == '"') {
				close := strings.IndexByte(q[1:], q[0])
				if close < 0 || close+2 >= len(q) || q[close+2] != ']' {
					return nil, bad("unclosed quoted name (want ['name'])")
				}
				p.segs = append(p.segs, pathSeg{key: q[1 : close+1], isKey: true})
				i += close + 4
				continue
			}
			if end < 0 {
				return nil, bad("unclosed '[' (want [0], [*] or ['name'])")
			}
			in := src[i+1 : i+end]
			if in == "*" {
				p.segs = append(p.segs, pathSeg{index: -1})
				p.list = true
			} else {
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 || n > 1<<30 {
					return nil, bad("want [N] with N a whole number from 0, [*] or ['name'], got [" + in + "]")
				}
				p.segs = append(p.segs, pathSeg{index: n})
			}
			i += end + 1
		default:
			return nil, bad("want '.' or '[' after " + strconv.Quote(src[:i]))
		}
	}
	return p, nil
}

// String is the path as written.
func (p *Path) String() string { return p.src }

// List reports whether the path holds [*] and so gives a list.
func (p *Path) List() bool { return p.list }

// Eval finds the values at the path in doc (decoded with UseNumber); found
// is false when the path leads nowhere (an element missing, a list where a
// key was wanted...). A [*] gives every element's value, in order.
func (p *Path) Eval(doc any) (vals []any, found bool) {
	cur := []any{doc}
	for _, s := range p.segs {
		var next []any
		for _, v := range cur {
			switch {
			case s.isKey:
				if m, ok := v.(map[string]any); ok {
					if x, ok := m[s.key]; ok {
						next = append(next, x)
					}
				}
			case s.index < 0:
				if a, ok := v.([]any); ok {
					next = append(next, a...)
				}
			default:
				if a, ok := v.([]any); ok && s.index < len(a) {
					next = append(next, a[s.index])
				}
			}
		}
		cur = next
		if len(cur) == 0 && !p.list {
			return nil, false
		}
	}
	if !p.list && len(cur) == 0 {
		return nil, false
	}
	return cur, true
}

// decodeJSON decodes a body for Eval; ok is false when it is not JSON.
func decodeJSON(body []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// text is a JSON value as a captured variable holds it: a string as is,
// a number as written, true/false/null, an object or array as compact JSON.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// equal reports whether a JSON value equals want, a value from the flow
// file (YAML scalar: string, int, float, bool, nil): numbers by value.
func equal(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case string:
		g, ok := got.(string)
		return ok && g == w
	case int:
		return numEq(got, float64(w))
	case int64:
		return numEq(got, float64(w))
	case uint64:
		return numEq(got, float64(w))
	case float64:
		return numEq(got, w)
	}
	return text(got) == text(want)
}

func numEq(got any, w float64) bool {
	n, ok := got.(json.Number)
	if !ok {
		return false
	}
	f, err := n.Float64()
	return err == nil && f == w
}
