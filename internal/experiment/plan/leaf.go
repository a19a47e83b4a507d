package plan

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Str is a scalar string that remembers the line it was written on.
type Str struct {
	Value string
	Line  int
	Set   bool
}

// UnmarshalYAML accepts any scalar (numbers included) as a string.
func (s *Str) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &lineError{line: n.Line, msg: "expected a single value, found " + kindName(n)}
	}
	s.Value, s.Line, s.Set = n.Value, n.Line, true
	if n.Tag == "!!null" {
		s.Value = ""
	}
	return nil
}

// Dur is a duration ("500ms", "1m30s", 0) that remembers its line.
type Dur struct {
	Value time.Duration
	Line  int
	Set   bool
}

// UnmarshalYAML parses a Go duration; a bare 0 is allowed.
func (d *Dur) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &lineError{line: n.Line, msg: "expected a duration like 500ms or 2s, found " + kindName(n)}
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return &lineError{line: n.Line, msg: err.Error()}
	}
	d.Value, d.Line, d.Set = v, n.Line, true
	return nil
}

// parseDuration parses a non-negative Go duration, accepting a bare "0".
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, &valueError{msg: "bad duration " + quote(s) + " (want e.g. 500ms, 2s, 1m30s)"}
	}
	if v < 0 {
		return 0, &valueError{msg: "negative duration " + quote(s)}
	}
	return v, nil
}

// Ordered is a YAML mapping whose key order is kept (matrix axes, variants,
// headers), each key with its line.
type Ordered[T any] struct {
	Keys []Str
	Vals []T
	Line int
}

// UnmarshalYAML decodes a mapping, value by value, in document order.
func (o *Ordered[T]) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &lineError{line: n.Line, msg: "expected a mapping (key: value lines), found " + kindName(n)}
	}
	o.Line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		for _, prev := range o.Keys {
			if prev.Value == k.Value {
				return &lineError{line: k.Line, msg: "duplicate key " + quote(k.Value)}
			}
		}
		var val T
		if err := v.Decode(&val); err != nil {
			return err
		}
		o.Keys = append(o.Keys, Str{Value: k.Value, Line: k.Line, Set: true})
		o.Vals = append(o.Vals, val)
	}
	return nil
}

// Len is the number of entries.
func (o *Ordered[T]) Len() int { return len(o.Keys) }

// Strs is a list of scalars; a single scalar counts as a one-element list.
type Strs []Str

// UnmarshalYAML accepts "x" or [x, y].
func (s *Strs) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		*s = Strs{{Value: n.Value, Line: n.Line, Set: true}}
		return nil
	case yaml.SequenceNode:
		out := make(Strs, 0, len(n.Content))
		for _, c := range n.Content {
			var v Str
			if err := v.UnmarshalYAML(c); err != nil {
				return err
			}
			out = append(out, v)
		}
		*s = out
		return nil
	}
	return &lineError{line: n.Line, msg: "expected a value or a list of values, found " + kindName(n)}
}

// Scalar is any scalar value kept as its YAML node (for proxy config
// overrides, whose types belong to the proxy's schema).
type Scalar struct {
	Node *yaml.Node
}

// UnmarshalYAML keeps the node.
func (s *Scalar) UnmarshalYAML(n *yaml.Node) error {
	s.Node = n
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a value " + quote(n.Value)
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s) // escapes newlines too: errors stay on one line
}

// lineError is a problem found while decoding, at a known line.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

// valueError is a problem with a value whose line the caller adds.
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }
