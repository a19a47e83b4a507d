package plan

import (
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/flow"
	"github.com/loadlab/loadlab/internal/targets"
)

var refProbe = regexp.MustCompile(`\$\{[A-Za-z][A-Za-z0-9_-]*\.(url|addr)\}|\$\{target\}`)

// checkTargets parses a scenario's targets before anything starts, with
// stand-in addresses for the components, so a bad method, URL, header or
// template is refused at once rather than when its step comes.
func (b *builder) checkTargets(sc *Scenario, line int) error {
	if b.record {
		return nil // checked when the plan ran; its targets file may be gone
	}
	if sc.Flow != "" {
		return b.checkFlow(sc, line)
	}
	text := sc.Targets
	file := ""
	if sc.TargetsFile != "" {
		data, err := os.ReadFile(sc.TargetsFile)
		if err != nil {
			return at(line, "targets_file: %v", err)
		}
		text, file = string(data), sc.TargetsFile
	}
	text = b.standIns(text)
	hdr := http.Header{}
	for _, h := range sc.Headers {
		hdr.Add(h[0], h[1])
	}
	ts, err := targets.ReadAll(strings.NewReader(text), targets.Options{File: file, Dir: b.dir, Header: hdr})
	if err == nil && len(ts) == 0 {
		err = errors.New("no targets")
	}
	if err == nil {
		return nil
	}
	var bi *badinput.Error
	if file != "" && errors.As(err, &bi) && bi.File != "" {
		return err // names the targets file and its line
	}
	msg := err.Error()
	if errors.As(err, &bi) {
		c := *bi
		c.File, c.Line = "", 0
		msg = c.Error()
	}
	field := "target"
	if strings.Contains(sc.Targets, "\n") {
		field = "targets"
	}
	return at(line, "%s: %s", field, msg)
}

// checkFlow loads a scenario's flow before anything starts, with
// stand-in addresses for the components' ${comp.url}, so a bad flow is
// refused at once (its errors name the flow file, its line and field).
func (b *builder) checkFlow(sc *Scenario, line int) error {
	data, err := os.ReadFile(sc.Flow)
	if err != nil {
		return at(line, "flow: %v", err)
	}
	f, err := flow.Parse(sc.Flow, []byte(b.standIns(string(data))))
	if err != nil {
		return err
	}
	b.noteFlow(sc.Name, f)
	return nil
}

// standIns replaces the component references in text with stand-in
// addresses (checks made before the components run).
func (b *builder) standIns(text string) string {
	return refProbe.ReplaceAllStringFunc(text, func(m string) string {
		switch {
		case m == "${target}":
			return b.plan.Target
		case strings.HasSuffix(m, ".addr}"):
			return "127.0.0.1:1"
		}
		return "http://127.0.0.1:1"
	})
}
