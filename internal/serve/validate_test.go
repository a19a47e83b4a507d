package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

// TestConfigValidateNamesTheFlag: a serving configuration the command
// line got wrong is bad input naming the flag; a good one passes.
func TestConfigValidateNamesTheFlag(t *testing.T) {
	if err := (Config{Listen: "127.0.0.1:0", IdleTimeout: time.Minute, TLS: true, CertOut: "c.pem"}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Listen: "8080"}, "-listen: want host:port"},
		{Config{Listen: "127.0.0.1:99999"}, "-listen: port \"99999\""},
		{Config{MaxConnRequests: -1}, "-max-conn-requests"},
		{Config{IdleTimeout: -time.Second}, "-idle-timeout"},
		{Config{CertOut: "c.pem"}, "-tls-cert: only makes sense with -tls"},
	} {
		err := c.cfg.Validate()
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want bad input saying %q", c.cfg, err, c.want)
		}
	}
}
