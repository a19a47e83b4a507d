package leanserver

import (
	"bytes"
	"errors"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/httpsyntax"
	"golang.org/x/net/http/httpguts"
)

// leanReq is a request head parsed by parseHead.
type leanReq struct {
	method, target string
	url            *url.URL // set by the caller
	plain          bool     // the target is plain (see plainTarget), set by the caller
	minor          int      // HTTP/1.minor
	// fields are the head's fields as they go into the header (Host
	// aside, a repeated Content-Length once), in the order received;
	// header is made of them by fillHeader, when a handler needs it.
	fields        []httpsyntax.Field
	header        http.Header
	host          string
	contentLength int64
	close         bool // the client asked to close (or HTTP/1.0 without keep-alive)
}

// headError is a request the lean server does not take: it hands the
// connection to net/http's server (status is what the lean server would
// answer itself).
type headError struct {
	status int
	msg    string
}

func (e *headError) Error() string { return e.msg }

var errNeedMore = errors.New("incomplete request head")

// maxHead is the largest request head (request line and headers) accepted.
const maxHead = 64 << 10

// parseHead parses a request head at the start of b, with its header. It
// returns the bytes the head took, errNeedMore when b does not hold a
// whole head yet, or a *headError for a request the lean server does not
// take.
func parseHead(b []byte) (*leanReq, int, error) {
	r, n, err := parseHeadInto(b, nil)
	if err == nil {
		r.fillHeader(nil)
	}
	return r, n, err
}

// parseHeadInto is parseHead without the header: the fields are appended
// to fields[:0] (reused from one request to the next), and the header is
// made by fillHeader only when a handler needs it.
func parseHeadInto(b []byte, fields []httpsyntax.Field) (*leanReq, int, error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) >= maxHead {
			return nil, 0, &headError{http.StatusRequestHeaderFieldsTooLarge, "request head too large"}
		}
		return nil, 0, errNeedMore
	}
	n := end + 4
	// Every string of the request (method, target, field names and
	// values) is a piece of one copy of the head: one allocation, not one
	// per field (see sub).
	hs := string(b[:end])
	lines := b[:end]
	i := bytes.Index(lines, []byte("\r\n"))
	line := lines
	rest := []byte(nil)
	if i >= 0 {
		line, rest = lines[:i], lines[i+2:]
	}
	r := &leanReq{contentLength: 0}
	sp1 := bytes.IndexByte(line, ' ')
	sp2 := bytes.LastIndexByte(line, ' ')
	if sp1 <= 0 || sp2 <= sp1+1 {
		return nil, n, &headError{http.StatusBadRequest, "malformed request line"}
	}
	r.method, r.target = hs[:sp1], hs[sp1+1:sp2]
	switch string(line[sp2+1:]) {
	case "HTTP/1.1":
		r.minor = 1
	case "HTTP/1.0":
		r.minor = 0
	default:
		return nil, n, &headError{http.StatusHTTPVersionNotSupported, "unsupported protocol " + strconv.Quote(string(line[sp2+1:]))}
	}
	if !httpsyntax.Token(line[:sp1]) || bytes.IndexByte(line[sp1+1:sp2], ' ') >= 0 {
		return nil, n, &headError{http.StatusBadRequest, "malformed request line"}
	}
	if r.target == "" || r.target[0] != '/' { // "*" and absolute-form: net/http's
		return nil, n, &headError{http.StatusBadRequest, "request target must be a path"}
	}
	r.fields = fields[:0]
	sawCL, sawHost, keepAlive, closing := false, false, false, false
	var cl []byte
	for len(rest) > 0 {
		var l []byte
		if j := bytes.Index(rest, []byte("\r\n")); j >= 0 {
			l, rest = rest[:j], rest[j+2:]
		} else {
			l, rest = rest, nil
		}
		c := bytes.IndexByte(l, ':')
		if c <= 0 || !httpsyntax.Token(l[:c]) {
			return nil, n, &headError{http.StatusBadRequest, "malformed header line"}
		}
		v := httpsyntax.TrimOWS(l[c+1:])
		if !httpsyntax.FieldValue(v) {
			return nil, n, &headError{http.StatusBadRequest, "malformed header value"}
		}
		key, ok := commonKeys[string(l[:c])]
		if !ok {
			key = textproto.CanonicalMIMEHeaderKey(sub(hs, b, l[:c]))
		}
		val := sub(hs, b, v)
		switch key {
		case "Content-Length":
			// As net/http: digits only; several fields only with the
			// same text, kept once.
			if sawCL {
				if !bytes.Equal(v, cl) {
					return nil, n, &headError{http.StatusBadRequest, "bad Content-Length"}
				}
				continue
			}
			length, ok := httpsyntax.ContentLength(v)
			if !ok {
				return nil, n, &headError{http.StatusBadRequest, "bad Content-Length"}
			}
			sawCL, cl, r.contentLength = true, v, length
		case "Transfer-Encoding":
			return nil, n, &headError{http.StatusNotImplemented, "Transfer-Encoding not supported by the lean server"}
		case "Expect":
			return nil, n, &headError{http.StatusNotImplemented, "Expect not supported by the lean server"}
		case "Upgrade":
			return nil, n, &headError{http.StatusNotImplemented, "Upgrade not supported by the lean server"}
		case "Host": // in r.host, not in the header (as net/http)
			if sawHost || !httpguts.ValidHostHeader(val) {
				return nil, n, &headError{http.StatusBadRequest, "more than one Host, or a malformed one"}
			}
			sawHost, r.host = true, val
			continue
		case "Connection":
			for _, tok := range bytes.Split(v, []byte(",")) {
				tok = httpsyntax.TrimOWS(tok)
				if bytes.EqualFold(tok, []byte("close")) {
					closing = true
				} else if bytes.EqualFold(tok, []byte("keep-alive")) {
					keepAlive = true
				}
			}
		}
		r.fields = append(r.fields, httpsyntax.Field{Key: key, Value: val})
	}
	if r.minor == 1 && !sawHost {
		return nil, n, &headError{http.StatusBadRequest, "missing Host"}
	}
	// As net/http: HTTP/1.0 closes unless asked to keep alive; "close"
	// wins in any order.
	r.close = closing || (r.minor == 0 && !keepAlive)
	return r, n, nil
}

