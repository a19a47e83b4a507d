// Package yamlfile reads the YAML files users write (experiment plans, proxy
// configs) and words every problem as one line naming the file, the line
// and the field's path, e.g.
//
//	belfrage.yaml:7: pools.search.sise: unknown field (known: size, overflow, ...)
//
// Parse checks every key against the Go type the document decodes into,
// Decode turns the decoder's messages into that form, and Doc.Errorf lets
// a validator report a problem at a field found by its path.
package yamlfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Doc is a parsed YAML document and the file it came from.
type Doc struct {
	File string
	Root *yaml.Node // the document's top node; nil when the file is empty
}

// Options tune Parse.
type Options struct {
	// Aliases allows YAML aliases (*name); without it they are an error.
	Aliases bool
}

// Parse parses data, the contents of file, and checks its keys against
// schema, the type it will be decoded into (see CheckFields). An empty
// document is not an error: Root is nil.
func Parse(file string, data []byte, schema reflect.Type, o Options) (*Doc, error) {
	d := &Doc{File: file}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, d.Error(err)
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		d.Root = n.Content[0]
	}
	if d.Root == nil || (d.Root.Kind == yaml.ScalarNode && d.Root.Tag == "!!null") {
		d.Root = nil
		return d, nil
	}
	if err := checkFields(d.Root, schema, nil, o.Aliases); err != nil {
		return nil, d.Error(err)
	}
	return d, nil
}

// Decode decodes the document into v (a pointer to the schema type).
func (d *Doc) Decode(v any) error {
	if d.Root == nil {
		return nil
	}
	if err := d.Root.Decode(v); err != nil {
		return d.Error(err)
	}
	return nil
}

// Errorf reports a problem with the field at path, on the line of the
// deepest part of path the document has.
func (d *Doc) Errorf(path Path, format string, args ...any) *badinput.Error {
	return &badinput.Error{File: d.File, Line: d.Line(path), Field: path.String(), Msg: fmt.Sprintf(format, args...)}
}

// Has reports whether the document has a value at path.
func (d *Doc) Has(path Path) bool {
	n, _ := walk(d.Root, path)
	return n != nil
}

// Line is the line of the deepest part of path the document has.
func (d *Doc) Line(path Path) int {
	_, line := walk(d.Root, path)
	return line
}

// NodeError is a bad value met while decoding (in an UnmarshalYAML
// method), at a node whose field the decoder does not tell: Doc.Error
// finds the field from the node's position.
type NodeError struct {
	Line, Col int
	Msg       string
}

func (e *NodeError) Error() string { return e.Msg }

// ErrorAt builds a NodeError at n.
func ErrorAt(n *yaml.Node, format string, args ...any) error {
	return &NodeError{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

var (
	yamlLine   = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	typeErrRE  = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (.+)$")
	typeErrRE2 = regexp.MustCompile(`^cannot unmarshal !!(\w+) into (.+)$`)
)

// Error turns any error met reading the document into a one-line
// *badinput.Error naming the file, the line and, when it can be found, the
// field.
func (d *Doc) Error(err error) error {
	var ne *NodeError
	if errors.As(err, &ne) {
		e := &badinput.Error{File: d.File, Line: ne.Line, Msg: ne.Msg}
		if p, ok := find(d.Root, ne.Line, ne.Col, ""); ok {
			e.Field = p.String()
		}
		return e
	}
	var bi *badinput.Error
	if errors.As(err, &bi) {
		return badinput.Wrap(d.File, bi)
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg, _, _ = strings.Cut(msg, "\n")
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return &badinput.Error{File: d.File, Msg: strings.TrimPrefix(msg, "yaml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	e := &badinput.Error{File: d.File, Line: line, Msg: m[2]}
	if t := typeErrRE.FindStringSubmatch(m[2]); t != nil {
		e.Msg = fmt.Sprintf("want %s, got %s %s", goKind(t[3]), yamlKind(t[1]), quote(t[2]))
		if p, ok := find(d.Root, line, 0, t[2]); ok {
			e.Field = p.String()
		}
	} else if t := typeErrRE2.FindStringSubmatch(m[2]); t != nil {
		e.Msg = fmt.Sprintf("want %s, got %s", goKind(t[2]), yamlKind(t[1]))
	}
	return e
}

// goKind words a Go type from a decoder message for users.
func goKind(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "text"
	}
	return "a mapping" // a struct
}

// yamlKind words a YAML tag for users.
func yamlKind(tag string) string {
	switch tag {
	case "str":
		return "text"
	case "int", "float":
		return "the number"
	case "bool":
		return "the boolean"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "nothing"
	}
	return "a value"
}

// KindName words what a node is, for messages: "a mapping", "a list" or
// `a value "x"`.
func KindName(n *yaml.Node) string {
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

// quote quotes s for a one-line message, cut to 60 bytes.
func quote(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s) // escapes newlines too: errors stay on one line
}

// Quote quotes a user's value for a one-line message (newlines escaped,
// long values cut).
func Quote(s string) string { return quote(s) }

// isNull reports whether n is an empty value ("~", "null" or nothing).
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// ReadFile reads a user's file of at most maxSize bytes; what names the
// file's kind in the error ("cannot read plan").
func ReadFile(file, what string, maxSize int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, &badinput.Error{File: file, Msg: "cannot read " + what, Err: pathless(err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, &badinput.Error{File: file, Msg: "cannot read " + what, Err: pathless(err)}
	}
	if int64(len(data)) > maxSize {
		return nil, badinput.At(file, 0, "%s is larger than %d kB", what, maxSize>>10)
	}
	return data, nil
}

// pathless drops the file name an *fs.PathError repeats.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
