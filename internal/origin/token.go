package origin

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// SessionCookie is the cookie an issuing route sets to the token it hands
// out; requiring routes accept it as well as "Authorization: Bearer".
const SessionCookie = "loadlab_session"

// tokens issues and checks the tokens of the recipes' auth routes. A token
// is "<serial>.<mac>": a serial number in hex and the first 16 bytes of
// its HMAC-SHA256 under a key drawn from the seed, so checking one keeps
// no state however many were issued, a token issued before a recipe
// reload stays good, and one made up (or from a simulator with another
// seed) is refused.
type tokens struct {
	key    []byte
	serial atomic.Uint64
}

func newTokens(seed uint64) *tokens {
	var k [16]byte
	binary.LittleEndian.PutUint64(k[:8], seed)
	binary.LittleEndian.PutUint64(k[8:], 0x6c6f61646c616221) // "loadlab!"
	sum := sha256.Sum256(k[:])
	t := &tokens{key: sum[:]}
	// Serials start from the clock so two runs of one seed do not hand out
	// the same tokens.
	t.serial.Store(uint64(time.Now().UnixNano()))
	return t
}

// issue returns a new token.
func (t *tokens) issue() string {
	n := strconv.FormatUint(t.serial.Add(1), 16)
	return n + "." + t.mac(n)
}

func (t *tokens) mac(serial string) string {
	h := hmac.New(sha256.New, t.key)
	h.Write([]byte(serial))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// valid reports whether tok is one this simulator issued.
func (t *tokens) valid(tok string) bool {
	serial, mac, ok := strings.Cut(tok, ".")
	if !ok || serial == "" || len(serial) > 16 || len(mac) != 32 {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(t.mac(serial)))
}

// carried reports whether r carries a valid token: "Authorization: Bearer
// TOKEN" or the session cookie.
func (t *tokens) carried(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		if t.valid(strings.TrimSpace(a[7:])) {
			return true
		}
	}
	if c, err := r.Cookie(SessionCookie); err == nil && t.valid(c.Value) {
		return true
	}
	return false
}
