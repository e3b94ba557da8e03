package markettest

import (
	"net/http"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

// The WebSocket side of the Server. It serves the service's streaming
// channel at /{stock|forex|indices|crypto|future|fund} to requests that
// ask for a WebSocket upgrade (REST paths have two segments, so the two
// never meet), with the same token, clock and generator as the REST
// endpoints: a quote pushed for a product at an instant is the quote the
// REST endpoint answers for it at that instant. Stream connections are
// not recorded in Requests, do not count toward the quota and are not
// touched by REST faults; the Stream methods below inject their own.

// DefaultStreamInterval is the pause between two rounds of pushes on a
// stream connection unless WithStreamInterval says otherwise.
const DefaultStreamInterval = 100 * time.Millisecond

// WithStreamInterval sets the pause between two rounds of pushes on each
// stream connection; a round pushes every subscribed channel of every
// subscribed product once. A negative d pushes rounds back to back, as
// fast as the client reads. The default is DefaultStreamInterval.
func WithStreamInterval(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultStreamInterval
		}
		c.streamInterval = d
	}
}

// WithStreamPingTimeout sets how long a stream connection may stay silent
// (no ping, no request) before the server drops it, as the service does
// after a minute. The default is a minute.
func WithStreamPingTimeout(d time.Duration) Option {
	return func(c *config) { c.streamPingTimeout = d }
}

// WithStreamMaxSymbols sets how many products one stream connection may
// subscribe to; the service allows 500, the default.
func WithStreamMaxSymbols(n int) Option {
	return func(c *config) { c.streamMaxSymbols = n }
}

// WithStreamLooseCase makes stream pushes name their products in lower
// case ("xauusd" for a subscription to XAUUSD$GB), as the service is
// reported to, so a bot can be tested against it.
func WithStreamLooseCase() Option {
	return func(c *config) { c.streamLooseCase = true }
}

// WithStreamRegionInSymbol makes every stream push name its product as
// code$REGION in s ("700$HK"), as the service's depth pushes are seen to
// and any push may; without it s is the code alone in every push. A bot
// that reads pushes itself can be tested against both forms.
func WithStreamRegionInSymbol() Option {
	return func(c *config) { c.streamRegionInSym = true }
}

// newStreams builds the WebSocket side of s.
func newStreams(s *Server) *wssim.Server {
	return wssim.New(wssim.Config{
		Market:         streamMarket{s.gen},
		Clock:          s.cfg.clock,
		Authorize:      func(token string) bool { return s.Token != "" && token == s.Token },
		PushInterval:   s.cfg.streamInterval,
		PingTimeout:    s.cfg.streamPingTimeout,
		MaxSymbols:     s.cfg.streamMaxSymbols,
		LooseCase:      s.cfg.streamLooseCase,
		RegionInSymbol: s.cfg.streamRegionInSym,
		Live:           s.streamLive,
		MaxConns:       s.streamMaxConns(),
		Exists: func(class, code, region string) bool {
			return Exists(Class(class), itick.Region(region), code)
		},
	})
}

// streamLive says whether the stream pushes anything for a product at now:
// only while its market trades (crypto always, forex and futures on
// weekdays, the others in their market's regular hours; prices stand still
// in between, so a real feed has nothing to send), and only when the plan
// covers its region. A subscription to a product of a region outside the
// plan is acknowledged like any other and then stays silent, as the REST
// side answers such a request with success and no data.
func (s *Server) streamLive(class, code, region string, now time.Time) bool {
	if s.cfg.regions != nil && !s.cfg.regions[itick.Region(strings.ToUpper(region))] {
		return false
	}
	return calendarOf(Class(class), itick.Region(region), code).trades(now.UnixMilli())
}

// isStreamRequest reports a WebSocket upgrade for /<class>.
func isStreamRequest(r *http.Request) bool {
	if r.Method != http.MethodGet || !headerHas(r.Header, "Connection", "upgrade") ||
		!headerHas(r.Header, "Upgrade", "websocket") {
		return false
	}
	class, ok := strings.CutPrefix(r.URL.Path, "/")
	if !ok {
		return false
	}
	for _, c := range wssim.Classes {
		if c == class {
			return true
		}
	}
	return false
}

