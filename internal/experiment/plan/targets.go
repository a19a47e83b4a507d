package plan

import (
	"errors"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
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
	text := sc.Targets
	file := ""
	if sc.TargetsFile != "" {
		data, err := os.ReadFile(sc.TargetsFile)
		if err != nil {
			return at(line, "targets_file: %v", err)
		}
		text, file = string(data), sc.TargetsFile
	}
	text = refProbe.ReplaceAllStringFunc(text, func(m string) string {
		switch {
		case m == "${target}":
			return b.plan.Target
		case strings.HasSuffix(m, ".addr}"):
			return "127.0.0.1:1"
		}
		return "http://127.0.0.1:1"
	})
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
