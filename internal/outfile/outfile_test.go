package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

func TestCheckNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.lll")
	other := filepath.Join(dir, "other.lll")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hard := filepath.Join(dir, "hard.lll")
	sym := filepath.Join(dir, "sym.lll")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in.lll", sym); err != nil {
		t.Fatal(err)
	}
	dotted := filepath.Join(dir, ".", "sub", "..", "in.lll")
	_ = os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, out := range []string{in, hard, sym, dotted} {
		err := CheckNotInput("-output", out, other, in)
		if err == nil || !badinput.Is(err) || !strings.HasPrefix(err.Error(), "-output: "+out+" is ") {
			t.Errorf("output %s, input %s: %v, want refused", out, in, err)
		}
	}
	for _, out := range []string{other, filepath.Join(dir, "new.lll"), "-", ""} {
		if err := CheckNotInput("-output", out, in, "-", filepath.Join(dir, "missing")); err != nil {
			t.Errorf("output %s: %v", out, err)
		}
	}
}

func TestWriteIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("before"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half of it")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "before" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	if err := WriteFile(path, []byte("after")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "after" || fi.Mode().Perm() != 0o600 {
		t.Errorf("file %q mode %v, want \"after\" with the mode it had (0600)", b, fi.Mode().Perm())
	}
	fresh := filepath.Join(dir, "fresh.txt")
	if err := Write(fresh, func(w io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a failed write left %s: %v", fresh, err)
	}
	if err := WriteFile(fresh, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("files left in the folder: %v (temporary files not removed?)", names)
	}
	if err := WriteFile(os.DevNull, []byte("discarded")); err != nil {
		t.Errorf("writing %s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s replaced by a regular file!", os.DevNull)
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir.txt"), nil); err == nil || !strings.Contains(err.Error(), "dir.txt") {
		t.Errorf("missing folder: %v", err)
	}
}
