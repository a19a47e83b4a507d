package plan

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// refRE matches component address references.
var refRE = regexp.MustCompile(`\$\{([A-Za-z][A-Za-z0-9_-]*)\.(url|addr)\}|\$\{target\}`)

// Expand replaces ${comp.url}, ${comp.addr} and ${target} with the
// addresses of running components (urls maps name to http://host:port).
func Expand(s string, urls map[string]string, target string) (string, error) {
	var missing string
	out := refRE.ReplaceAllStringFunc(s, func(m string) string {
		if m == "${target}" {
			return target
		}
		sm := refRE.FindStringSubmatch(m)
		u, ok := urls[sm[1]]
		if !ok {
			if missing == "" {
				missing = sm[1]
			}
			return m
		}
		if sm[2] == "addr" {
			return strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
		}
		return u
	})
	if missing != "" {
		return "", fmt.Errorf("${%s.url} is used before component %q is running (components start in the order they are listed)", missing, missing)
	}
	return out, nil
}

// RenderConfig reads a proxy config file, fills in component addresses and
// applies the variant's overrides, returning the text to run with.
func RenderConfig(file string, set []Setting, urls map[string]string, target string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	text, err := Expand(string(data), urls, target)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(set) == 0 {
		return []byte(text), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: set needs a config that is a YAML mapping", file)
	}
	for _, s := range set {
		if err := setPath(doc.Content[0], strings.Split(s.Path, "."), s.Value); err != nil {
			return nil, fmt.Errorf("set %s: %v", s.Path, err)
		}
	}
	return yaml.Marshal(&doc)
}

// setPath sets a dotted path in a mapping, creating missing mappings.
func setPath(m *yaml.Node, path []string, value any) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != path[0] {
			continue
		}
		v := m.Content[i+1]
		if len(path) == 1 {
			var nv yaml.Node
			if err := nv.Encode(value); err != nil {
				return err
			}
			*v = nv
			return nil
		}
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%q is not a mapping", path[0])
		}
		return setPath(v, path[1:], value)
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: path[0]}
	if len(path) == 1 {
		var nv yaml.Node
		if err := nv.Encode(value); err != nil {
			return err
		}
		m.Content = append(m.Content, key, &nv)
		return nil
	}
	child := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, key, child)
	return setPath(child, path[1:], value)
}

// Files returns what a component runs with in step st: its recipe (origin),
// its config file and overrides (proxy), after the step's variant.
func (c *Component) Files(st *Step) (recipe, config string, set []Setting) {
	recipe, config = c.Recipe, c.Config
	if v := c.Variant(st.Variants[c.Name]); v != nil {
		if v.Recipe != "" {
			recipe = v.Recipe
		}
		if v.Config != "" {
			config = v.Config
		}
		set = v.Set
	}
	return recipe, config, set
}

// Configuration names what a step tests: its variants' labels, plus the
// matrix variables that do not set the first scenario's rate or a closed
// loop's users (the comparison's load column shows that one); else the
// step's name.
func (p *Plan) Configuration(st *Step) string {
	var parts []string
	for _, c := range p.Components {
		if v := c.Variant(st.Variants[c.Name]); v != nil && len(c.Variants) > 1 {
			if v.Label != "" {
				parts = append(parts, v.Label)
			} else {
				parts = append(parts, c.Name+" "+v.Name)
			}
		}
	}
	if len(parts) > 0 && len(st.Scenarios) > 0 {
		for _, ax := range p.Axes {
			if v := st.Vars[ax.Key]; !ax.Component && !strings.Contains(st.Scenarios[0].Rate.Text, v) && !setsUsers(st.Scenarios[0], v) {
				parts = append(parts, v)
			}
		}
	}
	if len(parts) == 0 {
		return st.Name
	}
	return strings.Join(parts, ", ")
}

// DefaultOriginSeed is the -seed loadlab run gives an origin whose
// arguments set none, so that its per-request draws are repeatable and
// the model draws the same.
const DefaultOriginSeed = 1

// OriginSeed is the seed an origin component runs with in step st: the
// last -seed among its and its variant's arguments, else
// DefaultOriginSeed.
func (c *Component) OriginSeed(st *Step) (seed uint64, given bool) {
	args := append([]string(nil), c.Args...)
	if v := c.Variant(st.Variants[c.Name]); v != nil {
		args = append(args, v.Args...)
	}
	seed = DefaultOriginSeed
	for i, a := range args {
		val, ok := "", false
		switch {
		case a == "-seed" || a == "--seed":
			if i+1 < len(args) {
				val, ok = args[i+1], true
			}
		case strings.HasPrefix(a, "-seed=") || strings.HasPrefix(a, "--seed="):
			_, val, ok = strings.Cut(a, "=")
		}
		if ok {
			if n, err := strconv.ParseUint(val, 10, 64); err == nil {
				seed, given = n, true
			}
		}
	}
	return seed, given
}
