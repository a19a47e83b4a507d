package flow

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/yamlfile"
)

// Data is a flow's data: columns and rows of values, from a data file or
// inline in the flow; each session takes one row (Flow.Pick) as its first
// variables.
type Data struct {
	File    string
	Columns []string
	Rows    [][]string
	lines   []int // per row, its line in File when the rows are inline
}

// line is row i's line in d.File, 0 when not known (a data file).
func (d *Data) line(i int) int {
	if i < len(d.lines) {
		return d.lines[i]
	}
	return 0
}

// maxDataBytes bounds a data file.
const maxDataBytes = 256 << 20

// loadData reads a CSV file with a header row (.csv, or anything not
// .json) or a JSON array of objects (.json). Errors name the file and the
// line (CSV) or element (JSON).
func loadData(file string) (*Data, error) {
	raw, err := yamlfile.ReadFile(file, "data file", maxDataBytes)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, badinput.At(file, 0, "data file is empty: want a header row and at least one row")
	}
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return jsonData(file, raw)
	}
	return csvData(file, raw)
}

func csvData(file string, raw []byte) (*Data, error) {
	r := csv.NewReader(bytes.NewReader(raw))
	r.ReuseRecord = false
	head, err := r.Read()
	if err != nil {
		return nil, csvError(file, err)
	}
	d := &Data{File: file, Columns: head}
	if err := checkColumns(file, 1, head); err != nil {
		return nil, err
	}
	r.FieldsPerRecord = len(head)
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		d.Rows = append(d.Rows, row)
	}
	if len(d.Rows) == 0 {
		return nil, badinput.At(file, 1, "data file has a header row and no rows")
	}
	return d, nil
}

// csvError turns a CSV parse error into one line naming file and line.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			return badinput.At(file, pe.StartLine, "ragged row: %v (every row must have as many fields as the header)", pe.Err)
		}
		return badinput.At(file, pe.StartLine, "%v", pe.Err)
	}
	return badinput.At(file, 0, "%v", err)
}

// checkColumns checks the column names: each usable as {{name}}.
func checkColumns(file string, line int, cols []string) error {
	seen := map[string]bool{}
	for _, c := range cols {
		if !validVarName(c) {
			return badinput.At(file, line, "column %q is not a variable name (letters, digits, _ and -, starting with a letter or _)", c)
		}
		if seen[c] {
			return badinput.At(file, line, "column %q appears twice", c)
		}
		seen[c] = true
	}
	return nil
}

func jsonData(file string, raw []byte) (*Data, error) {
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&objs); err != nil {
		return nil, badinput.At(file, 0, "want a JSON array of objects, one per row: %v", err)
	}
	if len(objs) == 0 {
		return nil, badinput.At(file, 0, "data file is an empty array: want at least one row")
	}
	d := &Data{File: file}
	for k := range objs[0] {
		d.Columns = append(d.Columns, k)
	}
	sort.Strings(d.Columns)
	if err := checkColumns(file, 0, d.Columns); err != nil {
		return nil, err
	}
	for i, o := range objs {
		if len(o) != len(d.Columns) {
			return nil, badinput.At(file, 0, "ragged row: element %d has %d fields, the first has %d (%s)", i, len(o), len(d.Columns), strings.Join(d.Columns, ", "))
		}
		row := make([]string, len(d.Columns))
		for j, c := range d.Columns {
			v, ok := o[c]
			if !ok {
				return nil, badinput.At(file, 0, "ragged row: element %d has no field %q", i, c)
			}
			switch v.(type) {
			case map[string]any, []any:
				return nil, badinput.At(file, 0, "element %d, field %q: want a string, number or boolean", i, c)
			}
			row[j] = text(v)
		}
		d.Rows = append(d.Rows, row)
	}
	return d, nil
}

// validVarName reports whether s may name a variable.
func validVarName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}