// fillHeader makes r's header of its fields, in hdr (cleared first; nil:
// a new map). The values share one backing array, each value slice full
// (an append by a handler copies it).
func (r *leanReq) fillHeader(hdr http.Header) {
	if hdr == nil {
		hdr = make(http.Header, len(r.fields))
	}
	clear(hdr)
	r.header = hdr
	vals := make([]string, 0, len(r.fields))
	for _, f := range r.fields {
		if prior, ok := hdr[f.Key]; ok {
			hdr[f.Key] = append(prior, f.Value)
		} else {
			vals = append(vals, f.Value)
			hdr[f.Key] = vals[len(vals)-1 : len(vals) : len(vals)]
		}
	}
}

// sub is the piece of hs (a copy of b's start) that x (a piece of b's
// start) holds: a slice's offset in the array it shares with b is the
// difference of their capacities.
func sub(hs string, b, x []byte) string {
	at := cap(b) - cap(x)
	return hs[at : at+len(x)]
}

// commonKeys maps the field names most requests carry, in their canonical
// and lower-case spellings, to the canonical name: looking one up
// allocates nothing.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Accept", "Accept-Charset", "Accept-Encoding", "Accept-Language", "Authorization",
		"Cache-Control", "Connection", "Content-Length", "Content-Type", "Cookie", "Expect",
		"Host", "If-Modified-Since", "If-None-Match", "Keep-Alive", "Origin", "Pragma",
		"Range", "Referer", "Te", "Transfer-Encoding", "Upgrade", "User-Agent",
		"X-Forwarded-For", "X-Forwarded-Proto", "X-Request-Id",
	} {
		m[k] = k
		m[strings.ToLower(k)] = k
	}
	return m
}()