// headerHas reports whether a comma-separated header holds token, in any case.
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// StreamURL returns the base of the server's WebSocket address, such as
// ws://127.0.0.1:54321, for itick.WithStreamURL, which appends the asset
// class. Clients from Client derive it from URL without being told.
func (s *Server) StreamURL() string { return "ws" + strings.TrimPrefix(s.URL, "http") }

// DropStreams closes every open stream connection at once, without a
// close handshake, as a network failure would, and returns how many it
// closed. Clients may reconnect straight away.
func (s *Server) DropStreams() int { return s.ws.DropAll() }

// SetStreamPongs switches the answers to stream pings on (the default)
// or off; pushes go on, so only a client's heartbeat notices.
func (s *Server) SetStreamPongs(on bool) { s.ws.SetPongs(on) }

// SetStreamSilent makes the stream side send nothing at all, pongs and
// pushes included, while it keeps connections open: a hung server.
func (s *Server) SetStreamSilent(on bool) { s.ws.SetSilent(on) }

// SetStreamRefuseAuth makes new stream connections fail authentication
// whatever their token, as a revoked token would. Connections already
// open stay up.
func (s *Server) SetStreamRefuseAuth(on bool) { s.ws.SetRefuseAuth(on) }

// SetStreamPaused holds stream pushes back (on) or lets them flow again
// (off); pings are still answered.
func (s *Server) SetStreamPaused(on bool) { s.ws.SetPaused(on) }

// StreamStats counts the server's stream activity.
type StreamStats struct {
	Conns         int   // connections open now
	Subscriptions int   // products subscribed over the open connections
	Accepted      int64 // connections upgraded since the start
	Pushes        int64 // push messages sent since the start
	Pings         int64 // pings received since the start
	// Evictions is the number of connections dropped since the start
	// because a newer one of the same token passed the plan's cap
	// (WithStreamMaxConns): 0 for a fleet that shares its connections.
	Evictions int64
}

// StreamStats returns the stream counters. A push is counted just before
// it is sent, so a client never has more than Pushes.
func (s *Server) StreamStats() StreamStats {
	return StreamStats{Conns: s.ws.Conns(), Subscriptions: s.ws.Subscriptions(),
		Accepted: s.ws.Accepted(), Pushes: s.ws.Pushes(), Pings: s.ws.Pings(), Evictions: s.ws.Evictions()}
}

// streamMarket is the generator as the stream side asks for it, so
// pushes carry the values the REST endpoints answer with.
type streamMarket struct{ gen *Generator }

func (m streamMarket) Quote(class, code, region string, now time.Time) wssim.Bar {
	q := m.gen.Quote(Class(class), itick.Region(region), code, now)
	return wssim.Bar{Time: q.Time, Last: q.Last, Open: q.Open, High: q.High, Low: q.Low,
		Volume: q.Volume, Turnover: q.Turnover}
}

func (m streamMarket) Tick(class, code, region string, now time.Time) wssim.Bar {
	t := m.gen.Tick(Class(class), itick.Region(region), code, now)
	return wssim.Bar{Time: t.Time, Last: t.Last, TradeVol: t.Volume}
}

func (m streamMarket) Depth(class, code, region string, now time.Time) (asks, bids []wssim.Level) {
	b := m.gen.Depth(Class(class), itick.Region(region), code, now)
	return streamLevels(Class(class), b.Asks), streamLevels(Class(class), b.Bids)
}

// streamLevels converts book levels as wireDepth does for REST.
func streamLevels(class Class, ls []itick.DepthLevel) []wssim.Level {
	out := make([]wssim.Level, len(ls))
	for i, l := range ls {
		out[i] = wssim.Level{Po: l.Level, Price: l.Price, NoPrice: class == Future && l.Price == 0,
			Volume: l.Volume, Orders: l.Orders}
	}
	return out
}

func (m streamMarket) Candle(class, code, region string, kType int, now time.Time) wssim.Candle {
	ks := m.gen.Klines(Class(class), itick.Region(region), code, itick.Interval(kType), 1, time.Time{}, now)
	if len(ks) == 0 {
		return wssim.Candle{}
	}
	k := ks[0]
	return wssim.Candle{Time: k.Time, Open: k.Open, High: k.High, Low: k.Low, Close: k.Close,
		Volume: k.Volume, Turnover: k.Turnover}
}
