package live

import (
	"crypto/rand"
	"encoding/hex"
)

// newToken is a random token for a view bound beyond loopback.
func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
