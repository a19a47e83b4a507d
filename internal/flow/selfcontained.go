package flow

import (
	"bytes"
	"os"
	"path/filepath"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/yamlfile"
)

// SelfContained loads the flow file (with every check Load makes) and
// returns it as one YAML document that needs no other file: its data rows
// inline under data:, every body_file: replaced by the file's text as
// body:, and its name written out (a flow's default name is its file's).
// It is what a fleet ships to its generators.
func SelfContained(file string) ([]byte, error) {
	f, err := Load(file)
	if err != nil {
		return nil, err
	}
	raw, err := yamlfile.ReadFile(file, "flow", maxFlowBytes)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, (&yamlfile.Doc{File: file}).Error(err)
	}
	root := doc.Content[0]
	l := &loader{file: file, dir: filepath.Dir(file)}
	if value(root, "name") == nil {
		root.Content = append([]*yaml.Node{str("name"), str(f.Name)}, root.Content...)
	}
	if dn := value(root, "data"); dn != nil && dn.Kind == yaml.ScalarNode {
		*dn = *inlineRows(f.Data)
	}
	if err := l.inlineBodies(value(root, "steps")); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, badinput.At(file, 0, "cannot write the flow as one document: %v", err)
	}
	if err := enc.Close(); err != nil {
		return nil, badinput.At(file, 0, "cannot write the flow as one document: %v", err)
	}
	if out.Len() > maxFlowBytes {
		return nil, badinput.At(file, 0, "with its data and bodies inline the flow is %d kB, above the %d kB a flow may be", out.Len()>>10, maxFlowBytes>>10)
	}
	return out.Bytes(), nil
}

// inlineBodies replaces every request's body_file: in the steps with the
// file's text as body:, into groups and loops.
func (l *loader) inlineBodies(steps *yaml.Node) error {
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return nil
	}
	for _, s := range steps.Content {
		if err := l.inlineBodies(value(s, "steps")); err != nil {
			return err
		}
		req := value(s, KindRequest)
		if req == nil || req.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(req.Content); i += 2 {
			k, v := req.Content[i], req.Content[i+1]
			if k.Value != "body_file" {
				continue
			}
			raw, err := os.ReadFile(l.rel(v.Value))
			if err != nil {
				return l.errAt(v, "body_file", "cannot read %s: %v", v.Value, pathless(err))
			}
			if !utf8.Valid(raw) {
				return l.errAt(v, "body_file", "%s is not UTF-8 text: a self-contained flow holds its bodies as text", v.Value)
			}
			k.Value = "body"
			*v = *str(string(raw))
			if bytes.ContainsRune(raw, '\n') {
				v.Style = yaml.LiteralStyle
			}
		}
	}
	return nil
}

// inlineRows is d as a YAML list of rows, each a mapping column: value.
func inlineRows(d *Data) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, row := range d.Rows {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
		for j, c := range d.Columns {
			m.Content = append(m.Content, str(c), str(row[j]))
		}
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// value is the value of key in the mapping n, nil when n has none.
func value(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// str is a YAML string scalar holding s as it is.
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}
