// Package testdns is a DNS server on loopback for tests of name
// resolution (loadlab attack -resolvers, and vegeta's, in the vegeta
// differential tests): it answers A queries for the names it was given,
// over UDP and TCP on one ephemeral port, counts the queries it saw and
// refuses every other name (NXDOMAIN).
package testdns

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// Server answers A queries for its names.
type Server struct {
	Addr    string // ip:port it listens on, UDP and TCP
	names   map[string][4]byte
	mu      sync.Mutex
	queries map[string]int
}

// Start serves names (host name to IPv4 address, e.g. "app.test" to
// "127.0.0.1") on 127.0.0.1 until the test ends.
func Start(t testing.TB, names map[string]string) *Server {
	t.Helper()
	s := &Server{names: map[string][4]byte{}, queries: map[string]int{}}
	for n, ip := range names {
		v4 := net.ParseIP(ip).To4()
		if v4 == nil {
			t.Fatalf("testdns: %q is not an IPv4 address", ip)
		}
		s.names[strings.ToLower(strings.TrimSuffix(n, "."))+"."] = [4]byte(v4)
	}
	// UDP and TCP on one port: the UDP port's TCP twin may be taken, so
	// try a few ports.
	var pc net.PacketConn
	var ln net.Listener
	var err error
	for range 50 {
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if ln, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			break
		}
		pc.Close()
	}
	if err != nil {
		t.Fatalf("testdns: no port free for both UDP and TCP: %v", err)
	}
	s.Addr = pc.LocalAddr().String()
	t.Cleanup(func() { pc.Close(); ln.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out := s.answer(buf[:n]); out != nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serveTCP(c)
		}
	}()
	return s
}

// Queries is how many queries (of any type) asked for name.
func (s *Server) Queries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[strings.ToLower(strings.TrimSuffix(name, "."))+"."]
}

func (s *Server) serveTCP(c net.Conn) {
	defer c.Close()
	for {
		var l [2]byte
		if _, err := io.ReadFull(c, l[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(l[:]))
		if _, err := io.ReadFull(c, msg); err != nil {
			return
		}
		out := s.answer(msg)
		if out == nil {
			return
		}
		c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...))
	}
}

// answer builds the reply to one query, nil when it is not one.
func (s *Server) answer(q []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(q)
	if err != nil {
		return nil
	}
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return nil
	}
	question := qs[0]
	name := strings.ToLower(question.Name.String())
	s.mu.Lock()
	s.queries[name]++
	s.mu.Unlock()
	ip, known := s.names[name]
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	b.StartQuestions()
	b.Question(question)
	b.StartAnswers()
	if known && question.Type == dnsmessage.TypeA {
		b.AResource(dnsmessage.ResourceHeader{Name: question.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: ip})
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}
