package httpsyntax

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/loadlab/loadlab/internal/httpcases"
)

// writtenAlike says how what AppendRequest writes for req differs from
// what req.Write writes, both read back by http.ReadRequest ("" when
// they agree). What AppendRequest writes must be one whole request
// without a body, whatever req holds.
func writtenAlike(req *http.Request) string {
	var want bytes.Buffer
	werr := req.Write(&want)
	got, ok := AppendRequest(nil, req)
	if !ok {
		if len(got) != 0 {
			return fmt.Sprintf("declined but appended %q", got)
		}
		return "" // the worker uses req.Write
	}
	if werr != nil {
		return fmt.Sprintf("req.Write refuses (%v) but AppendRequest wrote %q", werr, got)
	}
	br := bufio.NewReader(bytes.NewReader(got))
	g, gerr := http.ReadRequest(br)
	w, wantErr := http.ReadRequest(bufio.NewReader(&want))
	if (gerr != nil) != (wantErr != nil) {
		return fmt.Sprintf("read back: AppendRequest's %q: %v; req.Write's %q: %v", got, gerr, want.String(), wantErr)
	}
	if gerr != nil {
		return ""
	}
	if rest, _ := io.ReadAll(br); len(rest) > 0 || g.ContentLength != 0 || g.TransferEncoding != nil {
		return fmt.Sprintf("%q is not one request without a body (left %q)", got, rest)
	}
	if g.Method != w.Method || g.RequestURI != w.RequestURI || g.Host != w.Host || g.Close != w.Close || !reflect.DeepEqual(g.Header, w.Header) {
		return fmt.Sprintf("AppendRequest %q\nreq.Write    %q", got, want.String())
	}
	return ""
}

// The requests of the shared cases, as a server reads them and the
// proxy forwards them, are written as req.Write writes them.
func TestAppendRequestAgreesOnCases(t *testing.T) {
	differ := map[string]string{}
	for _, c := range httpcases.Requests {
		in, err := http.ReadRequest(bufio.NewReader(bytes.NewReader([]byte(c.Raw))))
		if err != nil || in.ContentLength != 0 || in.URL.Host != "" {
			continue // refused, or forwarded with req.Write (a body)
		}
		out := in.Clone(in.Context())
		out.RequestURI, out.Body, out.Close = "", nil, false
		out.URL.Scheme, out.URL.Host, out.Host = "http", "127.0.0.1:8080", "127.0.0.1:8080"
		if d := writtenAlike(out); d != "" {
			differ[c.Name] = d
		}
	}
	httpcases.Hold(t, httpcases.ProxyWriter, differ)
}

// FuzzAppendRequest: whatever the request, AppendRequest writes what
// req.Write writes, or declines.
func FuzzAppendRequest(f *testing.F) {
	f.Add("GET", "/a b/%2F", "q=1&r", "upstream.example:8080", "X-A", " v\r\n1 ", "Cookie", "a=1", "", false)
	f.Add("POST", "/form", "", "[fe80::1%25en0]:80", "User-Agent", "", "Connection", "close", "x", true)
	f.Add("", "/\x00", "a\r\nb", "bücher.example", "Bad Name", "\xc2\xa0v\xc2\xa0", "X-B", "\x00", "\t", true)
	f.Fuzz(func(t *testing.T, method, path, query, host, k1, v1, k2, v2, ua string, close bool) {
		u := &url.URL{Scheme: "http", Host: host, Path: path, RawQuery: query}
		h := http.Header{k1: {v1}, k2: {v2, v1}}
		if ua != "" {
			h["User-Agent"] = []string{ua}
		}
		req := &http.Request{Method: method, URL: u, Host: host, Header: h, Close: close}
		if d := writtenAlike(req); d != "" {
			t.Fatal(d)
		}
	})
}
