package leanserver

import "time"

// SetReadDeadline sets the read deadline of the request's connection, for
// http.ResponseController: a handler bounds the time it waits for the
// request body (the proxy's client body timeout). A deadline left in the
// past ends the connection after the answer.
func (w *leanWriter) SetReadDeadline(t time.Time) error {
	return w.c.nc.SetReadDeadline(t)
}
