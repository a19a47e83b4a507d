package http1

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestClientKnowsNothingOfResults holds the client's seam: the client
// returns what the wire saw (Exchange) and the attack builds its results
// around it, so no file of the client imports the results package or
// the lean server.
func TestClientKnowsNothingOfResults(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"/internal/results", "/internal/http1/leanserver", "/internal/attack"}
	fset := token.NewFileSet()
	read := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		read++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if strings.HasSuffix(path, bad) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
	if read == 0 {
		t.Fatal("no source file read")
	}
}
