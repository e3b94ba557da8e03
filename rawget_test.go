package itick_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
)

// script is a handler that records what reaches it and answers every
// request with the next of its replies, repeating the last.
type script struct {
	mu      sync.Mutex
	reqs    []*http.Request
	replies []scriptReply
}

type scriptReply struct {
	status int
	header http.Header
	body   string
}

func newScript(replies ...scriptReply) *script { return &script{replies: replies} }

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Clone(context.Background()))
	rep := s.replies[min(len(s.reqs), len(s.replies))-1]
	s.mu.Unlock()
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rep.status)
	fmt.Fprint(w, rep.body)
}

func (s *script) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

func ok(body string) scriptReply { return scriptReply{status: 200, body: body} }
