package proxy

import (
	"bytes"
	"net/http"
	"time"

	"github.com/loadlab/loadlab/internal/http1/leanserver"
	"github.com/loadlab/loadlab/internal/httpsyntax"
	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// The byte path forwards the common request (a GET or HEAD without a
// body, its target a plain path, served by the lean server: a raw head,
// see leanserver.RawHandler) without the per-request HTTP object model: no
// http.Request and no header map is made of it, the upstream head is
// written from the client's fields as read (appendOutHead, the rules of
// forward.go), and, on a route that neither caches nor falls back, an
// answer of the plain kind is relayed from its head's bytes
// (pool.Worker.RoundTripHead, acceptAnswer) rather than parsed into a
// header map and written again. Any other answer is read as a response
// and answered as the object path answers it. The pool's checkout, the
// request timeout, the client's leaving and the accounting wrap both
// paths alike (serve).

// originField is the field the proxy adds to the answers of upstreams.
var originField = []byte(HeaderOrigin + ": " + OriginUpstream + "\r\n")

// acceptAnswer takes the plain answers whose head the object path would
// pass on as it came but for X-Loadlab-Origin added: no hop-by-hop field,
// no X-Loadlab-Origin of the upstream's own, a Date (else the writer adds
// one) and a Content-Type unless the body is empty (else one is sniffed).
// The fields are well formed (pool.plainAnswer checked them).
func acceptAnswer(_ int, fields []byte, length int64) bool {
	date, ctype := false, length == 0
	for rest := fields; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		name, _, _ := bytes.Cut(rest[:i], []byte(":"))
		rest = rest[i+1:]
		// Names are ASCII (checked): a name of another length is not the
		// one compared, whatever its case.
		switch {
		case httpsyntax.NameIs(name, "Date"):
			date = true
		case httpsyntax.NameIs(name, "Content-Type"):
			ctype = true
		case httpsyntax.NameIs(name, HeaderOrigin):
			return false
		}
		for _, h := range hopByHop {
			if httpsyntax.NameIs(name, h) {
				return false
			}
		}
	}
	return date && ctype
}

// forwardBytes forwards in (a raw head) along rte through wk by the byte
// path. ok is false, nothing sent, when its upstream head cannot be
// written from its fields: the object path then forwards it. Otherwise:
// ans is the answer relayed to w (only when relay: err the error relaying
// its body, ans.Body closed), or resp an answer read as a response (for
// the object path's answer code), or err the exchange's failure.
func forwardBytes(w http.ResponseWriter, hw leanserver.HeadWriter, in inbound, rte *route, wk *pool.Worker, deadline time.Time, relay bool) (resp *http.Response, ans *pool.Answer, ok bool, err error) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	head, ok := appendOutHead((*bp)[:0], in, rte)
	if !ok {
		return nil, nil, false, nil
	}
	var accept pool.AcceptFunc
	if relay {
		accept = acceptAnswer
	}
	resp, ans, err = wk.RoundTripHead(in.context(), in.method(), rte.upstream.Scheme, rte.upstream.Host, head, deadline, accept)
	if ans == nil {
		return resp, nil, true, err
	}
	// The head is sent: the buffer is the body's now. The answer is a
	// 2xx other than 204 to a GET, which the writer takes.
	hw.WriteHeadFields(ans.Status, ans.Fields, originField)
	err = copyBody(w, ans.Body, *bp)
	ans.Body.Close()
	return nil, ans, true, err
}
