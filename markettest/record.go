package markettest

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Request is what the server recorded of one request it received.
type Request struct {
	// Method is the HTTP method, GET for every call the SDK makes.
	Method string
	// Path is the URL's path, such as "/stock/quotes".
	Path string
	// Query holds the URL's query parameters as sent: region, codes,
	// kType and the rest.
	Query url.Values
	// Header is the request's header with the token's value replaced by
	// "[redacted]", so a test can print it.
	Header http.Header
	// TokenValid says whether the request carried the server's token.
	TokenValid bool
	// Time is when the request arrived, on the server's clock.
	Time time.Time
	// Status is the HTTP status sent: 0 while the request is being
	// answered, and when the connection was dropped before any status.
	Status int
	// Fault is the fault applied to the request, 0 for none.
	Fault FaultKind
}

// Codes returns the codes the request asked for, from code or codes.
func (r Request) Codes() []string {
	if c := r.Query.Get("code"); c != "" {
		return []string{c}
	}
	return splitCodes(r.Query.Get("codes"))
}

// Stats counts what the server did with the requests it received.
type Stats struct {
	Requests     int // every request received
	Succeeded    int // answered with data (a fault may still have kept it from the client)
	Unauthorized int // refused for a wrong or missing token
	RateLimited  int // refused by the quota
	Rejected     int // refused with an envelope error (parameters, batch size) or a bad method
	NotFound     int // for a path the server does not serve
	Faults       int // met an injected or random fault, latency included
}

// record notes an arriving request and returns its sequence number.
func (s *Server) record(r *http.Request, now time.Time) int {
	h := r.Header.Clone()
	valid := h.Get("token") == s.Token && s.Token != ""
	if _, ok := h["Token"]; ok {
		h.Set("token", "[redacted]")
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: h,
		TokenValid: valid, Time: now}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Requests++
	if len(s.records) >= s.cfg.recordLimit && s.cfg.recordLimit > 0 {
		drop := len(s.records) - s.cfg.recordLimit + 1
		s.records = append(s.records[:0], s.records[drop:]...)
		s.dropped += drop
	}
	s.records = append(s.records, rec)
	return s.dropped + len(s.records) - 1
}

// finish fills in how a recorded request was answered.
func (s *Server) finish(id, status int, kind FaultKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := id - s.dropped; i >= 0 && i < len(s.records) {
		s.records[i].Status = status
		s.records[i].Fault = kind
	}
}

func (s *Server) count(f func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.stats)
}

// Requests returns a copy of the requests received, oldest first, up to
// the record limit.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.records)
	for i := range out {
		out[i].Query = maps.Clone(out[i].Query)
		out[i].Header = out[i].Header.Clone()
	}
	return out
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Reset clears the recorded requests and the counters; faults and the
// quota window stay.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped += len(s.records)
	s.records = nil
	s.stats = Stats{}
}
