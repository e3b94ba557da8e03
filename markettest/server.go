package markettest

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
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
	ws       *wssim.Server
	listener net.Listener
	srv      *http.Server
	done     chan struct{}
	closing  sync.Once
	life     sync.Mutex // orders enter against Close
	closed   bool
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
	ownBatch    bool // batchSize came from WithBatchSize, not from the plan
	quota       int
	quotaWindow time.Duration
	recordLimit int
	regions     map[itick.Region]bool // nil: every region is covered
	textCodes   bool
	klineCap    int       // most candles a K-line request returns; 0: as asked
	firstDate   time.Time // no candle before it; zero: no bound

	streamInterval    time.Duration
	streamPingTimeout time.Duration
	streamMaxSymbols  int
	streamMaxConns    int  // connections the token may hold; 0: no cap
	ownMaxConns       bool // streamMaxConns came from WithStreamMaxConns, not from the plan
	streamLooseCase   bool
	streamRegionInSym bool
}

// Option configures a Server.
type Option func(*config)

// WithToken sets the token the server accepts.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithSeed sets the seed of the generated data; the same seed gives the
// same data for the same question at the same time. The default is 1.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithClock sets where the server reads the time: what "now" is for
// quotes, the latest candle, the news feed, which markets trade (and so
// which products the stream pushes) and the quota window. The default is
// time.Now. A fixed clock makes every response reproducible; a
// ManualClock's Now moves only when the test moves it. Clients from
// Client and OpenEnv read the same clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.clock = now
		}
	}
}

// WithFixedClock stops the server's clock at t: every answer is the one
// for that instant, whenever the test runs. Pick t for what the test
// needs, such as a weekday inside the market's hours for stream pushes of
// its stocks.
func WithFixedClock(t time.Time) Option {
	return WithClock(func() time.Time { return t })
}

// WithClockFrom starts the server's clock at t when NewServer runs, and
// moves it on at the speed of real time: the date and hour are pinned,
// while quota windows and prices move as seconds pass.
func WithClockFrom(t time.Time) Option {
	return func(c *config) {
		start := time.Now()
		c.clock = func() time.Time { return t.Add(time.Since(start)) }
	}
}

// WithPlan sets the plan whose batch size and stream connection cap the
// server enforces (see WithStreamMaxConns). The default is
// itick.PlanBase, the SDK's default.
func WithPlan(p itick.Plan) Option { return func(c *config) { c.plan = p } }

// WithBatchSize sets the most codes one request may carry, overriding the
// plan's (an Enterprise plan's custom size, say).
func WithBatchSize(n int) Option { return func(c *config) { c.batchSize = n } }

// WithQuota refuses, with HTTP 429 and a Retry-After, any request past n in
// a sliding window of 60 seconds (see WithQuotaWindow) on the server's
// clock. Only requests that pass the token check count. 0, the default,
// means no quota.
//
// The SDK waits out a Retry-After of up to a minute in real time, whatever
// the server's clock says; tests of the quota usually give the client
// itick.WithRetries(0) and move a ManualClock instead.
func WithQuota(n int) Option { return func(c *config) { c.quota = n } }

// WithKlineCap makes K-line requests return at most n candles per code,
// however many their limit asks for (up to MaxKlineLimit, beyond which the
// request is refused), as a service that caps limit does: a client must
// then cope with pages shorter than it asked for. 0, the default, returns
// as many as asked.
func WithKlineCap(n int) Option { return func(c *config) { c.klineCap = max(n, 0) } }

// WithFirstDate sets the start of the simulated history: no candle starts
// before t, so a client paging back in time finds that history runs out.
// The default, the zero time, has no bound.
func WithFirstDate(t time.Time) Option { return func(c *config) { c.firstDate = t } }

// WithQuotaWindow sets the span of the quota's sliding window, one minute
// by default, so tests of fleet-wide pacing can run a quota of n calls in a
// few seconds instead of a minute. A span of 0 or less keeps the default.
func WithQuotaWindow(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.quotaWindow = d
		}
	}
}

// WithRecordLimit bounds how many requests Requests keeps; older ones are
// dropped first. The default is 10000; 0 or less keeps every request.
func WithRecordLimit(n int) Option { return func(c *config) { c.recordLimit = n } }

// NewServer starts a Server on 127.0.0.1 on a free port. It panics if it
// cannot listen, like httptest.NewServer. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := config{token: DefaultToken, seed: 1, clock: time.Now, plan: itick.PlanBase, recordLimit: 10000,
		quotaWindow: time.Minute, streamInterval: DefaultStreamInterval}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.recordLimit < 0 {
		cfg.recordLimit = 0
	}
	cfg.ownBatch = cfg.batchSize >= 1
	if !cfg.ownBatch {
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
		s.quota = newWindow(cfg.quota, cfg.quotaWindow)
	}
	s.ws = newStreams(s)
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close.
	return s
}

// Close stops the server, ends requests held by latency or hang faults,
// and waits for every handler to return.
func (s *Server) Close() {
	s.closing.Do(func() {
		s.life.Lock()
		s.closed = true
		s.life.Unlock()
		close(s.done)
		s.srv.Close()
		s.ws.Close() // stream connections are hijacked: srv.Close leaves them
		s.inflight.Wait()
	})
}

// enter counts a handler in, unless the server is closing.
func (s *Server) enter() bool {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// Client returns an SDK client pointed at the server with its token and
// plan, the server's clock (itick.WithClock(s.Now)), no client-side rate
// limit and a small backoff (1 to 10 ms), so injected faults are retried
// fast. opts apply after those and win: a
// WithPlan there sets the client's plan and with it its batch size. Only a
// batch size the server was given with WithBatchSize goes to the client as
// itick.WithBatchSize, which, as in itick.NewClient, outranks any plan; an
// itick.WithBatchSize in opts replaces it.
func (s *Server) Client(opts ...itick.Option) (*itick.Client, error) {
	base := []itick.Option{
		itick.WithBaseURL(s.URL),
		itick.WithClock(s.Now),
		itick.WithPlan(s.cfg.plan),
		itick.WithRateLimit(rate.Inf, 0),
		itick.WithBackoff(time.Millisecond, 10*time.Millisecond),
	}
	if s.cfg.ownBatch {
		base = append(base, itick.WithBatchSize(s.cfg.batchSize))
	}
	return itick.NewClient(s.Token, append(base, opts...)...)
}

// Generator returns the generator behind the server's data, so a test can
// compute what the server answers.
func (s *Server) Generator() *Generator { return s.gen }

// Series returns every candle with from <= Time < to that the server's
// K-line endpoints serve now (its clock, its first date), oldest first:
// what a client paging through the range should put together.
func (s *Server) Series(class Class, region itick.Region, code string, interval itick.Interval, from, to time.Time) []itick.Kline {
	if from.Before(s.cfg.firstDate) {
		from = s.cfg.firstDate
	}
	return s.gen.Series(class, region, code, interval, from, to, s.cfg.clock())
}

// Now returns the time on the server's clock.
func (s *Server) Now() time.Time { return s.cfg.clock() }

// Plan returns the plan the server enforces.
func (s *Server) Plan() itick.Plan { return s.cfg.plan }

// BatchSize returns the most codes one request may carry.
func (s *Server) BatchSize() int { return s.cfg.batchSize }

// SetQuota replaces the quota: at most n requests in any quota window (60
// seconds unless WithQuotaWindow set another); 0 removes it. The window starts empty.
func (s *Server) SetQuota(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota = nil
	if n > 0 {
		s.quota = newWindow(n, s.cfg.quotaWindow)
	}
}
