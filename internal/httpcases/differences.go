package httpcases

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Part names a section of docs/http1.md: the cases on which one piece of
// loadlab's HTTP/1.1 code deliberately differs from net/http.
type Part string

// The parts of docs/http1.md.
const (
	AttackResponses Part = "The attack's response reader"
	LeanRequests    Part = "The lean server's request reader"
	ProxyWriter     Part = "The proxy's request writer"
	ProxyEndToEnd   Part = "The proxy end to end"
)

// DocPath is the document listing the differences, from the module root.
const DocPath = "docs/http1.md"

// Documented returns the cases docs/http1.md lists under part, each with
// its row: table rows whose first cell is a case name in backquotes.
func Documented(part Part) (map[string]string, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(root, DocPath))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows := map[string]string{}
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line[3:]) == string(part)
			found = found || in
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		name, _, ok := strings.Cut(line[3:], "`")
		if !ok {
			return nil, errors.New(DocPath + ": unclosed case name in " + line)
		}
		rows[name] = line
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New(DocPath + " has no section \"## " + string(part) + "\"")
	}
	return rows, nil
}

// Hold fails t unless the cases on which loadlab and net/http differed
// (differ: case name -> what differed) are exactly those documented under
// part: an undocumented difference fails, and so does a documented one
// that no longer occurs.
func Hold(t testing.TB, part Part, differ map[string]string) {
	t.Helper()
	doc, err := Documented(part)
	if err != nil {
		t.Fatal(err)
	}
	for name, what := range differ {
		if _, ok := doc[name]; !ok {
			t.Errorf("%s, case %s: loadlab and net/http differ and %s does not say why:\n%s", part, name, DocPath, what)
		}
	}
	for name := range doc {
		if _, ok := differ[name]; !ok {
			t.Errorf("%s: %s documents case %s, but loadlab and net/http agree on it (or it is not a case): remove the row", part, DocPath, name)
		}
	}
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
