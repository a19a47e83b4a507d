package flow

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/http1"
	"github.com/loadlab/loadlab/internal/targets"
)

// json is the answer's body decoded as JSON, once per answer.
func (ss *session) json(x *http1.Exchange) (any, bool) {
	if ss.docOK == 0 {
		ss.docOK = -1
		if v, ok := decodeJSON(x.Body); ok {
			ss.doc, ss.docOK = v, 1
		}
	}
	return ss.doc, ss.docOK == 1
}

// capture sets c's variable from the answer; false when the answer does
// not have it or the value could not go where the flow puts it.
func (r *Runner) capture(c *Capture, ss *session, x *http1.Exchange) bool {
	var v string
	switch c.Kind {
	case "status":
		if x.Code == 0 {
			return false
		}
		v = strconv.Itoa(int(x.Code))
	case "header":
		h, ok := field(x.Fields, c.Header)
		if !ok {
			return false
		}
		v = h
	case "cookie":
		jar := ss.jar
		if !r.f.Cookies {
			// no jar kept: this answer's Set-Cookie fields only
			var answer session
			answer.takeCookies(x.Fields)
			jar = answer.jar
		}
		ok := false
		for _, ck := range jar {
			if ck.name == c.Header {
				v, ok = ck.value, true
			}
		}
		if !ok {
			return false
		}
	case "regex":
		m := c.Regex.FindSubmatch(x.Body)
		if m == nil {
			return false
		}
		v = string(m[min(1, len(m)-1)])
	case "json":
		doc, ok := ss.json(x)
		if !ok {
			return false
		}
		vals, found := c.Path.Eval(doc)
		if !found {
			return false
		}
		if c.List {
			list := make([]string, 0, min(len(vals), maxLoopCount))
			for _, e := range vals[:min(len(vals), maxLoopCount)] {
				list = append(list, text(e))
			}
			ss.lists[c.Slot] = list
			v = strings.Join(list, ",")
		} else {
			v = text(vals[0])
		}
	}
	if ok, _ := targets.SafeFor(r.f.strict[c.Slot], v); !ok {
		return false
	}
	ss.vars[c.Slot] = v
	return true
}

// pass judges the answer by c.
func (c *Check) pass(ss *session, x *http1.Exchange) bool {
	switch c.Kind {
	case "status":
		for _, code := range c.Codes {
			if int(x.Code) == code {
				return true
			}
		}
		return false
	case "header":
		h, ok := field(x.Fields, c.Header)
		return ok && strings.Contains(h, c.Contains)
	case "body_contains":
		return x.Code != 0 && bytes.Contains(x.Body, []byte(c.Contains))
	case "json":
		doc, ok := ss.json(x)
		if !ok {
			return !c.HasEq && !c.Exists
		}
		vals, found := c.Path.Eval(doc)
		if c.HasEq {
			return found && len(vals) > 0 && equal(vals[0], c.Equals)
		}
		return found == c.Exists
	case "latency_below":
		return x.Code != 0 && x.Latency < c.Below
	}
	return false
}

// field is the first answer field named name (Exchange.Fields lines).
func field(fields []byte, name string) (value string, found bool) {
	eachField(fields, name, func(v []byte) bool {
		value, found = string(v), true
		return false
	})
	return value, found
}

// eachField calls f with the value of every answer field named name
// (Exchange.Fields: "Name: value" lines), in order, until f returns false.
func eachField(fields []byte, name string, f func(value []byte) bool) {
	for len(fields) > 0 {
		line := fields
		if i := bytes.IndexByte(fields, '\n'); i >= 0 {
			line, fields = fields[:i], fields[i+1:]
		} else {
			fields = nil
		}
		k, v, ok := bytes.Cut(line, []byte(": "))
		if ok && strings.EqualFold(string(k), name) && !f(v) {
			return
		}
	}
}
