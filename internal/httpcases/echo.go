package httpcases

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// Echo answers 200 with a description of the request as the server
// understood it: method, target, Host, version, whether the connection
// closes, framing (length, transfer codings), every header, the body and
// the trailers. Two servers that describe a request alike agree on its
// meaning. A body that cannot be read is answered 400 "body: " and the
// error's kind.
var Echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "body: unreadable")
		return
	}
	_, _ = io.WriteString(w, Describe(r, body))
})

// Describe is Echo's description of r, whose body was body.
func Describe(r *http.Request, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\nhost %q\nclose %v\nlength %d\ncodings %q\n", r.Method, r.RequestURI, r.Proto, r.Host, r.Close, r.ContentLength, r.TransferEncoding)
	writeHeader(&b, "header", r.Header)
	fmt.Fprintf(&b, "body %q\n", body)
	writeHeader(&b, "trailer", r.Trailer)
	return b.String()
}

func writeHeader(b *strings.Builder, what string, h http.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "%s %q: %q\n", what, k, h[k])
	}
}
