// Package hangup watches sockets for their peer closing its end, the way
// an event-loop server such as nginx learns of it: one epoll set of its
// own (Linux) holding each socket once, for EPOLLRDHUP only (EPOLLHUP and
// EPOLLERR come with it), edge-triggered. Bytes arriving or leaving raise
// no event, so a peer that stays costs nothing: no system call, goroutine
// or timer per request. The set's descriptor waits in the Go runtime's
// poller like a socket; one goroutine per Watch runs the callbacks.
//
// Elsewhere (or with -tags loadlab_portable) New fails and callers watch
// by reading the socket.
package hangup
