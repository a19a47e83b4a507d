package plan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
)

// maxPlanSize bounds the plan file; plans are a few kilobytes.
const maxPlanSize = 1 << 20

// maxSteps bounds the matrix expansion.
const maxSteps = 1000

// Load reads and validates the plan in file.
func Load(file string) (*Plan, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, &badinput.Error{File: file, Msg: "cannot read plan", Err: unwrapPath(err)}
	}
	if st.Size() > maxPlanSize {
		return nil, badinput.At(file, 0, "plan is larger than 1 MB")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &badinput.Error{File: file, Msg: "cannot read plan", Err: unwrapPath(err)}
	}
	dir, _ := filepath.Abs(filepath.Dir(file))
	return Parse(file, dir, data)
}

// Parse validates a plan held in memory. Relative paths in it are resolved
// against dir; file names the plan in error messages. Files the plan
// references must exist.
func Parse(file, dir string, data []byte) (*Plan, error) {
	p, err := parse(file, dir, data)
	if err != nil {
		return nil, toBadInput(file, err)
	}
	return p, nil
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// toBadInput turns any parse error into a one-line *badinput.Error.
func toBadInput(file string, err error) error {
	var le *lineError
	if errors.As(err, &le) {
		return badinput.At(file, le.line, "%s", le.msg)
	}
	var bi *badinput.Error
	if errors.As(err, &bi) {
		return badinput.Wrap(file, err)
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return badinput.At(file, n, "%s", cleanYAML(m[2]))
	}
	return badinput.At(file, 0, "%s", cleanYAML(strings.TrimPrefix(msg, "yaml: ")))
}

// cleanYAML rewrites the decoder's Go-flavoured messages for users.
func cleanYAML(s string) string {
	s = strings.ReplaceAll(s, "!!str", "text")
	s = strings.ReplaceAll(s, "!!int", "number")
	s = strings.ReplaceAll(s, "!!seq", "list")
	s = strings.ReplaceAll(s, "!!map", "mapping")
	if i := strings.Index(s, " into "); i >= 0 && strings.HasPrefix(s, "cannot unmarshal") {
		s = "wrong type: " + strings.TrimPrefix(s[:i], "cannot unmarshal ")
	}
	return s
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func parse(file, dir string, data []byte) (*Plan, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &lineError{line: 1, msg: "empty plan: it needs at least scenarios (see docs/experiments.md)"}
	}
	if err := checkKnown(&doc, reflect.TypeFor[rawPlan](), ""); err != nil {
		return nil, err
	}
	var raw rawPlan
	if err := doc.Decode(&raw); err != nil {
		return nil, err
	}
	b := &builder{file: file, dir: dir, raw: &raw}
	p := &Plan{File: file, Dir: dir, Source: data}
	if err := b.build(p); err != nil {
		return nil, err
	}
	return p, nil
}
