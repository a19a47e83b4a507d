// Package httpcases holds the HTTP/1.1 messages (from RFC 9112 and from
// request-smuggling practice) on which loadlab's hand-written HTTP/1.1 code
// is judged against net/http, and the means to judge: a handler that
// echoes what a server understood, a raw exchange on loopback, and the
// list of documented differences in docs/http1.md. The tests next to each
// parser (the attack's response reader, the lean server's request reader,
// the proxy's request writer and the proxy end to end) use it; it is
// imported by tests only.
package httpcases
