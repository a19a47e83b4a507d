package main

import (
	"bytes"
	"strings"
)

var crlf2 = []byte("\r\n\r\n")

// headEnd returns the length of the head at the start of b (through its
// blank line), or -1 while the blank line has not arrived.
func headEnd(b []byte) int {
	i := bytes.Index(b, crlf2)
	if i < 0 {
		return -1
	}
	return i + len(crlf2)
}

// plainGET reports whether a request head is a GET without a body: well
// formed fields and no Content-Length or Transfer-Encoding (the only
// requests relayed).
func plainGET(head []byte) bool {
	if !bytes.HasPrefix(head, []byte("GET ")) {
		return false
	}
	ok := true
	if !eachField(head, func(name, _ []byte) {
		if bytes.EqualFold(name, []byte("Content-Length")) || bytes.EqualFold(name, []byte("Transfer-Encoding")) {
			ok = false
		}
	}) {
		return false
	}
	return ok
}

// answerLength returns the whole answer's length (head and body) from a
// response head: HTTP/1.1, a 2xx status other than 204, well-formed
// fields, exactly one Content-Length of decimal digits, no
// Transfer-Encoding and no Connection field (the connection is reused).
// ok is false for anything else, which the relay does not pass on.
func answerLength(head []byte) (n int, ok bool) {
	if len(head) < 13 || !bytes.HasPrefix(head, []byte("HTTP/1.1 2")) || !digits(head[10:12]) ||
		(head[12] != ' ' && head[12] != '\r') || bytes.HasPrefix(head[9:], []byte("204")) {
		return 0, false
	}
	cl, seen, bad := 0, 0, false
	wellFormed := eachField(head, func(name, value []byte) {
		switch {
		case bytes.EqualFold(name, []byte("Transfer-Encoding")), bytes.EqualFold(name, []byte("Connection")):
			bad = true
		case bytes.EqualFold(name, []byte("Content-Length")):
			seen++
			v := bytes.Trim(value, " \t")
			if len(v) == 0 || len(v) > 12 || !digits(v) {
				bad = true
				return
			}
			for _, c := range v {
				cl = cl*10 + int(c-'0')
			}
		}
	})
	if !wellFormed || bad || seen != 1 {
		return 0, false
	}
	return len(head) + cl, true
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// eachField calls f with each header field's name and raw value in a head
// (the first line, of visible characters, skipped, through the blank line
// ending it). It returns false, having stopped, at the first line that is
// not "token: value"
// with a value of visible characters, spaces and tabs (so no folded line).
func eachField(head []byte, f func(name, value []byte)) bool {
	i := bytes.Index(head, []byte("\r\n"))
	if i < 0 || !visible(head[:i]) {
		return false
	}
	for rest := head[i+2:]; len(rest) > 2; {
		j := bytes.Index(rest, []byte("\r\n"))
		if j < 0 {
			return false
		}
		line := rest[:j]
		rest = rest[j+2:]
		k := bytes.IndexByte(line, ':')
		if k < 1 || !token(line[:k]) || !visible(line[k+1:]) {
			return false
		}
		f(line[:k], line[k+1:])
	}
	return true
}

// token reports whether b is an RFC 9110 token (a field name).
func token(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// visible reports whether a field value holds only visible ASCII, spaces
// and tabs.
func visible(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// hopByHop are the request fields a proxy does not pass on (RFC 9110
// 7.6.1), as loadlab proxy removes them.
var hopByHop = [][]byte{[]byte("Connection"), []byte("Proxy-Connection"), []byte("Keep-Alive"),
	[]byte("Proxy-Authenticate"), []byte("Proxy-Authorization"), []byte("Te"), []byte("Trailer"),
	[]byte("Transfer-Encoding"), []byte("Upgrade")}

// rewriteHead appends to dst the request head as a proxy passes it on,
// the header work loadlab proxy does on every request: Host set to the
// upstream's, hop-by-hop fields and the fields named by Connection
// dropped, the client's address appended to X-Forwarded-For (or the field
// added). head must have passed plainGET.
func rewriteHead(dst, head, host, clientIP []byte) []byte {
	i := bytes.Index(head, []byte("\r\n"))
	dst = append(dst, head[:i+2]...)
	dst = append(append(append(dst, "Host: "...), host...), "\r\n"...)
	var conn []byte // Connection's value: the fields it names are dropped too
	xffs := 0       // X-Forwarded-For fields: the address goes after the last
	eachField(head, func(name, value []byte) {
		switch {
		case bytes.EqualFold(name, []byte("Connection")):
			conn = value
		case bytes.EqualFold(name, []byte("X-Forwarded-For")):
			xffs++
		}
	})
	hadXFF := xffs > 0
	eachField(head, func(name, value []byte) {
		if bytes.EqualFold(name, []byte("Host")) || named(conn, name) {
			return
		}
		for _, h := range hopByHop {
			if bytes.EqualFold(name, h) {
				return
			}
		}
		dst = append(append(append(dst, name...), ':'), value...)
		if bytes.EqualFold(name, []byte("X-Forwarded-For")) {
			if xffs--; xffs == 0 {
				dst = append(append(dst, ", "...), clientIP...)
			}
		}
		dst = append(dst, "\r\n"...)
	})
	if !hadXFF {
		dst = append(append(append(dst, "X-Forwarded-For: "...), clientIP...), "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// named reports whether a comma-separated field value (Connection's)
// names field.
func named(list, field []byte) bool {
	for len(list) > 0 {
		var item []byte
		item, list, _ = bytes.Cut(list, []byte(","))
		if bytes.EqualFold(bytes.Trim(item, " \t"), field) {
			return true
		}
	}
	return false
}
