package httpsyntax

import (
	"net/http"
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// AppendRequest appends the HTTP/1.1 head of req, a request without a
// body, to b: what req.Write sends for it, without its allocations.
// As req.Write it sends Host from req.Host (or the URL), no User-Agent
// when the header holds an empty one, Go's when it holds none, and
// "Content-Length: 0" for POST, PUT and PATCH; it leaves out the headers
// req.Write leaves out (and those with invalid names) and turns line
// breaks in values into spaces. It returns false, having appended
// nothing, for a request req.Write would change or refuse (a Host to
// rewrite, a control byte in the target): the caller then uses req.Write.
func AppendRequest(b []byte, req *http.Request) ([]byte, bool) {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	return appendHead(b, req.Method, req.URL.RequestURI(), host, req.Close, req.Header, nil, "")
}

// AppendForwarded appends the head AppendRequest sends for a request
// with method, uri, host and header h, except that the fields drop
// reports true for are left out, that X-Forwarded-For is sent as xff
// (when not "") instead of h's, and that a missing User-Agent is sent as
// none (not Go's): the head a proxy forwards, with its rules given by the
// caller rather than written into a copy of h. ok is false as for
// AppendRequest.
func AppendForwarded(b []byte, method, uri, host string, h http.Header, drop func(name string) bool, xff string) ([]byte, bool) {
	return appendHead(b, method, uri, host, false, h, drop, xff)
}

// appendHead is AppendRequest's and AppendForwarded's head: drop nil and
// xff "" for AppendRequest (Go's User-Agent when h has none).
func appendHead(b []byte, method, uri, host string, closeConn bool, h http.Header, drop func(string) bool, xff string) ([]byte, bool) {
	if !plainHost(host) || hasCTL(uri) {
		return b, false
	}
	b = appendRequestLine(b, method, uri, host)
	if ua, ok := h["User-Agent"]; !ok {
		if drop == nil {
			b = append(b, "User-Agent: Go-http-client/1.1\r\n"...)
		}
	} else if len(ua) > 0 && ua[0] != "" && (drop == nil || !drop("User-Agent")) {
		b = appendField(b, "User-Agent", ua[0])
	}
	if closeConn && !httpguts.HeaderValuesContainsToken(h["Connection"], "close") {
		b = append(b, "Connection: close\r\n"...)
	}
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		b = append(b, "Content-Length: 0\r\n"...)
	}
	for k, vs := range h {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		case "X-Forwarded-For":
			if xff != "" {
				continue
			}
		}
		if !httpguts.ValidHeaderFieldName(k) || (drop != nil && drop(k)) {
			continue
		}
		for _, v := range vs {
			b = appendField(b, k, v)
		}
	}
	if xff != "" {
		b = appendField(b, "X-Forwarded-For", xff)
	}
	return append(b, "\r\n"...), true
}

// Field is one field of a request head as a server read it: its
// canonical name and its value, trimmed.
type Field struct{ Key, Value string }

// AppendForwardedFields is AppendForwarded for a request head a server
// handed as it read it (the lean server's RawRequest): method and fields
// in the order received, written by the same rules (the first
// User-Agent, none when there is none).
func AppendForwardedFields(b []byte, method string, fields []Field, uri, host string, drop func(name string) bool, xff string) ([]byte, bool) {
	if !plainHost(host) || hasCTL(uri) {
		return b, false
	}
	b = appendRequestLine(b, method, uri, host)
	ua := false
	for _, f := range fields {
		switch f.Key {
		case "User-Agent":
			if ua {
				continue
			}
			ua = true
			if f.Value == "" {
				continue
			}
		case "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		case "X-Forwarded-For":
			if xff != "" {
				continue
			}
		}
		if !drop(f.Key) {
			b = appendField(b, f.Key, f.Value)
		}
	}
	if xff != "" {
		b = appendField(b, "X-Forwarded-For", xff)
	}
	return append(b, "\r\n"...), true
}

// appendRequestLine appends the request line and the Host field.
func appendRequestLine(b []byte, method, uri, host string) []byte {
	if method == "" {
		method = http.MethodGet
	}
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	return append(b, "\r\n"...)
}

// appendField appends "k: v\r\n", v with line breaks as spaces and
// trimmed of ASCII whitespace (as http.Header.Write).
func appendField(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, ": "...)
	if strings.ContainsAny(v, "\r\n") {
		v = newlineToSpace.Replace(v)
	}
	v = textproto.TrimString(v)
	b = append(b, v...)
	return append(b, "\r\n"...)
}

var newlineToSpace = strings.NewReplacer("\n", " ", "\r", " ")

// plainHost reports whether req.Write sends host as it is: ASCII, valid
// in a Host field, with no IPv6 zone to remove.
func plainHost(host string) bool {
	for i := 0; i < len(host); i++ {
		if c := host[i]; c >= 0x80 || c == '%' {
			return false
		}
	}
	return httpguts.ValidHostHeader(host)
}

// hasCTL reports whether s holds an ASCII control byte.
func hasCTL(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == 0x7f {
			return true
		}
	}
	return false
}
