package yamlfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

type pool struct {
	Size    int      `yaml:"size"`
	Timeout Duration `yaml:"checkout_timeout"`
}

type route struct {
	Path  string   `yaml:"path"`
	Ramp  []int    `yaml:"ramp"`
	Inner *pool    `yaml:"pool"`
	Skip  string   `yaml:"-"`
	Tags  []string `yaml:"tags"`
}

type file struct {
	Pools  map[string]*pool `yaml:"pools"`
	Routes []route          `yaml:"routes"`
}

func parse(t *testing.T, src string, o Options) (*Doc, *file, error) {
	t.Helper()
	doc, err := Parse("f.yaml", []byte(src), reflect.TypeFor[file](), o)
	if err != nil {
		return nil, nil, err
	}
	var f file
	return doc, &f, doc.Decode(&f)
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		o         Options
		want      string
	}{
		{"unknown field", "pools:\n  search:\n    size: 1\n    sise: 2\n", Options{}, "f.yaml:4: pools.search.sise: unknown field (known: size, checkout_timeout)"},
		{"unknown in a list", "routes:\n  - path: /a\n  - {path: /b, colour: red}\n", Options{}, "f.yaml:3: routes[1].colour: unknown field (known: path, ramp, pool, tags)"},
		{"a key with a line break stays on one line", "routes:\n- {0\n\n0}", Options{}, `f.yaml:2: routes[0]."0\n0": unknown field`},
		{"unknown in a pointer", "routes:\n  - pool: {sized: 1}\n", Options{}, "f.yaml:2: routes[0].pool.sized: unknown field (known: size, checkout_timeout)"},
		{"skipped field is unknown", "routes:\n  - {Skip: x}\n", Options{}, "routes[0].Skip: unknown field"},
		{"list expected", "routes: {a: 1}\n", Options{}, "f.yaml:1: routes: expected a list, found a mapping"},
		{"mapping expected", "pools: [1]\n", Options{}, "f.yaml:1: pools: expected a mapping (key: value lines), found a list"},
		{"top level", "- 1\n", Options{}, "f.yaml:1: top level: expected a mapping"},
		{"wrong type names the field", "pools:\n  a: {size: many}\n", Options{}, `f.yaml:2: pools.a.size: want a whole number, got text "many"`},
		{"bad duration names the field", "pools:\n  a:\n    checkout_timeout: soon\n", Options{}, `f.yaml:3: pools.a.checkout_timeout: "soon" is not a duration (e.g. 250ms, 5s, 1m30s)`},
		{"negative duration", "pools:\n  a: {checkout_timeout: -1s}\n", Options{}, `f.yaml:2: pools.a.checkout_timeout: duration "-1s" is negative`},
		{"syntax", "pools: [\n", Options{}, "f.yaml:1: did not find"},
		{"alias refused", "pools:\n  a: &p {size: 1}\n  b: *p\n", Options{}, "f.yaml:3: pools.b: YAML aliases (*name) are not supported here"},
		{"alias checked", "pools:\n  a: &p {size: 1, sise: 2}\n  b: *p\n", Options{Aliases: true}, "pools.a.sise: unknown field"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parse(t, c.src, c.o)
			if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one bad-input line with %q", err, c.want)
			}
		})
	}
}

func TestDocLookups(t *testing.T) {
	doc, f, err := parse(t, "pools:\n  a:\n    size: 3\n    checkout_timeout: 0\nroutes:\n  - path: /x\n    ramp: [1, 2]\n", Options{Aliases: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Pools["a"].Size != 3 || f.Pools["a"].Timeout != 0 || f.Routes[0].Ramp[1] != 2 {
		t.Fatalf("decoded %+v %+v", f.Pools["a"], f.Routes)
	}
	if !doc.Has(Path{"pools", "a", "size"}) || doc.Has(Path{"pools", "b"}) || doc.Has(Path{"routes", 3}) {
		t.Error("Has")
	}
	if doc.Line(Path{"routes", 0, "ramp"}) != 7 || doc.Line(Path{"routes", 0, "nope"}) != 6 {
		t.Errorf("lines %d %d", doc.Line(Path{"routes", 0, "ramp"}), doc.Line(Path{"routes", 0, "nope"}))
	}
	err = doc.Errorf(Path{"routes", 0, "path"}, "must be %s", "longer")
	if err.Error() != "f.yaml:6: routes[0].path: must be longer" {
		t.Errorf("Errorf: %v", err)
	}
	empty, err := Parse("e.yaml", []byte("# nothing\n"), reflect.TypeFor[file](), Options{})
	if err != nil || empty.Root != nil {
		t.Errorf("empty: %v %v", empty, err)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, " 250ms ": 250 * time.Millisecond, "1m30s": 90 * time.Second, "0s": 0} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%q = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "5", "5 seconds", "-1s"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, make([]byte, 3000), 0o644)
	if _, err := ReadFile(big, "plan", 2048); !badinput.Is(err) || !strings.Contains(err.Error(), "plan is larger than 2 kB") {
		t.Errorf("big: %v", err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	if _, err := ReadFile(missing, "config", 2048); !badinput.Is(err) || err.Error() != missing+": cannot read config: no such file or directory" {
		t.Errorf("missing: %v", err)
	}
	if data, err := ReadFile(big, "plan", 3000); err != nil || len(data) != 3000 {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}
}
