package yamlfile

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Shaped is implemented by types that decode themselves (UnmarshalYAML)
// but whose content the unknown-field check should still see: YAMLShape
// returns the type node n is read as, or nil to treat n as one value.
type Shaped interface {
	YAMLShape(n *yaml.Node) reflect.Type
}

var (
	shapedType      = reflect.TypeFor[Shaped]()
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
)

// checkFields walks the document against type t and reports the first key
// t does not know, with its path, its line and the keys t knows: the job
// of the decoder's KnownFields, with the field's place and a hint. A value
// of the wrong kind (a list where a mapping belongs) is reported too.
func checkFields(n *yaml.Node, t reflect.Type, path Path, aliases bool) error {
	if n.Kind == yaml.AliasNode {
		if !aliases {
			return &badinput.Error{Line: n.Line, Field: path.String(), Msg: "YAML aliases (*name) are not supported here"}
		}
		return checkFields(n.Alias, t, path, aliases)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(shapedType) {
		s := reflect.New(t).Interface().(Shaped).YAMLShape(n)
		if s == nil {
			return nil
		}
		t = s
	} else if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // one value, decoded (and checked) by its own method
	}
	if isNull(n) {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return wrongKind(n, path, "a list")
		}
		for i, c := range n.Content {
			if err := checkFields(c, t.Elem(), path.Add(i), aliases); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return wrongKind(n, path, "a mapping (key: value lines)")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkFields(n.Content[i+1], t.Elem(), path.Add(n.Content[i].Value), aliases); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return wrongKind(n, path, "a mapping (key: value lines)")
		}
		fields, names := structFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fields[k.Value]
			if !ok {
				return &badinput.Error{Line: k.Line, Field: path.Add(k.Value).String(),
					Msg: "unknown field (known: " + strings.Join(names, ", ") + ")"}
			}
			if err := checkFields(n.Content[i+1], ft, path.Add(k.Value), aliases); err != nil {
				return err
			}
		}
	}
	return nil
}

// structFields maps t's YAML keys to their types, and lists the keys in
// the order they are declared.
func structFields(t reflect.Type) (map[string]reflect.Type, []string) {
	fields := map[string]reflect.Type{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch tag {
		case "-":
			continue
		case "":
			tag = strings.ToLower(f.Name)
		}
		fields[tag] = f.Type
		names = append(names, tag)
	}
	return fields, names
}

func wrongKind(n *yaml.Node, path Path, want string) error {
	where := path.String()
	if where == "" {
		where = "top level"
	}
	return &badinput.Error{Line: n.Line, Msg: where + ": expected " + want + ", found " + KindName(n)}
}
