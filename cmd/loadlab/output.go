package main

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/loadlab/loadlab/internal/badinput"
)

// withOutput runs write on path ("-": stdout). Output is buffered unless
// unbuffered is set (for -every, so each interval appears as it completes).
func withOutput(path string, stdout io.Writer, unbuffered bool, write func(io.Writer) error) error {
	var out io.Writer = stdout
	var f *os.File
	if path != "-" && path != "" {
		var err error
		if f, err = os.Create(path); err != nil {
			return badinput.Wrap(path, err)
		}
		out = f
	}
	var err error
	if unbuffered {
		err = write(out)
	} else {
		bw := bufio.NewWriter(out)
		err = errors.Join(write(bw), bw.Flush())
	}
	if f != nil {
		err = errors.Join(err, f.Close())
	}
	return err
}
