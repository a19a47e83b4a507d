package flow

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/targets"
	"github.com/loadlab/loadlab/internal/yamlfile"
)

// Bounds on what a flow may ask for.
const (
	maxFlowBytes = 4 << 20
	maxLoopCount = 10_000 // a loop's count; a list is cut here
	maxDepth     = 16     // groups and loops within each other
	maxBodyFile  = 16 << 20
)

// Load reads and checks the flow file, and the data and body files it
// names (relative to it). Every error is a *badinput.Error naming the
// file, the line and the field.
func Load(file string) (*Flow, error) {
	raw, err := yamlfile.ReadFile(file, "flow", maxFlowBytes)
	if err != nil {
		return nil, err
	}
	return Parse(file, raw)
}

// Read is Load of a flow read from r (standard input), named name in
// errors; the files it names are read relative to the working directory.
func Read(name string, r io.Reader) (*Flow, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxFlowBytes+1))
	if err != nil {
		return nil, &badinput.Error{File: name, Msg: "cannot read flow", Err: err}
	}
	if len(raw) > maxFlowBytes {
		return nil, badinput.At(name, 0, "flow is larger than %d kB", maxFlowBytes>>10)
	}
	return parse(name, ".", raw)
}

// Parse is Load of a flow file's contents raw; the files it names are
// read relative to file's directory.
func Parse(file string, raw []byte) (*Flow, error) {
	return parse(file, filepath.Dir(file), raw)
}

// parse is Parse with the files the flow names read relative to dir.
func parse(file, dir string, raw []byte) (*Flow, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, (&yamlfile.Doc{File: file}).Error(err)
	}
	l := &loader{file: file, dir: dir, slots: map[string]int{}, defined: map[string]bool{}, lists: map[string]bool{}}
	if len(doc.Content) == 0 {
		return nil, badinput.At(file, 0, "the flow is empty: want name, steps...")
	}
	return l.flow(doc.Content[0])
}

// loader holds what Parse knows while it walks the file.
type loader struct {
	file    string
	dir     string
	f       *Flow
	slots   map[string]int  // variable name → slot
	defined map[string]bool // defined at this point of the flow
	lists   map[string]bool // variables holding a list ([*] captures)
	strict  []int           // per slot: the strictest place it goes (targets.InURL...)
	nreq    uint32
}

