// Package wssim simulates iTick's WebSocket service for tests and offline
// examples: the connect message, authentication from the token header,
// subscribe and unsubscribe acknowledgements and errors, pong replies and
// synthetic pushes of quotes, ticks, depth books and candles, with faults
// (dropped connections, unanswered pings, refused authentication) that a
// test switches on and off while clients are connected.
//
// A Server is an http.Handler serving every asset class at /<class>; mount
// it anywhere, for example under httptest.NewServer.
package wssim

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Defaults of a Config's zero fields.
const (
	DefaultPushInterval = 100 * time.Millisecond
	DefaultPingTimeout  = time.Minute
	DefaultMaxSymbols   = 500
	DefaultDepthLevels  = 5
)

// The service's messages, as its public documentation shows them.
const (
	MsgConnected  = "Connected Successfully"
	MsgAuthOK     = "authenticated"
	MsgAuthFailed = "auth failed"
	MsgLimit      = "exceeding the maximum subscription limit"
	MsgBadAction  = "cannot be resolved action"
	// MsgNotFound refuses a subscription to a product Config.Exists
	// does not know: the service's E001 text.
	MsgNotFound = "E001 not found this produce"
	// MsgConnLimit is the reason of the close that drops a token's
	// oldest connection when a newer one passes Config.MaxConns.
	MsgConnLimit = "exceeding the maximum connection limit"
)

// Classes are the asset classes served, each at /<class>.
var Classes = []string{"stock", "forex", "indices", "crypto", "future", "fund"}

// Config sets up a Server. The zero Config accepts any non-empty token and
// pushes a seed-0 random walk every 100 ms.
type Config struct {
	// Token is the only token accepted; "" accepts any non-empty token.
	Token string
	// Source produces the pushed values; nil means NewRandomWalk(Seed).
	Source Source
	// Seed seeds the default Source.
	Seed uint64
	// PushInterval is the pause between two rounds of pushes on a
	// connection; each round pushes every subscribed type of every
	// subscribed product once. 0 means DefaultPushInterval; a negative
	// value sends rounds back to back, as fast as the client reads.
	PushInterval time.Duration
	// PingTimeout is how long a connection may stay silent before the
	// server drops it. 0 means DefaultPingTimeout.
	PingTimeout time.Duration
	// MaxConns caps the connections one token holds at once, over every
	// asset class, as the plan does on the service (SERVICE-EXTRA.md): a
	// connection that authenticates past the cap is kept and the token's
	// oldest connection is dropped, closed with StatusPolicyViolation and
	// the reason MsgConnLimit. Two clients sharing a token over the cap
	// thus evict each other each time one reconnects; Evictions counts
	// the drops. 0 means no cap.
	MaxConns int
	// MaxSymbols caps the products one connection may subscribe to.
	// 0 means DefaultMaxSymbols.
	MaxSymbols int
	// DepthLevels is the number of levels per side of a depth push.
	// 0 means DefaultDepthLevels.
	DepthLevels int
	// LooseCase pushes codes and regions in lower case ("xauusd" for
	// XAUUSD$GB), as the service is reported to, whatever case they were
	// subscribed in.
	LooseCase bool
	// RegionInSymbol makes every push's s code$REGION ("700$HK"), as the
	// service's depth pushes are seen to send it and any push may; without
	// it s is the code alone in every push.
	RegionInSymbol bool
	// LegacyKline pushes candles in the older form
	// {"code":0,"data":{"s","t":<kType>,"k":{...}}}.
	LegacyKline bool
	// Market, when set, produces every push instead of Source, knowing
	// the connection's asset class.
	Market Market
	// Clock reads the time the pushes are stamped with and asked about;
	// nil means time.Now.
	Clock func() time.Time
	// Live says whether a product's pushes flow at now. While it reports
	// false (the product's market is closed, or the plan does not cover
	// its region) nothing is pushed for the product, though its
	// subscription stands and counts toward MaxSymbols. nil means every
	// product is live all the time.
	Live func(class, code, region string, now time.Time) bool
	// Authorize decides whether a token is accepted; nil applies Token.
	// It is not asked while SetRefuseAuth is on, nor about an empty token.
	Authorize func(token string) bool
	// Exists says whether a product exists. A subscribe request naming
	// one that does not is refused as a whole with code 0 and
	// MsgNotFound, and nothing of it is subscribed. nil means every
	// product exists.
	Exists func(class, code, region string) bool
}

// Server is the simulated WebSocket service. Its methods are safe for
// concurrent use.
type Server struct {
	cfg    Config
	source Source

	mu     sync.Mutex
	conns  map[*conn]struct{}
	tokens map[string][]*conn // authenticated connections of each token, oldest first
	closed bool
	wg     sync.WaitGroup

	noPong   atomic.Bool
	silent   atomic.Bool
	refuse   atomic.Bool
	paused   atomic.Bool
	accepted atomic.Int64
	pushes   atomic.Int64
	pings    atomic.Int64
	evicted  atomic.Int64
}

