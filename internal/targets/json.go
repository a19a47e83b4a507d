package targets

import (
	"encoding/json"
	"sort"
)

// jsonTarget is vegeta's JSON target: the body is base64 (a JSON []byte).
type jsonTarget struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Body   []byte              `json:"body"`
	Header map[string][]string `json:"header"`
}

// nextJSON parses one JSON object per line (blank lines and # comments
// are skipped).
func (d *Decoder) nextJSON() (*Target, error) {
	line, err := d.nextLine()
	if err != nil {
		return nil, err
	}
	at := d.line
	var jt jsonTarget
	if err := json.Unmarshal([]byte(line), &jt); err != nil {
		return nil, d.errAt(at, "bad JSON target: %v", err)
	}
	if jt.Method == "" {
		return nil, d.errAt(at, "JSON target has no \"method\"")
	}
	if jt.URL == "" {
		return nil, d.errAt(at, "JSON target has no \"url\"")
	}
	t, err := d.newTarget(at, jt.Method, jt.URL)
	if err != nil {
		return nil, err
	}
	t.Header = append(t.Header, d.global...)
	names := make([]string, 0, len(jt.Header))
	for k := range jt.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range jt.Header[k] {
			h, err := compileHeader(k, v)
			if err != nil {
				return nil, d.errAt(at, "%v", err)
			}
			t.Header = append(t.Header, h)
		}
	}
	if jt.Body != nil {
		b, err := Compile(string(jt.Body))
		if err != nil {
			return nil, d.errAt(at, "body: %v", err)
		}
		t.Body = b
	}
	return t, nil
}
