package plan

import (
	"reflect"
	"time"

	"github.com/loadlab/loadlab/internal/yamlfile"
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
		return yamlfile.ErrorAt(n, "expected a single value, found %s", yamlfile.KindName(n))
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

// UnmarshalYAML parses the duration as yamlfile.Duration does.
func (d *Dur) UnmarshalYAML(n *yaml.Node) error {
	var v yamlfile.Duration
	if err := v.UnmarshalYAML(n); err != nil {
		return err
	}
	d.Value, d.Line, d.Set = v.D(), n.Line, true
	return nil
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
		return yamlfile.ErrorAt(n, "expected a mapping (key: value lines), found %s", yamlfile.KindName(n))
	}
	o.Line = n.Line
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		for _, prev := range o.Keys {
			if prev.Value == k.Value {
				return yamlfile.ErrorAt(k, "duplicate key %s", yamlfile.Quote(k.Value))
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

// YAMLShape lets the unknown-field check see the values as T.
func (o *Ordered[T]) YAMLShape(*yaml.Node) reflect.Type {
	return reflect.MapOf(reflect.TypeFor[string](), reflect.TypeFor[T]())
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
	return yamlfile.ErrorAt(n, "expected a value or a list of values, found %s", yamlfile.KindName(n))
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
