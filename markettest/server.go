package markettest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
)

// DefaultToken is the token a Server accepts unless WithToken says otherwise.
const DefaultToken = "markettest-token"

// Envelope codes the simulator answers with when it refuses a request. The
// service's own numbers are not published; its texts are, and the SDK
// matches on those.
const (
	CodeBadRequest = 400 // a required parameter is missing or malformed
	CodePlanLimit  = 3   // E003: more codes than the plan allows
)

// Texts of the service's refusals.
const (
	MsgInvalidKey = "Invalid API key in request"
	MsgPlanLimit  = "E003 exceeding the maximum subscription limit"
	MsgRateLimit  = "API rate limit exceeded"
)

// Server is a stand-in for the service on 127.0.0.1. It serves every
// endpoint the SDK calls with synthetic data from a Generator, checks the
// token, the plan's batch size, required parameters and an optional quota,
// and fails requests on demand. It is safe for concurrent use.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:54321.
	URL string
	// Token is the token the server accepts.
	Token string

	cfg      config
	gen      *Generator
	listener net.Listener
	srv      *http.Server
	done     chan struct{}
	closing  sync.Once
	inflight sync.WaitGroup

	mu      sync.Mutex
	quota   *window
	faults  []*Fault
	random  *randomFaults
	records []Request
	dropped int // records dropped for the limit or by Reset
	stats   Stats
}

type config struct {
	token       string
	seed        uint64
	clock       func() time.Time
	plan        itick.Plan
	batchSize   int
	quota       int
	recordLimit int
}

// Option configures a Server.
type Option func(*config)

// WithToken sets the token the server accepts.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithSeed sets the seed of the generated data; the same seed gives the
// same data for the same question at the same time. The default is 1.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithClock sets where the server reads the time: what "now" is for
// quotes, the latest candle, the news feed and the quota window. The
// default is time.Now. A fixed clock makes every response reproducible.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithPlan sets the plan whose batch size the server enforces. The
// default is itick.PlanBase, the SDK's default.
func WithPlan(p itick.Plan) Option { return func(c *config) { c.plan = p } }

// WithBatchSize sets the most codes one request may carry, overriding the
// plan's (an Enterprise plan's custom size, say).
func WithBatchSize(n int) Option { return func(c *config) { c.batchSize = n } }

// WithQuota refuses, with HTTP 429 and a Retry-After, any request past n in
// a sliding window of 60 seconds on the server's clock. Only requests that
// pass the token check count. 0, the default, means no quota.
func WithQuota(n int) Option { return func(c *config) { c.quota = n } }

// WithRecordLimit bounds how many requests Requests keeps; older ones are
// dropped first. The default is 10000.
func WithRecordLimit(n int) Option { return func(c *config) { c.recordLimit = n } }

// NewServer starts a Server on 127.0.0.1 on a free port. It panics if it
// cannot listen, like httptest.NewServer. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := config{token: DefaultToken, seed: 1, clock: time.Now, plan: itick.PlanBase, recordLimit: 10000}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.batchSize < 1 {
		cfg.batchSize = cfg.plan.BatchSize()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("markettest: cannot listen on 127.0.0.1: %v", err))
	}
	s := &Server{
		URL:      "http://" + ln.Addr().String(),
		Token:    cfg.token,
		cfg:      cfg,
		gen:      NewGenerator(cfg.seed),
		listener: ln,
		done:     make(chan struct{}),
	}
	if cfg.quota > 0 {
		s.quota = newWindow(cfg.quota, time.Minute)
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close.
	return s
}

// Close stops the server, ends requests held by latency or hang faults,
// and waits for every handler to return.
func (s *Server) Close() {
	s.closing.Do(func() {
		close(s.done)
		s.srv.Close()
		s.inflight.Wait()
	})
}

// Client returns an SDK client pointed at the server with its token and
// plan, no client-side rate limit and a small backoff (1 to 10 ms), so
// injected faults are retried fast. opts apply after those and win.
func (s *Server) Client(opts ...itick.Option) (*itick.Client, error) {
	base := []itick.Option{
		itick.WithBaseURL(s.URL),
		itick.WithPlan(s.cfg.plan),
		itick.WithBatchSize(s.cfg.batchSize),
		itick.WithRateLimit(rate.Inf, 0),
		itick.WithBackoff(time.Millisecond, 10*time.Millisecond),
	}
	return itick.NewClient(s.Token, append(base, opts...)...)
}

// Generator returns the generator behind the server's data, so a test can
// compute what the server answers.
func (s *Server) Generator() *Generator { return s.gen }

