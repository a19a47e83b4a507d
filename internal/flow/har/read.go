package har

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Recording is the part of a HAR file a flow is made from: its entries,
// sorted by start time.
type Recording struct {
	Entries []Entry
}

// Entry is one recorded request and its answer.
type Entry struct {
	Index    int // position in log.entries, for messages
	Start    time.Time
	Duration time.Duration // the entry's total time
	Method   string
	URL      *url.URL
	RawURL   string   // the URL as recorded
	Headers  []Header // request headers, in recorded order
	Body     string   // request body (postData.text)
	Status   int
	RespHdr  []Header // response headers
	MIME     string   // response content type, lower case, without parameters
	RespBody []byte   // response body, base64 decoded; nil when not recorded
	Resource string   // Chrome's _resourceType (document, xhr, fetch, image, ...), or ""
}

// Header is one header line.
type Header struct{ Name, Value string }

// MaxEntries caps the entries read from one recording.
const MaxEntries = 100_000

type harFile struct {
	Log *struct {
		Entries *[]json.RawMessage `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	StartedDateTime string   `json:"startedDateTime"`
	Time            *float64 `json:"time"`
	ResourceType    string   `json:"_resourceType"`
	Request         *struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			Text string `json:"text"`
		} `json:"postData"`
	} `json:"request"`
	Response *struct {
		Status  int         `json:"status"`
		Headers []harHeader `json:"headers"`
		Content struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Read parses a HAR file. Errors are *badinput.Error values naming the
// field at fault (the caller adds the file name): not JSON (with the
// line), not a HAR (no log.entries), no entries, an entry without a
// request, a URL or a start time.
func Read(data []byte) (*Recording, error) {
	var f harFile
	if err := json.Unmarshal(data, &f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &badinput.Error{Line: lineOf(data, se.Offset), Msg: "not JSON: " + se.Error()}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &badinput.Error{Line: lineOf(data, te.Offset), Msg: "not a HAR file: " + te.Field + " is a JSON " + te.Value + " (want a browser's \"Save all as HAR\" export)"}
		}
		return nil, &badinput.Error{Msg: "not JSON: " + err.Error()}
	}
	if f.Log == nil || f.Log.Entries == nil {
		return nil, badinput.Field("log.entries", "missing: not a HAR file (want a browser's \"Save all as HAR\" export)")
	}
	raw := *f.Log.Entries
	if len(raw) == 0 {
		return nil, badinput.Field("log.entries", "no entries: the recording holds no requests")
	}
	if len(raw) > MaxEntries {
		return nil, badinput.Field("log.entries", "%d entries, more than the %d this reads", len(raw), MaxEntries)
	}
	rec := &Recording{Entries: make([]Entry, 0, len(raw))}
	for i, r := range raw {
		e, err := readEntry(i, r)
		if err != nil {
			return nil, err
		}
		rec.Entries = append(rec.Entries, e)
	}
	sort.SliceStable(rec.Entries, func(i, j int) bool { return rec.Entries[i].Start.Before(rec.Entries[j].Start) })
	return rec, nil
}

func readEntry(i int, raw json.RawMessage) (Entry, error) {
	field := fmt.Sprintf("log.entries[%d]", i)
	var he harEntry
	if err := json.Unmarshal(raw, &he); err != nil {
		return Entry{}, badinput.Field(field, "not a HAR entry: %v", err)
	}
	e := Entry{Index: i, Resource: strings.ToLower(he.ResourceType)}
	if he.Request == nil {
		return e, badinput.Field(field+".request", "missing")
	}
	t, err := time.Parse(time.RFC3339Nano, he.StartedDateTime)
	if err != nil {
		return e, badinput.Field(field+".startedDateTime", "want an ISO 8601 time such as 2026-01-02T15:04:05.123Z: %q", short(he.StartedDateTime))
	}
	e.Start = t
	if he.Time != nil && *he.Time > 0 && *he.Time < 1e9 {
		e.Duration = time.Duration(*he.Time * float64(time.Millisecond))
	}
	e.Method = strings.ToUpper(strings.TrimSpace(he.Request.Method))
	if e.Method == "" {
		e.Method = "GET"
	}
	if !token(e.Method) {
		return e, badinput.Field(field+".request.method", "not an HTTP method: %q", short(he.Request.Method))
	}
	u, err := url.Parse(he.Request.URL)
	if err != nil || u.Scheme == "" {
		return e, badinput.Field(field+".request.url", "not a URL: %q", short(he.Request.URL))
	}
	e.URL, e.RawURL = u, he.Request.URL
	for _, h := range he.Request.Headers {
		e.Headers = append(e.Headers, Header(h))
	}
	if he.Request.PostData != nil {
		e.Body = he.Request.PostData.Text
	}
	if r := he.Response; r != nil {
		e.Status = r.Status
		for _, h := range r.Headers {
			e.RespHdr = append(e.RespHdr, Header(h))
		}
		e.MIME = mediaType(r.Content.MimeType)
		if e.MIME == "" {
			e.MIME = mediaType(headerValue(e.RespHdr, "Content-Type"))
		}
		if r.Content.Text != "" {
			e.RespBody = []byte(r.Content.Text)
			if strings.EqualFold(r.Content.Encoding, "base64") {
				if b, err := base64.StdEncoding.DecodeString(r.Content.Text); err == nil {
					e.RespBody = b
				}
			}
		}
	}
	return e, nil
}

// mediaType is a content type's media type in lower case.
func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// headerValue is the first value of header name in hs, or "".
func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// token reports whether s is an RFC 9110 token (a method).
func token(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return s != ""
}

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return bytes.Count(data[:off], []byte("\n")) + 1
}
