package plan

import (
	"path/filepath"
	"reflect"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/yamlfile"
)

// maxPlanSize bounds the plan file; plans are a few kilobytes.
const maxPlanSize = 1 << 20

// maxSteps bounds the matrix expansion.
const maxSteps = 1000

// Load reads and validates the plan in file, with set overriding its
// variables.
func Load(file string, set ...Override) (*Plan, error) {
	data, err := yamlfile.ReadFile(file, "plan", maxPlanSize)
	if err != nil {
		return nil, err
	}
	dir, _ := filepath.Abs(filepath.Dir(file))
	return Parse(file, dir, data, set...)
}

// Parse validates a plan held in memory. Relative paths in it are resolved
// against dir; file names the plan in error messages. Files the plan
// references must exist. set overrides the plan's variables; one naming
// no variable of the plan is an error.
func Parse(file, dir string, data []byte, set ...Override) (*Plan, error) {
	return parse(&builder{file: file, dir: dir, set: set}, data)
}

// ParseRecord reads a plan kept as a record, the copy a run folder holds,
// for its shape alone (steps, scenarios, their rates and users, the
// matrix): the files it names (recipes, configs, targets files) are
// neither opened nor need to exist, since the run that followed it is
// over and a folder is written up from what it holds. Relative paths in
// it are joined to dir as Parse joins them, as names only. set are the
// overrides the run applied (RecordedOverrides of its arguments), applied
// again as Parse applies them.
func ParseRecord(file, dir string, data []byte, set ...Override) (*Plan, error) {
	return parse(&builder{file: file, dir: dir, record: true, set: set}, data)
}

// parse validates a plan held in memory with b.
func parse(b *builder, data []byte) (*Plan, error) {
	file, dir := b.file, b.dir
	doc, err := yamlfile.Parse(file, data, reflect.TypeFor[rawPlan](), yamlfile.Options{})
	if err != nil {
		return nil, err
	}
	if doc.Root == nil {
		return nil, badinput.At(file, 1, "empty plan: it needs at least scenarios (see docs/experiments.md)")
	}
	var raw rawPlan
	if err := doc.Decode(&raw); err != nil {
		return nil, err
	}
	b.raw = &raw
	p := &Plan{File: file, Dir: dir, Source: data}
	if err := b.build(p); err != nil {
		return nil, doc.Error(err)
	}
	return p, nil
}
