package httpcases

import "strings"

// Request is a raw request stream a client might send on one connection:
// one request, several pipelined, or an attempt to make two parsers
// disagree on where a request ends.
type Request struct {
	Name string // kebab-case, used in docs/http1.md
	Raw  string
}

// next is a plain GET pipelined behind a case: it shows whether the
// server went on reading the connection, and where it thought the
// previous request ended.
const next = "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"

// Requests are the request-side cases. Every one ends in a complete
// request stream: a server that waits for more bytes on one of them
// differs from net/http's.
var Requests = []Request{
	{"get", "GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n"},
	{"post-length", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" + next},
	{"get-with-body", "GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"pipelined", next + "GET /b HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"chunked-extensions-trailers", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value;x\r\nhello\r\n6 ; q=\"a b\"\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n" + next},
	{"chunked-upper-hex", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n" + next},
	{"cl-te", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG" + next},
	{"te-cl", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n1e\r\nGET /smuggled HTTP/1.1\r\nX: y\r\n\r\n0\r\n\r\n" + next},
	{"two-lengths-equal", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"two-lengths-different", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc" + next},
	{"two-lengths-same-number", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 03\r\n\r\nabc" + next},
	{"length-list", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc" + next},
	{"length-plus", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc" + next},
	{"length-minus-zero", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: -0\r\n\r\n" + next},
	{"length-leading-zeros", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 003\r\n\r\nabc" + next},
	{"length-spaces", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length:  3 \r\n\r\nabc" + next},
	{"length-inner-space", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1 2\r\n\r\nabcdefghijkl" + next},
	{"length-empty", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n" + next},
	{"length-overflow", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n" + next},
	{"length-hex", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0x3\r\n\r\nabc" + next},
	{"te-chunked-identity", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-identity", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"te-gzip-chunked", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-unknown", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: foo\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-two-fields", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-casing", "POST /a HTTP/1.1\r\nHost: x\r\ntRANSFER-eNCODING: cHuNkEd\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-tab-before-value", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\tchunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-trailing-space", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked \r\n\r\n3\r\nabc\r\n0\r\n\r\n" + next},
	{"te-space-before-colon", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"te-vertical-tab", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \x0bchunked\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"te-xchunked", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"te-obs-fold", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"te-http10", "POST /a HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"te-underscore", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer_Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"chunk-size-overflow", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000003\r\nabc\r\n0\r\n\r\n" + next},
	{"chunk-size-huge", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\nabc\r\n0\r\n\r\n"},
	{"chunk-size-plus", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+3\r\nabc\r\n0\r\n\r\n" + next},
	{"chunk-size-bare-lf", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n" + next},
	{"chunk-data-no-crlf", "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n" + next},
	{"obs-fold", "GET /a HTTP/1.1\r\nHost: x\r\nX-Folded: one\r\n two\r\n\r\n" + next},
	{"obs-fold-first-line", "GET /a HTTP/1.1\r\n X-Folded: one\r\nHost: x\r\n\r\n" + next},
	{"bare-lf-head", "GET /a HTTP/1.1\nHost: x\n\n" + next},
	{"bare-lf-header", "GET /a HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n" + next},
	{"bare-lf-request-line", "GET /a HTTP/1.1\nHost: x\r\n\r\n" + next},
	{"bare-cr-header", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: b\rc\r\n\r\n" + next},
	{"bare-cr-request-line", "GET /a\rb HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"nul-in-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: b\x00c\r\n\r\n" + next},
	{"nul-in-name", "GET /a HTTP/1.1\r\nHost: x\r\nX\x00A: b\r\n\r\n" + next},
	{"control-in-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: b\x01c\r\n\r\n" + next},
	{"delete-in-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: b\x7fc\r\n\r\n" + next},
	{"vertical-tab-around-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: \x0bb\x0c\r\n\r\n" + next},
	{"unicode-space-around-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: \xc2\xa0b\xc2\x85\r\n\r\n" + next},
	{"obs-text-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A: caf\xc3\xa9 \xff\r\n\r\n" + next},
	{"tab-around-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A:\t b \t\r\n\r\n" + next},
	{"empty-value", "GET /a HTTP/1.1\r\nHost: x\r\nX-A:\r\n\r\n" + next},
	{"no-host", "GET /a HTTP/1.1\r\n\r\n" + next},
	{"empty-host", "GET /a HTTP/1.1\r\nHost:\r\n\r\n" + next},
	{"two-hosts", "GET /a HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n" + next},
	{"empty-host-then-host", "GET /a HTTP/1.1\r\nHost:\r\nHost: evil\r\n\r\n" + next},
	{"host-with-space", "GET /a HTTP/1.1\r\nHost: a b\r\n\r\n" + next},
	{"host-with-slash", "GET /a HTTP/1.1\r\nHost: a/b\r\n\r\n" + next},
	{"connection-close", "GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\n" + next},
	{"http10-close-then-keep-alive", "GET /a HTTP/1.0\r\nConnection: close, keep-alive\r\n\r\n" + next},
	{"http10-keep-alive", "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + next},
	{"http10", "GET /a HTTP/1.0\r\n\r\n" + next},
	{"http11-upper-minor", "GET /a HTTP/1.2\r\nHost: x\r\n\r\n" + next},
	{"http2-line", "GET /a HTTP/2.0\r\nHost: x\r\n\r\n" + next},
	{"http2-preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"},
	{"lowercase-version", "GET /a http/1.1\r\nHost: x\r\n\r\n" + next},
	{"absolute-form", "GET http://x/a?b=1 HTTP/1.1\r\nHost: y\r\n\r\n" + next},
	{"asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"extra-space-in-line", "GET  /a HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"trailing-space-in-line", "GET /a HTTP/1.1 \r\nHost: x\r\n\r\n" + next},
	{"tab-in-line", "GET\t/a\tHTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"space-in-target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"fragment-in-target", "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"lowercase-method", "get /a HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"bad-method", "G(T /a HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"leading-crlf", "\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n" + next},
	{"crlf-after-post", "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc\r\n" + next},
	{"space-before-colon", "GET /a HTTP/1.1\r\nHost: x\r\nX-A : b\r\n\r\n" + next},
	{"no-colon", "GET /a HTTP/1.1\r\nHost: x\r\nX-A b\r\n\r\n" + next},
	{"empty-name", "GET /a HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n" + next},
	{"expect-continue", "POST /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc" + next},
	{"upgrade", "GET /a HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" + next},
	{"huge-header", "GET /a HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 70<<10) + "\r\n\r\n" + next},
	{"endless-headers", "GET /a HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-Many: 0123456789\r\n", 4000) + "\r\n" + next},
	{"many-small-headers", "GET /a HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-Many: 0123456789\r\n", 500) + "\r\n" + next},
}
