package results

import "time"

// Version is the current stream format version.
const Version = 1

// magic opens every loadlab results stream.
const magic = "LOADLAB\n"

// blockMagic opens every block.
const blockMagic = "LLB1"

// Meta describes a stream; it is stored as JSON in the file header.
type Meta struct {
	Version   int               `json:"version"`
	Created   time.Time         `json:"created"`
	Generator string            `json:"generator,omitempty"` // e.g. "loadlab v0.1.0"
	Command   []string          `json:"command,omitempty"`   // command line that produced it
	Attack    string            `json:"attack,omitempty"`    // default attack name
	Rate      string            `json:"rate,omitempty"`      // schedule as given by the user
	Labels    map[string]string `json:"labels,omitempty"`    // free-form (step names, variant, ...)
}
