package flow

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/yamlfile"
)

// inlineData reads data: given in the flow itself, a list of rows, each
// a mapping of column to value (the columns are the first row's keys, in
// its order). Errors name the flow file and the row's line.
func (l *loader) inlineData(n *yaml.Node) (*Data, error) {
	if len(n.Content) == 0 {
		return nil, l.errAt(n, "data", "an empty list of rows: want at least one row")
	}
	d := &Data{File: l.file}
	for i, rn := range n.Content {
		field := fmt.Sprintf("data[%d]", i)
		if rn.Kind != yaml.MappingNode {
			return nil, l.errAt(rn, field, "want a row (a mapping of column: value), got %s", yamlfile.KindName(rn))
		}
		if i == 0 {
			for k := 0; k < len(rn.Content); k += 2 {
				d.Columns = append(d.Columns, rn.Content[k].Value)
			}
			if err := checkColumns(l.file, rn.Line, d.Columns); err != nil {
				return nil, err
			}
		}
		if len(rn.Content)/2 != len(d.Columns) {
			return nil, l.errAt(rn, field, "ragged row: %d columns, the first row has %d", len(rn.Content)/2, len(d.Columns))
		}
		row := make([]string, len(d.Columns))
		seen := make([]bool, len(d.Columns))
		for k := 0; k+1 < len(rn.Content); k += 2 {
			kn, vn := rn.Content[k], rn.Content[k+1]
			j := indexOf(d.Columns, kn.Value)
			if j < 0 {
				return nil, l.errAt(kn, join(field, kn.Value), "a column the first row does not have (it has %s)", strings.Join(d.Columns, ", "))
			}
			if seen[j] {
				return nil, l.errAt(kn, join(field, kn.Value), "given twice")
			}
			seen[j] = true
			if vn.Kind != yaml.ScalarNode {
				return nil, l.errAt(vn, join(field, kn.Value), "want a string, number or boolean, got %s", yamlfile.KindName(vn))
			}
			row[j] = vn.Value
		}
		d.Rows = append(d.Rows, row)
		d.lines = append(d.lines, rn.Line)
	}
	return d, nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}
