package pool

import "net/http"

// Worker is one upstream connection slot: an HTTP/1.1 transport that keeps
// at most one idle keep-alive connection per upstream host. A caller holds
// it from checkout until the response body is read and closed.
type Worker struct {
	overflow bool
	tr       *http.Transport
}

// RoundTrip sends req over the worker's connection, dialling if it has none.
func (w *Worker) RoundTrip(req *http.Request) (*http.Response, error) {
	return w.tr.RoundTrip(req)
}

// Overflow reports whether w is an overflow worker (dismissed after use).
func (w *Worker) Overflow() bool { return w.overflow }

// close drops the worker's idle connections.
func (w *Worker) close() { w.tr.CloseIdleConnections() }
