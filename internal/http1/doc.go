// Package http1 is loadlab's HTTP/1.1 wire: the code that writes requests,
// reads answers and serves connections itself where net/http costs too
// much on the hot path, on the raw system calls of package rawconn and the
// harvesting poller of package harvest.
//
// The client side is one seam, Client, with two implementations chosen
// once by NewClient: the lean client (plain http:// targets, keep-alive,
// the request written in one system call and the answer parsed in place;
// what it does not do goes to net/http, request by request, in one place)
// and net/http's client. The attack sends every request through it.
// AppendRequest is the request writer the proxy's upstream workers use.
//
// The server side is ServeLean, the lean connection loop: it serves
// HTTP/1.1 keep-alive itself and hands the connections it does not take
// to a net/http server (package serve chooses the server, lean or
// net/http's, once). A handler that is a RawHandler (the proxy) gets each
// request's head as read and makes an http.Request of it only when it
// needs one.
//
// docs/http1.md lists what the lean client and server do and do not do,
// and how each reads a message where it differs from net/http.
package http1