// errAt is the error about field at node n.
func (l *loader) errAt(n *yaml.Node, field, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &badinput.Error{File: l.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// slot returns name's slot, assigning the next one.
func (l *loader) slot(name string) int {
	if s, ok := l.slots[name]; ok {
		return s
	}
	s := len(l.f.vars)
	l.slots[name] = s
	l.f.vars = append(l.f.vars, name)
	l.strict = append(l.strict, targets.InBody)
	return s
}

// mapping checks n is a mapping with only known keys and returns its
// values by key.
func (l *loader) mapping(n *yaml.Node, field string, known ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, field, "want a mapping (key: value), got %s", yamlfile.KindName(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ok := false
		for _, w := range known {
			ok = ok || k.Value == w
		}
		if !ok {
			return nil, l.errAt(k, join(field, k.Value), "unknown field (known here: %s)", strings.Join(known, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, l.errAt(k, join(field, k.Value), "given twice")
		}
		out[k.Value] = v
	}
	return out, nil
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// scalar checks n is a scalar and returns its text.
func (l *loader) scalar(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", l.errAt(n, field, "want a single value, got %s", yamlfile.KindName(n))
	}
	return n.Value, nil
}

func (l *loader) oneOf(n *yaml.Node, field string, choices ...string) (string, error) {
	s, err := l.scalar(n, field)
	if err != nil {
		return "", err
	}
	for _, c := range choices {
		if s == c {
			return s, nil
		}
	}
	return "", l.errAt(n, field, "want %s, got %s", strings.Join(choices, " or "), yamlfile.Quote(s))
}

func (l *loader) duration(n *yaml.Node, field string) (time.Duration, error) {
	s, err := l.scalar(n, field)
	if err != nil {
		return 0, err
	}
	d, err := yamlfile.ParseDuration(s)
	if err != nil {
		return 0, l.errAt(n, field, "%v", err)
	}
	return d, nil
}

func (l *loader) flow(root *yaml.Node) (*Flow, error) {
	m, err := l.mapping(root, "", "name", "data", "pick", "exhausted", "cookies", "on_failure", "steps")
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(l.file), filepath.Ext(l.file))
	f := &Flow{Name: base, File: l.file, Pick: "sequential", Exhausted: "stop", Cookies: true, OnFailure: "stop"}
	l.f = f
	if n := m["name"]; n != nil {
		if f.Name, err = l.scalar(n, "name"); err != nil {
			return nil, err
		}
	}
	if n := m["pick"]; n != nil {
		if f.Pick, err = l.oneOf(n, "pick", "sequential", "random", "unique"); err != nil {
			return nil, err
		}
	}
	if n := m["exhausted"]; n != nil {
		if f.Exhausted, err = l.oneOf(n, "exhausted", "stop", "wrap"); err != nil {
			return nil, err
		}
	}
	if n := m["on_failure"]; n != nil {
		if f.OnFailure, err = l.oneOf(n, "on_failure", "stop", "continue"); err != nil {
			return nil, err
		}
	}
	if n := m["cookies"]; n != nil {
		var on string
		if on, err = l.oneOf(n, "cookies", "true", "false"); err != nil {
			return nil, err
		}
		f.Cookies = on == "true"
	}
	if n := m["data"]; n != nil && n.Kind == yaml.SequenceNode {
		if f.Data, err = l.inlineData(n); err != nil {
			return nil, err
		}
	} else if n != nil {
		name, err := l.scalar(n, "data")
		if err != nil {
			return nil, err
		}
		if f.Data, err = loadData(l.rel(name)); err != nil {
			var be *badinput.Error
			if e, ok := err.(*badinput.Error); ok && e.Line == 0 && e.File == l.rel(name) && strings.HasPrefix(e.Msg, "cannot read") {
				be = &badinput.Error{File: l.file, Line: n.Line, Field: "data", Msg: "cannot read data file " + strconv.Quote(name), Err: e.Err}
				return nil, be
			}
			return nil, err
		}
	}
	if f.Data != nil {
		for _, c := range f.Data.Columns {
			l.slot(c)
			l.defined[c] = true
		}
	}
	f.cookie = l.slot("cookie.jar")
	steps := m["steps"]
	if steps == nil {
		return nil, l.errAt(root, "steps", "a flow needs steps (a list of request, think, group and loop steps)")
	}
	if f.Steps, err = l.steps(steps, "steps", "", 0); err != nil {
		return nil, err
	}
	if l.nreq == 0 {
		return nil, l.errAt(steps, "steps", "the flow sends no request")
	}
	if err := l.checkData(m["data"]); err != nil {
		return nil, err
	}
	l.f.strict = l.strict
	return f, nil
}

// rel is a file named in the flow, relative to the flow file.
func (l *loader) rel(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(l.dir, name)
}

// checkData checks every data value can go where the flow puts it.
func (l *loader) checkData(n *yaml.Node) error {
	d := l.f.Data
	if d == nil {
		return nil
	}
	for i, row := range d.Rows {
		for j, v := range row {
			if ok, why := targets.SafeFor(l.strict[j], v); !ok {
				return badinput.At(d.File, d.line(i), "row %d, column %s: the value %s", i+1, d.Columns[j], why)
			}
		}
	}
	return nil
}

func (l *loader) steps(n *yaml.Node, field, group string, depth int) ([]*Step, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, field, "want a list of steps, got %s", yamlfile.KindName(n))
	}
	if depth > maxDepth {
		return nil, l.errAt(n, field, "groups and loops nested more than %d deep", maxDepth)
	}
	var out []*Step
	for i, sn := range n.Content {
		s, err := l.step(sn, fmt.Sprintf("%s[%d]", field, i), group, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// step reads one step; its kind is the key it has among request, think,
// group and loop.
func (l *loader) step(n *yaml.Node, field, group string, depth int) (*Step, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, field, "want a step (a mapping with request:, think:, group: or loop:), got %s", yamlfile.KindName(n))
	}
	kind := ""
	for i := 0; i < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case KindRequest, KindThink, KindGroup, KindLoop:
			if kind != "" {
				return nil, l.errAt(n.Content[i], join(field, k), "a step is one of request, think, group or loop; this one is also %s", kind)
			}
			kind = k
		}
	}
	switch kind {
	case KindRequest:
		return l.request(n, field, group)
	case KindThink:
		m, err := l.mapping(n, field, "think")
		if err != nil {
			return nil, err
		}
		t, err := l.think(m["think"], join(field, "think"))
		return &Step{Kind: KindThink, Line: n.Line, Think: t}, err
	case KindGroup:
		m, err := l.mapping(n, field, "group", "steps")
		if err != nil {
			return nil, err
		}
		name, err := l.scalar(m["group"], join(field, "group"))
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, l.errAt(m["group"], join(field, "group"), "a group needs a name")
		}
		if m["steps"] == nil {
			return nil, l.errAt(n, join(field, "steps"), "a group needs steps")
		}
		steps, err := l.steps(m["steps"], join(field, "steps"), path(group, name), depth+1)
		return &Step{Kind: KindGroup, Line: n.Line, Name: name, Steps: steps}, err
	case KindLoop:
		return l.loop(n, field, group, depth)
	}
	if len(n.Content) > 0 {
		k := n.Content[0]
		return nil, l.errAt(k, join(field, k.Value), "unknown step kind (want request, think, group or loop)")
	}
	return nil, l.errAt(n, field, "an empty step (want request, think, group or loop)")
}

