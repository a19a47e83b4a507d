package flow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
	"github.com/loadlab/loadlab/internal/yamlfile"
)

func (l *loader) captures(n *yaml.Node, field string, s *Step) ([]*Capture, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, field, "want a list of captures, e.g. - {var: token, json: \"$.token\"}")
	}
	var out []*Capture
	for i, cn := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		m, err := l.mapping(cn, f, "var", "json", "regex", "header", "cookie", "status")
		if err != nil {
			return nil, err
		}
		vn := m["var"]
		if vn == nil {
			return nil, l.errAt(cn, join(f, "var"), "a capture must name the variable it sets (var: NAME)")
		}
		name, err := l.scalar(vn, join(f, "var"))
		if err != nil {
			return nil, err
		}
		if !validVarName(name) {
			return nil, l.errAt(vn, join(f, "var"), "%s is not a variable name (letters, digits, _ and -, starting with a letter or _)", yamlfile.Quote(name))
		}
		c := &Capture{Var: name, Line: cn.Line, Name: name}
		kinds := 0
		for _, k := range []string{"json", "regex", "header", "cookie", "status"} {
			kn := m[k]
			if kn == nil {
				continue
			}
			kinds++
			c.Kind = k
			kf := join(f, k)
			v, err := l.scalar(kn, kf)
			if err != nil {
				return nil, err
			}
			switch k {
			case "json":
				if c.Path, err = ParsePath(v); err != nil {
					return nil, l.errAt(kn, kf, "%v", err)
				}
				c.List = c.Path.List()
			case "regex":
				if c.Regex, err = regexp.Compile(v); err != nil {
					return nil, l.errAt(kn, kf, "%v", err)
				}
			case "header", "cookie":
				if v == "" {
					return nil, l.errAt(kn, kf, "want a %s name", k)
				}
				c.Header = v
				if k == "header" {
					c.Header = targets.HeaderName(v)
				}
			}
		}
		if kinds != 1 {
			return nil, l.errAt(cn, f, "a capture takes its value from one of json, regex, header, cookie or status")
		}
		c.Slot = l.slot(name)
		l.defined[name] = true
		if c.List {
			l.lists[name] = true
		}
		out = append(out, c)
	}
	return out, nil
}

func (l *loader) checks(n *yaml.Node, field string) ([]*Check, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, field, "want a list of checks, e.g. - {status: 200}")
	}
	if len(n.Content) > results.MaxChecks {
		return nil, l.errAt(n, field, "at most %d checks a step", results.MaxChecks)
	}
	var out []*Check
	for i, cn := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		m, err := l.mapping(cn, f, "name", "status", "header", "contains", "body_contains", "json", "equals", "exists", "latency_below")
		if err != nil {
			return nil, err
		}
		c := &Check{}
		kinds := 0
		for _, k := range []string{"status", "header", "body_contains", "json", "latency_below"} {
			if m[k] != nil {
				kinds++
				c.Kind = k
			}
		}
		if kinds != 1 {
			return nil, l.errAt(cn, f, "a check is one of status, header (with contains), body_contains, json (with equals or exists) or latency_below")
		}
		kn, kf := m[c.Kind], join(f, c.Kind)
		allow := map[string][]string{"header": {"contains"}, "json": {"equals", "exists"}}[c.Kind]
		for _, extra := range []string{"contains", "equals", "exists"} {
			if m[extra] != nil && !contains(allow, extra) {
				return nil, l.errAt(m[extra], join(f, extra), "%s goes with %s", extra, map[string]string{"contains": "header", "equals": "json", "exists": "json"}[extra])
			}
		}
		switch c.Kind {
		case "status":
			if c.Codes, err = l.codes(kn, kf); err != nil {
				return nil, err
			}
			c.Name = "status " + joinInts(c.Codes)
		case "header":
			h, err := l.scalar(kn, kf)
			if err != nil {
				return nil, err
			}
			c.Header = targets.HeaderName(h)
			if m["contains"] == nil {
				return nil, l.errAt(cn, join(f, "contains"), "a header check needs contains: TEXT")
			}
			if c.Contains, err = l.scalar(m["contains"], join(f, "contains")); err != nil {
				return nil, err
			}
			c.Name = "header " + c.Header + " contains " + c.Contains
		case "body_contains":
			if c.Contains, err = l.scalar(kn, kf); err != nil {
				return nil, err
			}
			c.Name = "body contains " + c.Contains
		case "json":
			p, err := l.scalar(kn, kf)
			if err != nil {
				return nil, err
			}
			if c.Path, err = ParsePath(p); err != nil {
				return nil, l.errAt(kn, kf, "%v", err)
			}
			switch en, xn := m["equals"], m["exists"]; {
			case (en == nil) == (xn == nil):
				return nil, l.errAt(cn, f, "a json check needs equals: VALUE or exists: true|false")
			case en != nil:
				if en.Kind != yaml.ScalarNode {
					return nil, l.errAt(en, join(f, "equals"), "want a single value (string, number, true, false, null)")
				}
				if err := en.Decode(&c.Equals); err != nil {
					return nil, l.errAt(en, join(f, "equals"), "%v", err)
				}
				c.HasEq = true
				c.Name = "json " + p + " equals " + en.Value
			default:
				e, err := l.oneOf(xn, join(f, "exists"), "true", "false")
				if err != nil {
					return nil, err
				}
				c.Exists = e == "true"
				c.Name = "json " + p + " exists"
				if !c.Exists {
					c.Name = "json " + p + " does not exist"
				}
			}
		case "latency_below":
			if c.Below, err = l.duration(kn, kf); err != nil {
				return nil, err
			}
			if c.Below <= 0 {
				return nil, l.errAt(kn, kf, "want a positive duration")
			}
			c.Name = "latency below " + c.Below.String()
		}
		if nn := m["name"]; nn != nil {
			if c.Name, err = l.scalar(nn, join(f, "name")); err != nil {
				return nil, err
			}
		}
		c.Name = strings.ReplaceAll(c.Name, "\x00", "")
		out = append(out, c)
	}
	return out, nil
}

// codes reads status: 200 or status: [200, 201].
func (l *loader) codes(n *yaml.Node, field string) ([]int, error) {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) == 0 {
		return nil, l.errAt(n, field, "want a status code or a list of them")
	}
	var out []int
	for _, it := range items {
		s, err := l.scalar(it, field)
		if err != nil {
			return nil, err
		}
		c, err := strconv.Atoi(s)
		if err != nil || c < 100 || c > 599 {
			return nil, l.errAt(it, field, "want a status code from 100 to 599, got %s", yamlfile.Quote(s))
		}
		out = append(out, c)
	}
	return out, nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, "|")
}
