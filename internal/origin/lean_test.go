package origin

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs every test of the package twice: against net/http's
// server, then against the default one (the lean HTTP/1.1 server, handing
// over to net/http's what it does not serve). newTestServer picks the
// server, so a new behaviour test is run against both without being
// listed anywhere.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		fmt.Println("== the same tests against the lean server")
		leanTests = true
		code = m.Run()
	}
	os.Exit(code)
}
