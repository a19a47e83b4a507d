package origin

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// fetch records an origin's answer once, at load time. The transport
// decompresses it; the recipe's content-encoding decides how it is served.
func (s *Simulator) fetch(ctx context.Context, url string) (*fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "loadlab-origin")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, recipe.MaxBodySize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	if len(body) > recipe.MaxBodySize {
		return nil, fmt.Errorf("body larger than the %d MB limit", recipe.MaxBodySize>>20)
	}
	s.opts.Logf("origin: fetched %s: %s, %d bytes", url, resp.Status, len(body))
	return &fetched{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
