package origin

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// admin serves /_admin/*, with origin_simulator's paths and answers.
func (s *Simulator) admin(w http.ResponseWriter, r *http.Request) {
	if s.opts.AdminToken != "" && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="loadlab origin admin"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "missing or wrong bearer token: send \"Authorization: Bearer TOKEN\""})
		return
	}
	if why := s.adminRefusal(r); why != "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": why})
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/_admin/")
	if name == "add_recipe" {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			methodNotAllowed(w, "POST")
			return
		}
		s.addRecipe(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if _, ok := adminGets[name]; ok {
			methodNotAllowed(w, "GET")
			return
		}
	}
	h, ok := adminGets[name]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no admin endpoint " + r.URL.Path})
		return
	}
	h(s, w, r)
}

var adminGets = map[string]func(s *Simulator, w http.ResponseWriter, r *http.Request){
	"status": func(s *Simulator, w http.ResponseWriter, r *http.Request) { writeText(w, "ok!") },
	"current_recipe": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.currentRecipe())
	},
	"routes": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		var names []string
		for _, rt := range s.tab.Load().list {
			names = append(names, rt.name)
		}
		writeText(w, strings.Join(names, "\n"))
	},
	"routes_status": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		var lines []string
		for _, rt := range s.tab.Load().list {
			status, latency := "406", "0"
			if st := rt.cur.Load(); st.stage != nil {
				status, latency = st.stage.Status.String(), st.stage.Latency.String()
			}
			lines = append(lines, rt.name+" "+status+" "+latency)
		}
		writeText(w, strings.Join(lines, "\n"))
	},
	"restart": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		s.Restart()
		writeText(w, "ok!")
	},
	"current_count": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.counts.snapshot())
	},
	"clear_current_count": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		s.counts.clear()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, `{"cleared": "yes"}`)
	},
	"metrics": func(s *Simulator, w http.ResponseWriter, r *http.Request) {
		promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	},
}

func (s *Simulator) authorized(r *http.Request) bool {
	got := r.Header.Get("Authorization")
	want := "Bearer " + s.opts.AdminToken
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// currentRecipe lists the loaded recipes as origin_simulator does.
func (s *Simulator) currentRecipe() []recipe.Echo {
	list := s.tab.Load().list
	out := make([]recipe.Echo, 0, len(list))
	for _, rt := range list {
		out = append(out, rt.rec.Echo)
	}
	return out
}

func (s *Simulator) addRecipe(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxRecipeBytes+1))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, badinput.Errorf("reading the recipe: %v", err))
		return
	}
	if int64(len(data)) > s.opts.MaxRecipeBytes {
		writeJSONError(w, http.StatusRequestEntityTooLarge, badinput.Errorf("recipe larger than the %d-byte limit", s.opts.MaxRecipeBytes))
		return
	}
	if err := s.loadRecipe(r.Context(), data, "add_recipe"); err != nil {
		writeJSONError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusCreated, s.currentRecipe())
}

// apiError is the JSON body of a rejected request.
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	Value string `json:"value,omitempty"`
	Line  int    `json:"line,omitempty"`
}

func writeJSONError(w http.ResponseWriter, status int, err error) {
	e := apiError{Error: err.Error()}
	var be *badinput.Error
	if errors.As(err, &be) {
		e.Field, e.Line = be.Field, be.Line
	}
	var ve *recipe.ValueError
	if errors.As(err, &ve) {
		e.Value = ve.Value
	}
	writeJSON(w, status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"error": %q}`, err.Error()))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeText(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, s)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed; use " + allow})
}
