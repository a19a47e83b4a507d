package hostcheck

import "testing"

func TestLocal(t *testing.T) {
	for _, h := range []string{"127.0.0.1:8080", "[::1]:80", "::1", "localhost", "LOCALHOST:1", "app.localhost:3000", "10.1.2.3", "", "origin.test:80"} {
		if !Local(h, []string{"Origin.test"}) {
			t.Errorf("%q refused", h)
		}
	}
	for _, h := range []string{"evil.example", "evil.example:80", "localhost.evil.example", "127.0.0.1.nip.io:8080", "origin.test.evil"} {
		if Local(h, []string{"origin.test"}) {
			t.Errorf("%q accepted", h)
		}
	}
}
