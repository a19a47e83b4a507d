package live

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// events streams the points as server-sent events: first those after
// Last-Event-ID (every kept point when absent: the history), then each
// new one as it is published, until the run ends or the client leaves.
// Each point is an event whose id is the point's; an "units" event (no
// id, so it does not move Last-Event-ID) precedes the points whenever a
// sampled metric with a unit not yet sent appears. Once the run has
// ended and the client has every point, the answer is 204 No Content,
// which tells a browser to stop reconnecting.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	next := uint64(0)
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if n, err := strconv.ParseUint(id, 10, 64); err == nil {
			next = n + 1
		}
	}
	s.mu.Lock()
	if s.ended && next >= s.nextID {
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.open++
	s.mu.Unlock()
	defer s.leave()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	if _, err := fmt.Fprint(w, "retry: 1000\n\n"); err != nil {
		return
	}
	sentUnits := map[string]string{}
	for {
		s.mu.Lock()
		batch := s.since(next)
		newUnits := map[string]string{}
		for k, u := range s.units {
			if v, ok := sentUnits[k]; !ok || v != u {
				newUnits[k], sentUnits[k] = u, u
			}
		}
		ended, changed := s.ended, s.changed
		s.mu.Unlock()
		if len(newUnits) > 0 {
			js, _ := json.Marshal(newUnits)
			if _, err := fmt.Fprintf(w, "event: units\ndata: %s\n\n", js); err != nil {
				return
			}
		}
		for _, p := range batch {
			js, err := json.Marshal(p)
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", p.ID, js); err != nil {
				return
			}
			next = p.ID + 1
		}
		fl.Flush()
		if ended {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// since copies the kept points from id on (ids are consecutive). Called
// with s.mu held.
func (s *Server) since(id uint64) []Point {
	if len(s.points) == 0 {
		return nil
	}
	i := uint64(0)
	if first := s.points[0].ID; id > first {
		i = min(id-first, uint64(len(s.points)))
	}
	return append([]Point(nil), s.points[i:]...)
}