// New returns a Server with cfg's zero fields set to their defaults.
func New(cfg Config) *Server {
	if cfg.PushInterval == 0 {
		cfg.PushInterval = DefaultPushInterval
	}
	if cfg.PingTimeout <= 0 {
		cfg.PingTimeout = DefaultPingTimeout
	}
	if cfg.MaxSymbols <= 0 {
		cfg.MaxSymbols = DefaultMaxSymbols
	}
	if cfg.DepthLevels <= 0 {
		cfg.DepthLevels = DefaultDepthLevels
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Authorize == nil {
		want := cfg.Token
		cfg.Authorize = func(token string) bool { return want == "" || token == want }
	}
	s := &Server{cfg: cfg, source: cfg.Source, conns: make(map[*conn]struct{}), tokens: make(map[string][]*conn)}
	if s.source == nil {
		s.source = NewRandomWalk(cfg.Seed)
	}
	return s
}

// ServeHTTP upgrades a request for /<class> to a WebSocket connection and
// serves it until either side closes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	class := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	if !validClass(class) {
		http.Error(w, `{"code":0,"msg":"unknown asset class"}`, http.StatusNotFound)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, `{"code":0,"msg":"server closed"}`, http.StatusServiceUnavailable)
		return
	}
	c := &conn{srv: s, class: class, subs: make(map[symbol]map[string]struct{}), names: make(map[symbol]symbol)}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.release(c)
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()

	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	s.accepted.Add(1)
	c.mu.Lock()
	c.ws = ws
	c.mu.Unlock()
	// A Close that began during the upgrade may have missed this
	// connection: it sets closed before it drops connections.
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		ws.CloseNow()
		return
	}
	c.serve(r.Context(), r.Header.Get("token"))
}

func validClass(class string) bool {
	for _, c := range Classes {
		if c == class {
			return true
		}
	}
	return false
}

// DropAll closes every open connection at once, without a close
// handshake, as a network failure would. It returns how many it closed.
func (s *Server) DropAll() int {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	n := 0
	for _, c := range conns {
		c.mu.Lock()
		ws := c.ws
		c.mu.Unlock()
		if ws != nil && ws.CloseNow() == nil {
			n++
		}
	}
	return n
}

// SetPongs switches pong replies on (the default) or off; pushes go on.
func (s *Server) SetPongs(on bool) { s.noPong.Store(!on) }

// SetSilent makes the server send nothing at all, pongs and pushes
// included, while it keeps connections open: a hung server.
func (s *Server) SetSilent(on bool) { s.silent.Store(on) }

// SetRefuseAuth makes new connections fail authentication whatever their
// token, as a revoked token would.
func (s *Server) SetRefuseAuth(on bool) { s.refuse.Store(on) }

// SetPaused holds pushes back (on) or lets them flow again (off).
func (s *Server) SetPaused(on bool) { s.paused.Store(on) }

// Conns is the number of connections open now.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// ConnSymbols returns how many products each open connection subscribes
// to, in no particular order.
func (s *Server) ConnSymbols() []int {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	out := make([]int, 0, len(conns))
	for _, c := range conns {
		c.mu.Lock()
		out = append(out, len(c.subs))
		c.mu.Unlock()
	}
	return out
}

// ConnSubscriptions returns what each open connection subscribes to: each
// product, as code$REGION in the case it was first subscribed in, with its
// types in the service's order. The connections come in no particular
// order.
func (s *Server) ConnSubscriptions() []map[string][]string {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	out := make([]map[string][]string, 0, len(conns))
	for _, c := range conns {
		c.mu.Lock()
		m := make(map[string][]string, len(c.subs))
		for k, types := range c.subs {
			m[c.names[k].String()] = sortedTypes(types)
		}
		c.mu.Unlock()
		out = append(out, m)
	}
	return out
}

// Subscriptions is the number of products subscribed over all open
// connections.
func (s *Server) Subscriptions() int {
	n := 0
	for _, k := range s.ConnSymbols() {
		n += k
	}
	return n
}

// Accepted is the number of connections upgraded since the start.
func (s *Server) Accepted() int64 { return s.accepted.Load() }

// Pushes is the number of push messages sent since the start.
func (s *Server) Pushes() int64 { return s.pushes.Load() }

// Pings is the number of pings received since the start.
func (s *Server) Pings() int64 { return s.pings.Load() }

// Close drops every connection, refuses new ones and waits for the
// connections' goroutines to end.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.DropAll()
	s.wg.Wait()
}
