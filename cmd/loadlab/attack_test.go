package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

func readResults(t *testing.T, path string) []results.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := results.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var rs []results.Result
	for {
		var r results.Result
		err := rd.Decode(&r)
		if errors.Is(err, io.EOF) {
			return rs
		}
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
}

func TestAttackCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Query().Get("q")) != 8 || r.Header.Get("X-Run") == "" {
			w.WriteHeader(400)
		}
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.bin")
	var stderr bytes.Buffer
	code := runMain([]string{"attack", "-rate=100/s", "-duration=200ms", "-name=cli", "-header=X-Run: {{uuid}}", "-output=" + out},
		strings.NewReader("GET "+srv.URL+"/s?q={{rand.hex 8}}\n"), io.Discard, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rs := readResults(t, out)
	if len(rs) != 20 {
		t.Fatalf("%d results, want 20", len(rs))
	}
	for _, r := range rs {
		if r.Code != 200 || r.Attack != "cli" {
			t.Fatalf("result %+v", r)
		}
	}
}

func TestAttackBadInput(t *testing.T) {
	cases := []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"-duration=1s"}, "GET http://127.0.0.1:1/\nbad header line\n", "stdin:2: want a \"Name: value\" header"},
		{[]string{"-rate=fast"}, "GET http://127.0.0.1:1/\n", "-rate: bad rate \"fast\""},
		{[]string{"-rate=0"}, "GET http://127.0.0.1:1/\n", "-max-workers"},
		{[]string{"-steps=1,2"}, "GET http://127.0.0.1:1/\n", "-step-duration"},
		{[]string{"-format=xml"}, "", "-format: unknown target format"},
		{[]string{"-duration=1s"}, "", "no targets"},
		{[]string{"-duration=1s"}, "GET http://127.0.0.1:1/{{rand.int 2 1}}\n", "stdin:1: URL: template column 20: rand.int: lower bound 2 is above upper bound 1"},
		{[]string{"-header=nocolon"}, "", "want \"Name: value\""},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		code := runMain(append([]string{"attack"}, c.args...), strings.NewReader(c.stdin), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) || strings.Contains(stderr.String(), "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, code, stderr.String(), c.want)
		}
	}
}

func TestAttackInterruptWritesCompleteFile(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var arrived atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == 5 {
			cancel() // what SIGINT does, with requests in flight
		}
		time.Sleep(30 * time.Millisecond) // the origin's latency
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.bin")
	var stderr bytes.Buffer
	err := runAttack(ctx, []string{"-rate=50", "-output=" + out}, strings.NewReader("GET "+srv.URL+"\n"), io.Discard, &stderr)
	if err != nil {
		t.Fatalf("interrupted attack: %v", err)
	}
	rs := readResults(t, out)
	if len(rs) < 5 {
		t.Fatalf("%d results", len(rs))
	}
	seen := make([]bool, len(rs))
	for _, r := range rs {
		if r.Code != 200 {
			t.Fatalf("request in flight at interrupt not completed: %+v", r)
		}
		if r.Seq >= uint64(len(rs)) || seen[r.Seq] {
			t.Fatalf("request %d missing or twice among %d results", r.Seq, len(rs))
		}
		seen[r.Seq] = true
	}
}
