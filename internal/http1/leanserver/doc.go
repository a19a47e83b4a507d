// Package leanserver is loadlab's lean HTTP/1.1 server: the connection
// loop that serves keep-alive requests itself, on the raw system calls of
// package rawconn, where net/http's server costs too much per request
// (the origin, the proxy's front, serve's lean mode).
//
// Serve reads each request head from a reused buffer (field syntax from
// package httpsyntax), answers through a ResponseWriter that writes the
// answer in one system call, and hands the connections it does not take
// (an Upgrade, a Transfer-Encoding, an Expect) to a net/http server,
// bytes already read included (Replay). A handler that is a RawHandler
// (the proxy) gets each request's head as read (RawRequest) and makes an
// http.Request of it only when it needs one.
//
// docs/http1.md lists what the lean server does and does not do, and how
// it reads a request where it differs from net/http.
package leanserver
