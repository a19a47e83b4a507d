package flow

import (
	"net/http"
	"strings"
	"time"
)

// takeCookies keeps the answer's Set-Cookie fields in the session's jar:
// one site per flow, so every cookie goes with every later request of the
// session (Domain and Path are not matched); Max-Age ≤ 0 or a past Expires
// removes one.
func (ss *session) takeCookies(fields []byte) {
	eachField(fields, "Set-Cookie", func(v []byte) bool {
		if c, err := http.ParseSetCookie(string(v)); err == nil {
			gone := c.MaxAge < 0 || !c.Expires.IsZero() && c.Expires.Before(time.Now())
			ss.setCookie(c.Name, c.Value, gone)
		}
		return true
	})
}

func (ss *session) setCookie(name, value string, gone bool) {
	for i, c := range ss.jar {
		if c.name == name {
			if gone {
				ss.jar = append(ss.jar[:i], ss.jar[i+1:]...)
			} else {
				ss.jar[i].value = value
			}
			return
		}
	}
	if !gone {
		ss.jar = append(ss.jar, cookie{name, value})
	}
}

// cookieHeader is the Cookie header of the session's jar.
func (ss *session) cookieHeader() string {
	var b strings.Builder
	for i, c := range ss.jar {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.name)
		b.WriteByte('=')
		b.WriteString(c.value)
	}
	return b.String()
}
