package main

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/outfile"
)

// withOutput runs write on path ("-": stdout), refusing a path that is one
// of inputs (exit 2, nothing opened). A file is written through a
// temporary file renamed into place only when write succeeded, so a failed
// command leaves the previous file, or none (internal/outfile). Output is
// buffered unless unbuffered is set (for -every, so each interval appears
// as it completes: the file is then written in place, as it goes).
func withOutput(path string, inputs []string, stdout io.Writer, unbuffered bool, write func(io.Writer) error) error {
	if err := outfile.CheckNotInput("-output", path, inputs...); err != nil {
		return err
	}
	run := func(out io.Writer) error {
		if unbuffered {
			return write(out)
		}
		bw := bufio.NewWriter(out)
		return errors.Join(write(bw), bw.Flush())
	}
	if path == "-" || path == "" {
		return run(stdout)
	}
	if !unbuffered {
		err := outfile.Write(path, run)
		if err != nil && !badinput.Is(err) {
			var pe *os.PathError
			if errors.As(err, &pe) && pe.Path == path {
				return badinput.Wrap(path, err)
			}
		}
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return badinput.Wrap(path, err)
	}
	return errors.Join(run(f), f.Close())
}
