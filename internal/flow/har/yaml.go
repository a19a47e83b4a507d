package har

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML writes the flow in the flow file format, with a comment saying
// where it came from and what was left out. source names the recording.
func (f *Flow) YAML(source string) []byte {
	doc := mapping(false)
	add(doc, "name", scalar(f.Name))
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	for _, st := range f.Steps {
		steps.Content = append(steps.Content, stepNode(&st))
	}
	add(doc, "steps", steps)
	doc.HeadComment = f.comment(source)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(doc)
	_ = enc.Close()
	return b.Bytes()
}

func (f *Flow) comment(source string) string {
	lines := []string{
		fmt.Sprintf("made by loadlab flow import from %s: %d of its %d requests, on %s", source, f.Kept, f.Total, f.Host),
	}
	if len(f.Left) > 0 {
		reasons := make([]string, 0, len(f.Left))
		for r := range f.Left {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		parts := make([]string, len(reasons))
		for i, r := range reasons {
			parts[i] = r + " " + strconv.Itoa(f.Left[r])
		}
		lines = append(lines, "left out: "+strings.Join(parts, ", ")+" (-include-static keeps static assets, -hosts other hosts)")
	}
	if len(f.OtherHosts) > 0 {
		lines = append(lines, "other hosts: "+strings.Join(f.OtherHosts, ", "))
	}
	lines = append(lines, "think steps are the recorded pauses between requests; captures are values an answer returned that a later request sent back")
	return strings.Join(lines, "\n")
}

func stepNode(st *Step) *yaml.Node {
	n := mapping(false)
	if st.Think > 0 {
		add(n, "think", scalar(st.Think.String()))
		return n
	}
	req := mapping(false)
	if st.Method != "GET" {
		add(req, "method", scalar(st.Method))
	}
	add(req, "url", scalar(st.URL))
	if len(st.Headers) > 0 {
		h := mapping(false)
		for _, x := range st.Headers {
			add(h, x.Name, scalar(x.Value))
		}
		add(req, "headers", h)
	}
	if st.Body != "" {
		add(req, "body", scalar(st.Body))
	}
	add(n, "request", req)
	if len(st.Captures) > 0 {
		cs := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range st.Captures {
			m := mapping(true)
			add(m, "var", scalar(c.Var))
			if c.JSON != "" {
				add(m, "json", scalar(c.JSON))
			} else {
				add(m, "header", scalar(c.Header))
			}
			cs.Content = append(cs.Content, m)
		}
		add(n, "capture", cs)
	}
	if st.Status != 0 {
		m := mapping(true)
		add(m, "status", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(st.Status)})
		add(n, "check", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{m}})
	}
	return n
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, scalar(key), v)
}
