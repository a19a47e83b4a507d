package http1

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

func TestExplainPortExhaustion(t *testing.T) {
	err := fmt.Errorf("dial tcp 0.0.0.0:0->10.0.0.1:443: bind: %w", syscall.EADDRINUSE)
	if s := explain(err); !strings.Contains(s, "ran out of local ports") {
		t.Errorf("explain = %q", s)
	}
}
