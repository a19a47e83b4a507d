package httpcases

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Answer is one response read back from a server.
type Answer struct {
	Status int
	Body   string
}

// Conversation is what a server answered to a raw request stream: the
// answers in order, then how the connection ended.
type Conversation struct {
	Answers []Answer
	// End is "closed" when the server closed the connection after its
	// last answer, or says what else happened (bytes that are no
	// response, a timeout, a reset).
	End string
}

// String is a readable form of c for test failures.
func (c Conversation) String() string {
	var b strings.Builder
	for _, a := range c.Answers {
		body := a.Body
		if len(body) > 300 {
			body = body[:300] + "..."
		}
		fmt.Fprintf(&b, "[%d] %s\n", a.Status, body)
	}
	b.WriteString("end: " + c.End)
	return b.String()
}

// Exchange sends raw to the HTTP/1.1 server at addr on a new connection,
// half-closes it, and reads answers until the server closes it or timeout
// passes.
func Exchange(addr, raw string, timeout time.Duration) (Conversation, error) {
	return exchange(addr, raw, timeout, true)
}

// Closing is a request asking the server to close the connection after
// its answer: ended with it, a stream needs no half-close (which a server
// may take for the client going away) to end.
const Closing = "GET /end HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

// ExchangeOpen is Exchange without the half-close: raw should end with
// Closing.
func ExchangeOpen(addr, raw string, timeout time.Duration) (Conversation, error) {
	return exchange(addr, raw, timeout, false)
}

func exchange(addr, raw string, timeout time.Duration, halfClose bool) (Conversation, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return Conversation{}, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	wrote := make(chan struct{})
	go func() { // the server may answer before it has read everything
		defer close(wrote)
		if _, err := io.WriteString(c, raw); err == nil && halfClose {
			_ = c.(*net.TCPConn).CloseWrite()
		}
	}()
	got, rerr := io.ReadAll(c)
	<-wrote
	var conv Conversation
	br := bufio.NewReader(bytes.NewReader(got))
	for {
		if _, err := br.Peek(1); err != nil {
			break
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			rest, _ := io.ReadAll(br)
			conv.End = fmt.Sprintf("not a response: %q", rest)
			return conv, nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		conv.Answers = append(conv.Answers, Answer{resp.StatusCode, string(body)})
		if err != nil {
			conv.End = "cut body: " + err.Error()
			return conv, nil
		}
	}
	var ne net.Error
	switch {
	case rerr == nil:
		conv.End = "closed"
	case errors.As(rerr, &ne) && ne.Timeout():
		conv.End = "no answer or close within " + timeout.String()
	default:
		conv.End = "closed" // a reset after the answers
	}
	return conv, nil
}
