package plan

import (
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	leafTypes = map[reflect.Type]bool{
		reflect.TypeFor[Str]():    true,
		reflect.TypeFor[Dur]():    true,
		reflect.TypeFor[Strs]():   true,
		reflect.TypeFor[Scalar](): true,
	}
)

// checkKnown walks the document against the raw type t and reports the first
// key that the schema does not know, with its line and the keys it knows:
// the same job as yaml's KnownFields, but with a precise line and a hint.
func checkKnown(n *yaml.Node, t reflect.Type, path string) error {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			if err := checkKnown(c, t, path); err != nil {
				return err
			}
		}
		return nil
	}
	if n.Kind == yaml.AliasNode {
		return &lineError{line: n.Line, msg: "YAML aliases are not supported in plans"}
	}
	if leafTypes[t] {
		return nil
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[orderedElem]()) {
		if n.Kind != yaml.MappingNode {
			return nil // reported by the decoder with its line
		}
		et := reflect.New(t).Interface().(orderedElem).elemType()
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKnown(n.Content[i+1], et, join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return &lineError{line: n.Line, msg: path + ": expected a list, found " + kindName(n)}
		}
		for _, c := range n.Content {
			if err := checkKnown(c, t.Elem(), path+"[]"); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			where := path
			if where == "" {
				where = "plan"
			}
			return &lineError{line: n.Line, msg: where + ": expected a mapping (key: value lines), found " + kindName(n)}
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if tag := strings.Split(f.Tag.Get("yaml"), ",")[0]; tag != "" {
				fields[tag] = f.Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			ft, ok := fields[k.Value]
			if !ok {
				names := make([]string, 0, len(fields))
				for name := range fields {
					names = append(names, name)
				}
				sort.Strings(names)
				return &lineError{line: k.Line, msg: "unknown field " + quote(join(path, k.Value)) + " (known here: " + strings.Join(names, ", ") + ")"}
			}
			if err := checkKnown(n.Content[i+1], ft, join(path, k.Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
