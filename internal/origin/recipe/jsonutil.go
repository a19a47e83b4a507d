package recipe

import (
	"encoding/json"
	"strconv"
)

// kind classifies a JSON value by its first byte: '{', '[', '"', 'n' (null),
// 'b' (boolean), '0' (number) or 0 (empty).
func kind(v json.RawMessage) byte {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[', '"', 'n':
			return c
		case 't', 'f':
			return 'b'
		}
		return '0'
	}
	return 0
}

// present returns m[k] unless it is missing or null.
func present(m map[string]json.RawMessage, k string) (json.RawMessage, bool) {
	v, ok := m[k]
	if !ok || kind(v) == 'n' {
		return nil, false
	}
	return v, true
}

func str(v json.RawMessage, field string) (string, error) {
	var s string
	if kind(v) != '"' || json.Unmarshal(v, &s) != nil {
		return "", bad(field, v, "want a string")
	}
	return s, nil
}

func object(v json.RawMessage, field, msg string) (map[string]json.RawMessage, error) {
	if msg == "" {
		msg = "want an object"
	}
	var m map[string]json.RawMessage
	if kind(v) != '{' || json.Unmarshal(v, &m) != nil {
		return nil, bad(field, v, "%s", msg)
	}
	return m, nil
}

func itoa(i int) string { return strconv.Itoa(i) }

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
