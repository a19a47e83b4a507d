package http1

import "time"

// Exchange is what the wire saw of one request: the client fills it and
// knows nothing of what the attack makes of it (the attack builds its
// results.Result around it).
type Exchange struct {
	// Due is the request's due time (zero when unpaced), set by the
	// caller: the client hands it to Options.OnSent with Sent.
	Due time.Time
	// Sent is when the request went out.
	Sent time.Time
	// Latency runs from Sent to the answer read whole (to the kernel's
	// receive time of its last bytes, when known).
	Latency time.Duration
	// Code is the answer's status code, 0 when none came.
	Code uint16
	// BytesOut and BytesIn are the request's and the answer's body bytes.
	BytesOut, BytesIn uint64
	// Body is the answer's body, as far as Options.MaxBody keeps it.
	Body []byte
	// Fields are the answer's header fields, one "Name: value\n" line
	// each as received, when Session.KeepFields asks for them.
	Fields []byte
	// Error is the failure's text, "" on success (a non-2xx answer
	// carries its status text).
	Error string
}
