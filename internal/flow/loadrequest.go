package flow

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

func (l *loader) request(n *yaml.Node, field, group string) (*Step, error) {
	m, err := l.mapping(n, field, "name", "request", "capture", "check", "on_failure")
	if err != nil {
		return nil, err
	}
	s := &Step{Kind: KindRequest, Line: n.Line, OnFailure: l.f.OnFailure}
	rf := join(field, "request")
	rm, err := l.mapping(m["request"], rf, "method", "url", "headers", "body", "body_file")
	if err != nil {
		return nil, err
	}
	method := "GET"
	if mn := rm["method"]; mn != nil {
		if method, err = l.scalar(mn, join(rf, "method")); err != nil {
			return nil, err
		}
	}
	un := rm["url"]
	if un == nil {
		return nil, l.errAt(m["request"], join(rf, "url"), "a request needs a url")
	}
	url, err := l.scalar(un, join(rf, "url"))
	if err != nil {
		return nil, err
	}
	var header [][2]string
	hasCookie := false
	if hn := rm["headers"]; hn != nil {
		if hn.Kind != yaml.MappingNode {
			return nil, l.errAt(hn, join(rf, "headers"), "want a mapping of header names to values")
		}
		for i := 0; i+1 < len(hn.Content); i += 2 {
			k, v := hn.Content[i], hn.Content[i+1]
			val, err := l.scalar(v, join(join(rf, "headers"), k.Value))
			if err != nil {
				return nil, err
			}
			header = append(header, [2]string{k.Value, val})
			hasCookie = hasCookie || strings.EqualFold(k.Value, "Cookie")
		}
	}
	var body *string
	switch bn, fn := rm["body"], rm["body_file"]; {
	case bn != nil && fn != nil:
		return nil, l.errAt(fn, join(rf, "body_file"), "give body or body_file, not both")
	case bn != nil:
		b, err := l.scalar(bn, join(rf, "body"))
		if err != nil {
			return nil, err
		}
		body = &b
	case fn != nil:
		name, err := l.scalar(fn, join(rf, "body_file"))
		if err != nil {
			return nil, err
		}
		raw, err := os.ReadFile(l.rel(name))
		if err != nil {
			return nil, l.errAt(fn, join(rf, "body_file"), "cannot read %s: %v", name, pathless(err))
		}
		if len(raw) > maxBodyFile {
			return nil, l.errAt(fn, join(rf, "body_file"), "%s is larger than %d MB", name, maxBodyFile>>20)
		}
		b := string(raw)
		body = &b
	}
	// The templates: every variable must be defined by now.
	used := map[int]bool{}
	names := func(name string) (int, error) {
		if !l.defined[name] {
			return 0, fmt.Errorf("variable %s is used before anything defines it (a data column, or a capture of an earlier step)", name)
		}
		s := l.slot(name)
		used[s] = true
		return s, nil
	}
	t, err := targets.BuildTarget(l.nreq, method, url, header, body, names)
	if err != nil {
		return nil, l.targetErr(rm, m["request"], rf, err)
	}
	s.Target = t
	if l.f.Cookies && !hasCookie {
		jar := append(append([][2]string(nil), header...), [2]string{"Cookie", "{{cookie.jar}}"})
		l.defined["cookie.jar"] = true
		s.WithJar, err = targets.BuildTarget(l.nreq, method, url, jar, body, names)
		delete(l.defined, "cookie.jar")
		if err != nil {
			return nil, l.targetErr(rm, m["request"], rf, err)
		}
	}
	l.nreq++
	l.noteUses(s, t)
	s.Name = t.Method + " " + urlPath(url)
	if nn := m["name"]; nn != nil {
		if s.Name, err = l.scalar(nn, join(field, "name")); err != nil {
			return nil, err
		}
		if s.Name == "" || strings.ContainsRune(s.Name, 0) {
			return nil, l.errAt(nn, join(field, "name"), "want a name without NUL bytes")
		}
	}
	s.Name = path(group, s.Name)
	if on := m["on_failure"]; on != nil {
		if s.OnFailure, err = l.oneOf(on, join(field, "on_failure"), "stop", "continue"); err != nil {
			return nil, err
		}
	}
	if cn := m["check"]; cn != nil {
		if s.Checks, err = l.checks(cn, join(field, "check")); err != nil {
			return nil, err
		}
	}
	if cn := m["capture"]; cn != nil {
		if s.Captures, err = l.captures(cn, join(field, "capture"), s); err != nil {
			return nil, err
		}
	}
	for _, c := range s.Checks {
		s.needBody = s.needBody || c.Kind == "json" || c.Kind == "body_contains"
		s.needHead = s.needHead || c.Kind == "header"
	}
	for _, c := range s.Captures {
		s.needBody = s.needBody || c.Kind == "json" || c.Kind == "regex"
		s.needHead = s.needHead || c.Kind == "header" || c.Kind == "cookie"
	}
	s.needHead = s.needHead || l.f.Cookies
	checkNames := make([]string, len(s.Checks))
	for i, c := range s.Checks {
		checkNames[i] = c.Name
	}
	s.Recorded = results.NewFlowStep(s.Name, checkNames)
	return s, nil
}

// noteUses records where the request's templates put each variable.
func (l *loader) noteUses(s *Step, t *targets.Target) {
	add := func(tp *targets.Template, where int) {
		if tp == nil {
			return
		}
		for _, slot := range tp.Slots() {
			s.varUse = append(s.varUse, varUse{slot, where})
			l.strict[slot] = min(l.strict[slot], where)
		}
	}
	add(t.URL, targets.InURL)
	for _, h := range t.Header {
		add(h.Value, targets.InHeader)
	}
	add(t.Body, targets.InBody)
}

// urlPath is the path of a URL template, for a step's default name.
func urlPath(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return "/"
	}
	return u
}

// targetErr places an error of targets.BuildTarget ("url: ...") on the
// request's field it names.
func (l *loader) targetErr(rm map[string]*yaml.Node, req *yaml.Node, rf string, err error) error {
	msg := err.Error()
	for _, part := range []string{"url", "method", "headers", "body"} {
		if rest, ok := strings.CutPrefix(msg, part+": "); ok {
			n := rm[part]
			if n == nil && part == "body" {
				n = rm["body_file"]
				part = "body_file"
			}
			if n == nil {
				n = req
			}
			return l.errAt(n, join(rf, part), "%s", rest)
		}
	}
	return l.errAt(req, rf, "%s", msg)
}