// Now returns the time on the server's clock.
func (s *Server) Now() time.Time { return s.cfg.clock() }

// Plan returns the plan the server enforces.
func (s *Server) Plan() itick.Plan { return s.cfg.plan }

// BatchSize returns the most codes one request may carry.
func (s *Server) BatchSize() int { return s.cfg.batchSize }

// SetQuota replaces the quota: at most n requests in any 60 seconds; 0
// removes it. The window starts empty.
func (s *Server) SetQuota(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota = nil
	if n > 0 {
		s.quota = newWindow(n, time.Minute)
	}
}

// response is what the server would send, before a fault decides how much
// of it reaches the client.
type response struct {
	status int
	header http.Header
	body   []byte
}

// ServeHTTP answers one request. The Server is an http.Handler, so it can
// also be mounted in a server of the caller's own; faults that drop the
// connection then need that server to support hijacking.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
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
		return gatewayResponse(http.StatusUnauthorized, MsgInvalidKey)
	}
	rt := routeByPath[strings.TrimSuffix(r.URL.Path, "/")]
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
		if strings.TrimSpace(q.Get(name)) == "" {
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
	data, err := rt.serve(&call{gen: s.gen, class: rt.class, query: q, now: now})
	if err != nil {
		if pe, ok := err.(*envelopeError); ok {
			return s.refuse(pe.code, pe.msg)
		}
		return s.refuse(CodeBadRequest, err.Error())
	}
	s.count(func(st *Stats) { st.Succeeded++ })
	var msg any
	if rt.msgOK {
		msg = "ok"
	}
	return envelopeResponse(0, msg, data)
}

// refuse answers with an envelope error, as the service does for requests
// it understands but will not serve.
func (s *Server) refuse(code int, msg string) response {
	s.count(func(st *Stats) { st.Rejected++ })
	return envelopeResponse(code, msg, nil)
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

func envelopeResponse(code int, msg, data any) response {
	body, err := json.Marshal(struct {
		Code int `json:"code"`
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

// admit counts a request against the quota; when it is spent it reports
// how long until the window has room.
func (s *Server) admit(now time.Time) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.quota == nil {
		return 0, true
	}
	return s.quota.admit(now)
}

// write sends resp the way fault kind says: whole, cut, malformed, or
// not at all.
func (s *Server) write(w http.ResponseWriter, r *http.Request, resp response, kind FaultKind) {
	switch kind {
	case FaultDrop:
		s.hijack(w, func(conn net.Conn) { abort(conn) })
		return
	case FaultDropMidBody:
		s.hijack(w, func(conn net.Conn) {
			writeRaw(conn, resp, len(resp.body), resp.body[:len(resp.body)/2])
			abort(conn)
		})
		return
	case FaultTruncate:
		s.hijack(w, func(conn net.Conn) {
			writeRaw(conn, resp, len(resp.body)+64, resp.body)
			conn.Close()
		})
		return
	case FaultMalformed:
		resp = response{status: http.StatusOK, header: jsonHeader(),
			body: []byte(`{"code":0,"msg":null,"data":{"s":"` + "\x00" + `,]`)}
	case FaultHang:
		for k, v := range resp.header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.status)
		http.NewResponseController(w).Flush() //nolint:errcheck // the client may be gone already.
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		// Ending normally would finish the chunked body; cut it instead.
		panic(http.ErrAbortHandler)
	}
	for k, v := range resp.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.body)))
	w.WriteHeader(resp.status)
	if r.Method != http.MethodHead {
		w.Write(resp.body) //nolint:errcheck // the client may be gone already.
	}
}

// hijack takes the connection over for a fault; when the ResponseWriter
// cannot hand it over, the response is cut as an HTTP/2 server would: the
// handler panics with http.ErrAbortHandler.
func (s *Server) hijack(w http.ResponseWriter, f func(net.Conn)) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	buf.Flush() //nolint:errcheck // nothing is buffered yet.
	f(conn)
}

// writeRaw writes a status line and headers declaring contentLength, then body.
func writeRaw(conn net.Conn, resp response, contentLength int, body []byte) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", resp.status, http.StatusText(resp.status))
	for k, vs := range resp.header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n", contentLength)
	b.Write(body)
	conn.Write(b.Bytes()) //nolint:errcheck // the client may be gone already.
}

// abort closes a connection with a reset rather than an orderly close.
func abort(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // best effort.
	}
	conn.Close()
}

// sleep waits d unless the client leaves or the server closes first.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		return false
	}
}
