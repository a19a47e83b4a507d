package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestExpandEnv(t *testing.T) {
	env := map[string]string{"ORIGIN_URL": "http://127.0.0.1:9000", "EMPTY": "", "BAD": "a\nb"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := []struct{ in, want, err string }{
		{"upstream: ${ORIGIN_URL}", "upstream: http://127.0.0.1:9000", ""},
		{"upstream: ${ORIGIN_URL:-http://x}", "upstream: http://127.0.0.1:9000", ""},
		{"upstream: ${UNSET:-http://127.0.0.1:8080}/base", "upstream: http://127.0.0.1:8080/base", ""},
		{"upstream: ${EMPTY:-http://d}", "upstream: http://d", ""},
		{"price: $5 and $HOME stay", "price: $5 and $HOME stay", ""},
		{"a: 1\nupstream: ${UNSET}", "", "c.yaml:2: ${UNSET} is not set in the environment"},
		{"upstream: ${BAD}", "", "c.yaml:1: ${BAD} holds a line break"},
	}
	for _, c := range cases {
		got, err := expandEnv([]byte(c.in), "c.yaml", lookup)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) || !badinput.Is(err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestLoadExpandsEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	cfg := "pools:\n  default: {size: 4}\nroutes:\n  - name: all\n    path: /*\n    upstream: ${LOADLAB_TEST_ORIGIN:-http://127.0.0.1:8080}\n"
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil || c.Routes[0].Upstream != "http://127.0.0.1:8080" {
		t.Fatalf("default: %v %+v", err, c)
	}
	t.Setenv("LOADLAB_TEST_ORIGIN", "http://127.0.0.1:9999")
	if c, err = Load(path); err != nil || c.Routes[0].Upstream != "http://127.0.0.1:9999" {
		t.Fatalf("from the environment: %v", err)
	}
	var be *badinput.Error
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(cfg, ":-http://127.0.0.1:8080", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LOADLAB_TEST_ORIGIN", "")
	if _, err = Load(path); !errors.As(err, &be) || be.Line != 6 {
		t.Fatalf("unset: %v", err)
	}
}
