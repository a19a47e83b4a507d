package yamlfile

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Path is a field's place in a document: mapping keys (string) and list
// indexes (int), outermost first.
type Path []any

// String writes the path as users read it: pools.search.size, routes[0].pool.
func (p Path) String() string {
	var b strings.Builder
	for _, e := range p {
		switch e := e.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(e) + "]")
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(keyText(e))
		}
	}
	return b.String()
}

// keyText is a mapping key as a path shows it: as written, or quoted when
// it holds a dot, a space or anything unprintable (a key with a line break
// would otherwise split the one-line error in two).
func keyText(k string) string {
	if k == "" || strings.ContainsAny(k, ". \t[]\"") || strings.IndexFunc(k, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 {
		return strconv.Quote(k)
	}
	return k
}

// Add returns a new path: p followed by more keys and indexes.
func (p Path) Add(more ...any) Path {
	return append(append(Path{}, p...), more...)
}

// walk follows path from the top node. It returns the node at the end of
// path (nil if path is not all there) and the line of the deepest key or
// item found.
func walk(n *yaml.Node, path Path) (*yaml.Node, int) {
	if n == nil {
		return nil, 0
	}
	line := n.Line
	for _, p := range path {
		var next *yaml.Node
		switch p := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == p {
						line = n.Content[i].Line
						next = n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && p >= 0 && p < len(n.Content) {
				next = n.Content[p]
				line = next.Line
			}
		}
		if next == nil {
			return nil, line
		}
		n = next
	}
	return n, line
}

// find returns the path of the first value node on line that starts at
// col (when col > 0) or is a scalar holding value (when col is 0).
func find(root *yaml.Node, line, col int, value string) (Path, bool) {
	var path Path
	var visit func(n *yaml.Node) bool
	visit = func(n *yaml.Node) bool {
		if n.Line == line && ((col > 0 && n.Column == col) || (col == 0 && n.Kind == yaml.ScalarNode && n.Value == value)) {
			return true
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				path = append(path, n.Content[i].Value)
				if visit(n.Content[i+1]) {
					return true
				}
				path = path[:len(path)-1]
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				path = append(path, i)
				if visit(c) {
					return true
				}
				path = path[:len(path)-1]
			}
		}
		return false
	}
	if root == nil || !visit(root) || len(path) == 0 {
		return nil, false
	}
	return path, true
}
