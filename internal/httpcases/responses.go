package httpcases

import "strings"

// Response is a raw answer a server might send to one request (Method),
// then close the connection.
type Response struct {
	Name   string // kebab-case, used in docs/http1.md
	Method string // of the request answered
	Raw    string
}

// Responses are the response-side cases.
var Responses = []Response{
	{"length", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"length-extra-bytes", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhello"},
	{"length-short", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhello"},
	{"chunked-extensions-trailers", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n6 ; q=\"x\"\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"},
	{"chunked-no-last-chunk", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"},
	{"chunked-no-trailer-end", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"},
	{"cl-te", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"two-lengths-equal", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"},
	{"two-lengths-different", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 2\r\n\r\nhello"},
	{"two-lengths-same-number", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 05\r\n\r\nhello"},
	{"length-plus", "GET", "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello"},
	{"length-minus-zero", "GET", "HTTP/1.1 200 OK\r\nContent-Length: -0\r\n\r\nhello"},
	{"length-list", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello"},
	{"length-space-before-colon", "GET", "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nhello"},
	{"te-chunked-identity", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"te-gzip-chunked", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"te-identity", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\nhello"},
	{"te-xchunked", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"te-casing", "GET", "HTTP/1.1 200 OK\r\ntransfer-encoding: CHUNKED\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"te-two-fields", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"te-http10", "GET", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
	{"chunk-size-overflow", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000005\r\nhello\r\n0\r\n\r\n"},
	{"chunk-size-plus", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n"},
	{"chunk-size-leading-space", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n"},
	{"chunk-size-trailing-space", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n"},
	{"chunk-size-bare-lf", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n"},
	{"chunk-data-no-crlf", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXY0\r\n\r\n"},
	{"chunk-extension-flood", "GET", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("1;"+strings.Repeat("e", 2000)+"\r\nx\r\n", 20) + "0\r\n\r\n"},
	{"obs-fold", "GET", "HTTP/1.1 200 OK\r\nX-Folded: one\r\n two\r\nContent-Length: 5\r\n\r\nhello"},
	{"bare-lf-head", "GET", "HTTP/1.1 200 OK\nContent-Length: 5\n\nhello"},
	{"bare-cr-in-value", "GET", "HTTP/1.1 200 OK\r\nX-A: b\rc\r\nContent-Length: 5\r\n\r\nhello"},
	{"nul-in-value", "GET", "HTTP/1.1 200 OK\r\nX-A: b\x00c\r\nContent-Length: 5\r\n\r\nhello"},
	{"no-colon", "GET", "HTTP/1.1 200 OK\r\nX-A b\r\nContent-Length: 5\r\n\r\nhello"},
	{"continue-then-ok", "GET", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"early-hints-then-ok", "GET", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"many-1xx", "GET", strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n", 50) + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"head-with-length", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"},
	{"head-chunked", "HEAD", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"},
	{"no-content-with-length", "GET", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"},
	{"not-modified-with-length", "GET", "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"},
	{"close-delimited", "GET", "HTTP/1.1 200 OK\r\n\r\nhello world"},
	{"close-delimited-http10", "GET", "HTTP/1.0 200 OK\r\n\r\nhello"},
	{"http10-keep-alive", "GET", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello"},
	{"connection-close-list", "GET", "HTTP/1.1 200 OK\r\nConnection: close, x\r\nContent-Length: 5\r\n\r\nhello"},
	{"connection-close-casing", "GET", "HTTP/1.1 200 OK\r\nConnection: CLOSE\r\nContent-Length: 5\r\n\r\nhello"},
	{"huge-header-line", "GET", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("b", 70<<10) + "\r\nContent-Length: 5\r\n\r\nhello"},
	{"many-headers", "GET", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Many: 0123456789\r\n", 4000) + "Content-Length: 5\r\n\r\nhello"},
	{"status-four-digits", "GET", "HTTP/1.1 2000 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"status-no-space", "GET", "HTTP/1.1 200OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"status-no-reason", "GET", "HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello"},
	{"status-below-100", "GET", "HTTP/1.1 099 Odd\r\nContent-Length: 5\r\n\r\nhello"},
	{"status-plus", "GET", "HTTP/1.1 +20 Odd\r\nContent-Length: 5\r\n\r\nhello"},
	{"status-error", "GET", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy"},
	{"version-letter", "GET", "HTTP/1.x 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"version-2", "GET", "HTTP/2.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"version-minor-9", "GET", "HTTP/1.9 200 OK\r\nContent-Length: 5\r\n\r\nhello"},
	{"garbage", "GET", "hello\r\n\r\n"},
	{"empty", "GET", ""},
}
