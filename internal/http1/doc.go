// Package http1 is the attack's HTTP client: the code that sends the
// attack's requests and reads their answers, on the raw system calls of
// package rawconn and the harvesting poller of package harvest, where
// net/http costs too much on the hot path.
//
// It is one seam, Client, with two implementations chosen once by
// NewClient: the lean client (plain http:// targets, keep-alive, the
// request written in one system call and the answer parsed in place;
// what it does not do goes to net/http, request by request, in one place)
// and net/http's client. The attack sends every request through it.
//
// The bytes of HTTP/1.1 it shares with the lean server (package
// leanserver) and the proxy's upstream pool (field syntax, the request
// head writer) are in package httpsyntax.
//
// docs/http1.md lists what the lean client does and does not do, and how
// it reads a message where it differs from net/http.
package http1
