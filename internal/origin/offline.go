package origin

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
)

// DefaultOfflineSize is the size of the stand-in body served for a
// recipe's origin URL in offline mode unless Options says otherwise.
const DefaultOfflineSize = 100 << 10

// standIn returns what the simulator records for an origin URL without
// fetching it: the content of the file mapped to url (Options.OriginFiles),
// or, in offline mode, OfflineSize bytes of random HTML-like text. ok is
// false when the URL is to be fetched for real.
func (s *Simulator) standIn(url string) (f *fetched, ok bool, err error) {
	if path, mapped := s.opts.OriginFiles[url]; mapped {
		body, err := os.ReadFile(path)
		if err != nil {
			return nil, true, fmt.Errorf("reading the local file given for it: %w", err)
		}
		s.opts.Logf("origin: %s not fetched: serving %s (%d bytes)", url, path, len(body))
		return &fetched{status: http.StatusOK, header: http.Header{"Content-Type": {http.DetectContentType(body)}}, body: body}, true, nil
	}
	if !s.opts.Offline {
		return nil, false, nil
	}
	rng := rand.New(rand.NewPCG(s.seed, hashString(url)))
	body := randomText(rng, s.opts.OfflineSize)
	s.opts.Logf("origin: offline: %s not fetched: serving %d bytes of stand-in content", url, len(body))
	return &fetched{status: http.StatusOK, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: body}, true, nil
}
