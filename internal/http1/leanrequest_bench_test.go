package http1

import (
	"testing"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// BenchmarkHeadChecks measures the byte scans the lean client makes on
// every templated request it writes (method, Host, three header names and
// values), to set against a request's whole cost (BenchmarkUnpacedTemplated).
func BenchmarkHeadChecks(b *testing.B) {
	host := []byte("127.0.0.1:8080")
	names := []string{"X-Request-Id", "X-Tenant", "Authorization"}
	values := [][]byte{[]byte("0f8e2c1a-93b4-4c5d-8e7f-1a2b3c4d5e6f"), []byte("big co"), []byte("Bearer abcdefghijklmnopqrstuvwxyz0123456789")}
	ok := true
	for b.Loop() {
		ok = httpsyntax.Token("GET") && validHost(host)
		for i, n := range names {
			ok = ok && httpsyntax.Token(n) && httpsyntax.FieldValue(values[i])
		}
	}
	if !ok {
		b.Fatal("valid head refused")
	}
}
