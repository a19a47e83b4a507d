// Package badinput describes errors caused by bad user input (targets,
// recipes, plans, configs, flags, result files). The CLI maps them to exit
// code 2 and prints them as one line naming the file, line, field and problem.
package badinput

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Error is a problem with something the user gave us. Every field but Msg is
// optional; Error() joins the present ones as "file:line: field: msg".
type Error struct {
	File  string // file name, or "" for flags / stdin
	Line  int    // 1-based line number, or 0 when unknown
	Field string // flag, field or key at fault, e.g. "-rate" or "stages[0].latency"
	Msg   string // what is wrong, phrased for the user
	Err   error  // optional underlying error
}

// Error formats the location and message on one line.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error with only a message.
func Errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Field builds an Error about a named field or flag.
func Field(field, format string, args ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// At builds an Error about a file position.
func At(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Is reports whether err is, or wraps, a bad-input Error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Wrap marks err as bad input coming from file (no-op for nil). An err that
// already is a bad-input Error gets the file filled in if it had none; an
// *fs.PathError about file itself is unwrapped, so the name is said once.
func Wrap(file string, err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := err.(*fs.PathError); ok && pe.Path == file {
		err = pe.Err
	}
	var e *Error
	if errors.As(err, &e) {
		if e.File == "" {
			c := *e
			c.File = file
			return &c
		}
		return err
	}
	return &Error{File: file, Err: err}
}
