package badinput

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWrap(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.bin")
	_, openErr := os.Open(missing)
	tests := []struct {
		name string
		file string
		err  error
		want string
	}{
		{"nil", "a", nil, ""},
		{"plain", "a.yaml", errors.New("bad thing"), "a.yaml: bad thing"},
		{"path error about the file", missing, openErr, missing + ": no such file or directory"},
		{"path error about another file", "plan.yaml", openErr, "plan.yaml: open " + missing + ": no such file or directory"},
		{"bad input without a file", "t.txt", At("", 3, "bad method"), "t.txt:3: bad method"},
		{"bad input with a file", "t.txt", At("other.txt", 3, "bad method"), "other.txt:3: bad method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Wrap(tc.file, tc.err)
			if tc.err == nil {
				if got != nil {
					t.Fatalf("Wrap(nil) = %v", got)
				}
				return
			}
			if !Is(got) || got.Error() != tc.want {
				t.Fatalf("got %q (bad input: %v), want %q", got, Is(got), tc.want)
			}
			if errors.Is(tc.err, fs.ErrNotExist) && !errors.Is(got, fs.ErrNotExist) {
				t.Errorf("%v no longer wraps fs.ErrNotExist", got)
			}
		})
	}
}