func path(group, name string) string {
	if group == "" {
		return name
	}
	return group + "/" + name
}

func (l *loader) think(n *yaml.Node, field string) (Think, error) {
	if n.Kind == yaml.ScalarNode {
		d, err := l.duration(n, field)
		return Think{Kind: "fixed", Min: d, Max: d}, err
	}
	m, err := l.mapping(n, field, "uniform", "exponential")
	if err != nil {
		return Think{}, err
	}
	switch {
	case len(m) != 1:
		return Think{}, l.errAt(n, field, "want a duration, {uniform: [MIN, MAX]} or {exponential: MEAN}")
	case m["uniform"] != nil:
		u := m["uniform"]
		f := join(field, "uniform")
		if u.Kind != yaml.SequenceNode || len(u.Content) != 2 {
			return Think{}, l.errAt(u, f, "want [MIN, MAX], two durations")
		}
		lo, err := l.duration(u.Content[0], f)
		if err != nil {
			return Think{}, err
		}
		hi, err := l.duration(u.Content[1], f)
		if err != nil {
			return Think{}, err
		}
		if hi < lo {
			return Think{}, l.errAt(u, f, "MAX %s is below MIN %s", hi, lo)
		}
		return Think{Kind: "uniform", Min: lo, Max: hi}, nil
	default:
		d, err := l.duration(m["exponential"], join(field, "exponential"))
		return Think{Kind: "exponential", Mean: d}, err
	}
}

func (l *loader) loop(n *yaml.Node, field, group string, depth int) (*Step, error) {
	m, err := l.mapping(n, field, "loop", "steps")
	if err != nil {
		return nil, err
	}
	lf := join(field, "loop")
	lm, err := l.mapping(m["loop"], lf, "count", "over", "as")
	if err != nil {
		return nil, err
	}
	s := &Step{Kind: KindLoop, Line: n.Line, Over: -1, As: -1}
	switch {
	case lm["count"] != nil && lm["over"] != nil:
		return nil, l.errAt(m["loop"], lf, "a loop has a count or goes over a list, not both")
	case lm["count"] != nil:
		c, err := l.scalar(lm["count"], join(lf, "count"))
		if err != nil {
			return nil, err
		}
		if s.Count, err = strconv.Atoi(c); err != nil || s.Count < 1 || s.Count > maxLoopCount {
			return nil, l.errAt(lm["count"], join(lf, "count"), "want a whole number from 1 to %d, got %s", maxLoopCount, yamlfile.Quote(c))
		}
		if lm["as"] != nil {
			return nil, l.errAt(lm["as"], join(lf, "as"), "as: names the item of a list (with over:); a count loop has loop.index")
		}
	case lm["over"] != nil:
		name, err := l.scalar(lm["over"], join(lf, "over"))
		if err != nil {
			return nil, err
		}
		if !l.defined[name] {
			return nil, l.errAt(lm["over"], join(lf, "over"), "variable %s is used before anything defines it (a capture with a [*] JSON path before the loop)", name)
		}
		if !l.lists[name] {
			return nil, l.errAt(lm["over"], join(lf, "over"), "variable %s is not a list: capture it with a JSON path holding [*], e.g. $.items[*].id", name)
		}
		s.Over = l.slot(name)
	default:
		return nil, l.errAt(m["loop"], lf, "want {count: N} or {over: VARIABLE, as: NAME}")
	}
	if m["steps"] == nil {
		return nil, l.errAt(n, join(field, "steps"), "a loop needs steps")
	}
	// loop.index, loop.item and the as: name exist inside the loop only.
	saved := map[string]bool{}
	for k, v := range l.defined {
		saved[k] = v
	}
	s.Index = l.slot("loop.index")
	l.defined["loop.index"] = true
	if s.Over >= 0 {
		item := l.slot("loop.item")
		l.defined["loop.item"] = true
		s.As, s.Item = item, item
		if an := lm["as"]; an != nil {
			as, err := l.scalar(an, join(lf, "as"))
			if err != nil {
				return nil, err
			}
			if !validVarName(as) {
				return nil, l.errAt(an, join(lf, "as"), "%s is not a variable name (letters, digits, _ and -, starting with a letter or _)", yamlfile.Quote(as))
			}
			s.As = l.slot(as)
			l.defined[as] = true
		}
	}
	if s.Steps, err = l.steps(m["steps"], join(field, "steps"), group, depth+1); err != nil {
		return nil, err
	}
	// What the body captured stays defined; the loop's own names do not.
	for _, k := range []string{"loop.index", "loop.item"} {
		if !saved[k] {
			delete(l.defined, k)
		}
	}
	if an := lm["as"]; an != nil && !saved[an.Value] {
		delete(l.defined, an.Value)
	}
	return s, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// pathless drops the file name an *os.PathError repeats.
func pathless(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
