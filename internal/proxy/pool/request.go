package pool

import (
	"net/http"
	"strings"
)

// appendRequest appends the HTTP/1.1 head of req, a request without a
// body, to b: what req.Write sends for it, without its allocations.
// As req.Write it sends Host from req.Host (or the URL), no User-Agent
// when the header holds an empty one, Go's when it holds none, and
// "Content-Length: 0" for POST, PUT and PATCH; it leaves out the headers
// req.Write leaves out and turns line breaks in values into spaces.
func appendRequest(b []byte, req *http.Request) []byte {
	b = append(b, req.Method...)
	b = append(b, ' ')
	b = append(b, req.URL.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	b = append(b, host...)
	b = append(b, "\r\n"...)
	if ua, ok := req.Header["User-Agent"]; !ok {
		b = append(b, "User-Agent: Go-http-client/1.1\r\n"...)
	} else if len(ua) > 0 && ua[0] != "" {
		b = appendField(b, "User-Agent", ua[0])
	}
	if req.Close {
		b = append(b, "Connection: close\r\n"...)
	}
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		b = append(b, "Content-Length: 0\r\n"...)
	}
	for k, vs := range req.Header {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		for _, v := range vs {
			b = appendField(b, k, v)
		}
	}
	return append(b, "\r\n"...)
}

// appendField appends "k: v\r\n", v trimmed and with line breaks as
// spaces (as http.Header.Write).
func appendField(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ": "...)
	if strings.ContainsAny(v, "\r\n") {
		v = newlineToSpace.Replace(v)
	}
	v = strings.TrimSpace(v)
	b = append(b, v...)
	return append(b, "\r\n"...)
}

var newlineToSpace = strings.NewReplacer("\n", " ", "\r", " ")
