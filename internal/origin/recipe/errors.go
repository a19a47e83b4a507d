package recipe

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loadlab/loadlab/internal/badinput"
)

// ValueError carries the offending value (as JSON text, shortened) of a
// recipe error. It is the Err of the *badinput.Error that Parse returns, so
// the message reads "field: problem: value".
type ValueError struct{ Value string }

// Error returns the value.
func (v *ValueError) Error() string { return v.Value }

// maxShownValue caps how much of a bad value an error message repeats.
const maxShownValue = 80

// bad builds the error for field with the raw JSON value at fault.
func bad(field string, raw json.RawMessage, format string, args ...any) *badinput.Error {
	e := &badinput.Error{Field: field, Msg: fmt.Sprintf(format, args...)}
	if raw != nil {
		e.Err = &ValueError{Value: shorten(raw)}
	}
	return e
}

func shorten(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := []rune(b.String())
	if len(s) > maxShownValue {
		return string(s[:maxShownValue]) + "..."
	}
	return string(s)
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
