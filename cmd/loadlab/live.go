package main

import (
	"fmt"
	"io"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/live"
)

// liveLinger is how long the live view stays up after the run, so an open
// page gets the last point.
const liveLinger = 1500 * time.Millisecond

// startLive starts the live view for -ui (nil when addr is empty); a
// malformed or busy address is bad input, before any request is sent.
func startLive(addr, token string, stderr io.Writer) (*live.Server, error) {
	if addr == "" {
		if token != "" {
			return nil, badinput.Field("-ui-token", "goes with -ui")
		}
		return nil, nil
	}
	lv, err := live.Listen(addr, live.Options{Token: token})
	if err != nil {
		return nil, badinput.Field("-ui", "%v", err)
	}
	fmt.Fprintf(stderr, "live view: %s\n", lv.URL())
	return lv, nil
}
