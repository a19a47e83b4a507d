// Package outfile writes the files a command produces without ever
// destroying what it reads or leaving half a file behind: an output that
// is one of the command's inputs (the same file, also through a hard or
// symbolic link) is refused before anything is opened, and every output is
// written to a temporary file in the same folder, renamed into place only
// once all of it was written. A failed command (a -strict report meeting a
// damaged block, an encoder stopping at a bad row) leaves the file that
// was there before, or none.
package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/badinput"
)

// CheckNotInput refuses out when it is one of inputs: the same file by
// os.SameFile (links followed). field names the output flag in the
// message. Inputs or an output that do not exist (yet) are not compared;
// "-" and "" (stdin, stdout) are skipped.
func CheckNotInput(field, out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	oi, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		ii, err := os.Stat(in)
		if err != nil {
			continue
		}
		if os.SameFile(oi, ii) {
			what := "is the input " + in
			if in != out {
				what = "is the same file as the input " + in
			}
			return badinput.Field(field, "%s %s: writing it would destroy what is being read; write elsewhere", out, what)
		}
	}
	return nil
}

// Write runs write on a temporary file next to path and renames it to
// path once write and the close succeeded; on any error the temporary file
// is removed and path is untouched. A path that exists and is not a
// regular file (/dev/null, a FIFO, a terminal) is written directly. A new
// file gets mode 0644; a replaced one keeps its mode.
func Write(path string, write func(io.Writer) error) (err error) {
	mode := fs.FileMode(0o644)
	if fi, serr := os.Stat(path); serr == nil {
		if !fi.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			return errors.Join(write(f), f.Close())
		}
		mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &fs.PathError{Op: "create", Path: path, Err: err}
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// WriteFile writes b to path as Write does.
func WriteFile(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
