package markettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// response is what the server would send, before a fault decides how much
// of it reaches the client.
type response struct {
	status int
	header http.Header
	body   []byte
}

// ServeHTTP answers one request, or serves a WebSocket upgrade for
// /<class> as a stream connection. The Server is an http.Handler, so it can
// also be mounted in a server of the caller's own; faults that drop the
// connection, and streams, then need that server to support hijacking.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		panic(http.ErrAbortHandler) // closing: take no new requests
	}
	defer s.inflight.Done()
	if isStreamRequest(r) {
		s.ws.ServeHTTP(w, r)
		return
	}
	now := s.cfg.clock()
	id := s.record(r, now)

	f, latency := s.pickFault(r)
	if latency > 0 {
		if !s.sleep(r, latency) {
			// The client left or the server is closing: cut the
			// connection rather than send a short but well-formed reply.
			s.finish(id, 0, FaultLatency)
			panic(http.ErrAbortHandler)
		}
	}
	var resp response
	if f != nil && f.Kind == FaultStatus {
		resp = gatewayResponse(f.status(), http.StatusText(f.status()))
		if f.RetryAfter > 0 {
			resp.header.Set("Retry-After", retryAfterSeconds(f.RetryAfter))
		}
	} else {
		resp = s.respond(r, now)
	}
	kind := FaultKind(0)
	if f != nil {
		kind = f.Kind
	} else if latency > 0 {
		kind = FaultLatency
	}
	// Record the outcome before sending it, so a client that has seen
	// the reply also sees it in Requests.
	status := resp.status
	switch kind {
	case FaultDrop:
		status = 0
	case FaultMalformed:
		status = http.StatusOK
	}
	s.finish(id, status, kind)
	s.write(w, r, resp, kind)
}

// respond applies the service's own rules and builds its answer.
func (s *Server) respond(r *http.Request, now time.Time) response {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.count(func(st *Stats) { st.Rejected++ })
		return gatewayResponse(http.StatusMethodNotAllowed, "Method Not Allowed")
	}
	if r.Header.Get("token") != s.Token || s.Token == "" {
		s.count(func(st *Stats) { st.Unauthorized++ })
		if s.cfg.textCodes {
			return envelopeResponse("E002", MsgAuthFailed, nil)
		}
		return gatewayResponse(http.StatusUnauthorized, MsgInvalidKey)
	}
	rt, vars := findRoute(routes, r.URL.Path)
	if rt == nil {
		s.count(func(st *Stats) { st.NotFound++ })
		return gatewayResponse(http.StatusNotFound, "Not Found")
	}
	if wait, ok := s.admit(now); !ok {
		s.count(func(st *Stats) { st.RateLimited++ })
		resp := gatewayResponse(http.StatusTooManyRequests, MsgRateLimit)
		resp.header.Set("Retry-After", retryAfterSeconds(wait))
		return resp
	}
	q := r.URL.Query()
	for _, name := range strings.Split(rt.required, ",") {
		if name != "" && strings.TrimSpace(q.Get(name)) == "" {
			return s.refuse(CodeBadRequest, "missing required parameter: "+name)
		}
	}
	if q.Has("codes") {
		n := len(splitCodes(q.Get("codes")))
		if n == 0 {
			return s.refuse(CodeBadRequest, "missing required parameter: codes")
		}
		if n > s.cfg.batchSize {
			return s.refuse(CodePlanLimit, MsgPlanLimit)
		}
	}
	if unknown(rt, q) {
		return s.refuse(CodeNotFound, MsgNotFound)
	}
	if !s.covers(rt, q) {
		s.count(func(st *Stats) { st.Succeeded++ })
		return envelopeResponse(0, rt.msg(), struct{}{})
	}
	data, err := rt.serve(&call{gen: s.gen, class: rt.class, query: q, vars: vars, now: now, cfg: &s.cfg})
	if err != nil {
		if pe, ok := err.(*envelopeError); ok {
			return s.refuse(pe.code, pe.msg)
		}
		return s.refuse(CodeBadRequest, err.Error())
	}
	s.count(func(st *Stats) { st.Succeeded++ })
	return envelopeResponse(0, rt.msg(), data)
}

// refuse answers with an envelope error, as the service does for requests
// it understands but will not serve.
func (s *Server) refuse(code int, msg string) response {
	s.count(func(st *Stats) { st.Rejected++ })
	return envelopeResponse(s.wireCode(code), msg, nil)
}

// envelopeError is a refusal a serve function returns.
type envelopeError struct {
	code int
	msg  string
}

func (e *envelopeError) Error() string { return e.msg }

func paramError(format string, args ...any) error {
	return &envelopeError{code: CodeBadRequest, msg: fmt.Sprintf(format, args...)}
}

// envelopeResponse is a 200 with an envelope; code is a number or, with
// WithTextCodes, an E-number string.
func envelopeResponse(code, msg, data any) response {
	body, err := json.Marshal(struct {
		Code any `json:"code"`
		Msg  any `json:"msg"`
		Data any `json:"data"`
	}{code, msg, data})
	if err != nil {
		return gatewayResponse(http.StatusInternalServerError, "cannot encode response: "+err.Error())
	}
	return response{status: http.StatusOK, header: jsonHeader(), body: body}
}

// gatewayResponse is the {"message": ...} body an API gateway sends
// instead of an envelope.
func gatewayResponse(status int, message string) response {
	body, _ := json.Marshal(map[string]string{"message": message})
	return response{status: status, header: jsonHeader(), body: body}
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json; charset=utf-8"}}
}

// retryAfterSeconds formats a wait as whole seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) string {
	secs := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(secs, 1), 10)
}
