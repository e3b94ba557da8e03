package itick

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/stream"
	"github.com/d19c4e34/itick/internal/wait"
)

// ErrStreamClosed reports a call on a Stream that has ended.
var ErrStreamClosed = errors.New("itick: stream closed")

// ErrStreamStale is the reason of a connection WithStaleAfter found open,
// answering pings and subscribed, but pushing nothing: it is replaced.
var ErrStreamStale = errors.New("itick: stream connection stale")

// streamClasses are the asset classes the service streams, each at /<class>.
var streamClasses = []AssetType{AssetStock, AssetForex, AssetIndices, AssetCrypto, AssetFuture, AssetFund}

// Stream is a live feed of one asset class over the service's WebSocket
// channel. It keeps itself connected and subscribed, and reports each
// outage; see the package documentation's Streaming section. Events arrive
// on the channel Events returns, which is closed once the Stream has ended
// and every goroutine it started has returned; Err then says why.
//
// A Stream is safe for concurrent use.
type Stream struct {
	e    *stream.Engine[Event]
	prev *prevCloses // nil without WithPrevClose
}

// StreamStats is a snapshot of a Stream's counters.
type StreamStats struct {
	Conns      int    `json:"conns"`      // connections up and subscribed now
	Down       int    `json:"down"`       // connections lost and not yet renewed
	Symbols    int    `json:"symbols"`    // products the service has acknowledged (renewed after each reconnection)
	Events     uint64 `json:"events"`     // pushes decoded since the start
	Dropped    uint64 `json:"dropped"`    // events the overflow policy discarded
	Reconnects uint64 `json:"reconnects"` // connections lost and replaced
	Gaps       uint64 `json:"gaps"`       // GapEvents sent
}

// Stream connects to the service's WebSocket channel for one asset class
// (AssetStock, AssetForex, AssetIndices, AssetCrypto, AssetFuture or
// AssetFund) with the client's token, base URL (https becomes wss) and
// logger. It returns once the first connection is authenticated; a refused
// token is an error matching ErrUnauthorized.
//
// ctx bounds the whole Stream: cancelling it closes the Stream as Close
// does. Subscribe to products to receive events.
func (c *Client) Stream(ctx context.Context, class AssetType, opts ...StreamOption) (*Stream, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if !slices.Contains(streamClasses, class) {
		return nil, invalidArg("unknown stream class %q (want one of %v)", string(class), streamClasses)
	}
	set := streamSettings{
		url:            streamURL(c.baseURL),
		pingInterval:   DefaultPingInterval,
		pongTimeout:    DefaultPongTimeout,
		dialTimeout:    DefaultDialTimeout,
		minBackoff:     c.minBackoff,
		maxBackoff:     c.maxBackoff,
		buffer:         DefaultStreamBuffer,
		bufferBytes:    DefaultStreamBufferBytes,
		authRetries:    DefaultAuthRetries,
		maxConns:       c.plan.StreamConns(),
		maxSymbols:     c.plan.StreamSymbols(),
		symbolsPerConn: DefaultSymbolsPerConn,
	}
	if t := handshakeTransport(c.attempt.Base); t != nil {
		set.httpClient = &http.Client{Transport: t}
	}
	for i, opt := range opts {
		if opt == nil {
			return nil, invalidArg("stream option %d is nil", i)
		}
		if err := opt(&set); err != nil {
			return nil, err
		}
	}
	// Checked once every option is in, whatever their order.
	if set.staleAfter > 0 && set.staleAfter < set.pingInterval {
		return nil, invalidArg("WithStaleAfter: %s is below the ping interval %s (WithHeartbeat; default %s): "+
			"the watchdog would replace connections that are only between pushes", set.staleAfter, set.pingInterval, DefaultPingInterval)
	}
	u := *set.url
	u.Path += "/" + string(class)
	path := "/" + string(class)
	var prev *prevCloses
	var e *stream.Engine[Event]
	if set.prevClose {
		prev = newPrevCloses(market{c, string(class)}, func(err error) { e.ReportError(-1, err) },
			func(sym string) bool {
				_, ok := e.Acked(sym, string(ChannelQuote))
				return ok
			})
		if set.prevCloseRetry[0] > 0 {
			prev.retry = set.prevCloseRetry
		}
	}
	e, err := stream.New(ctx, stream.Config[Event]{
		URL:                u.String(),
		Class:              string(class),
		Token:              c.attempt.Token,
		UserAgent:          c.userAgent,
		Logger:             c.attempt.Logger,
		HTTPClient:         set.httpClient,
		PingInterval:       set.pingInterval,
		PongTimeout:        set.pongTimeout,
		DialTimeout:        set.dialTimeout,
		MinBackoff:         set.minBackoff,
		MaxBackoff:         set.maxBackoff,
		Buffer:             set.buffer,
		BufferBytes:        set.bufferBytes,
		DropNewest:         set.overflow == DropNewest,
		StaleAfter:         set.staleAfter,
		AuthRetries:        set.authRetries,
		MaxConns:           set.maxConns,
		MaxSymbols:         set.maxSymbols,
		SymbolsPerConn:     set.symbolsPerConn,
		ErrClosed:          ErrStreamClosed,
		ErrInvalidArgument: ErrInvalidArgument,
		ErrPlanLimit:       ErrPlanLimit,
		ErrStale:           ErrStreamStale,
		Hooks: stream.Hooks[Event]{
			NewDecoder: func(match stream.Matcher, red *redact.Redactor) stream.Decoder[Event] {
				pd := newPushDecoder(match, red)
				pd.prev = prev
				return pd
			},
			Disconnect: func(conn int, at time.Time, reason error, symbols []string) Event {
				return DisconnectEvent{Conn: conn, At: at, Reason: reason, Symbols: symbols}
			},
			Gap: func(conn int, from, to time.Time, reason error, symbols []string) Event {
				return GapEvent{Conn: conn, From: from, To: to, Reason: reason, Symbols: symbols}
			},
			Error: func(conn int, err error) Event { return ErrorEvent{Conn: conn, Err: err} },
			Refused: func(action string, r stream.Reply) error {
				return &StreamError{Action: action, Code: r.Code, CodeText: r.CodeText, Message: r.Msg}
			},
			HandshakeRefused: func(status int, header http.Header, body []byte) error {
				return newAPIError(path, status, header, body, c.attempt.Redactor(),
					&codec.Failure{Message: "WebSocket handshake refused"})
			},
			Fatal: func(err error) bool { return errors.Is(err, ErrUnauthorized) },
		},
	})
	if err != nil {
		return nil, wait.Ended(ctx, err)
	}
	if prev != nil {
		e.Go(prev.run)
	}
	return &Stream{e: e, prev: prev}, nil
}

// String describes the stream without its token.
func (s *Stream) String() string {
	st := s.Stats()
	return fmt.Sprintf("itick.Stream{URL: %q, Conns: %d, Symbols: %d}", s.e.URL(), st.Conns, st.Symbols)
}

// GoString is String, so %#v keeps the token out too.
func (s *Stream) GoString() string { return s.String() }

// Format prints String for every verb, so no verb reaches the token.
func (s *Stream) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// Events returns the channel events arrive on. It is closed when the
// Stream ends.
func (s *Stream) Events() <-chan Event { return s.e.Events() }

// Close closes every connection and returns once every goroutine the
// Stream started has ended and Events is closed. It is safe to call more
// than once.
func (s *Stream) Close() error {
	s.e.Close()
	return nil
}

// Done is closed when the Stream has ended and Events is closed.
func (s *Stream) Done() <-chan struct{} { return s.e.Done() }

// Err says why the Stream ended: nil while it runs and after Close, the
// context's error after its end (matching the context's cause too, if it
// has one), or the failure that stopped it, such as a refused token
// (ErrUnauthorized).
func (s *Stream) Err() error { return s.e.Err() }

// Dropped is the number of events the overflow policy has discarded.
func (s *Stream) Dropped() uint64 { return s.e.Dropped() }

// Stats returns the Stream's counters.
func (s *Stream) Stats() StreamStats {
	st := s.e.Stats()
	return StreamStats{Conns: st.Conns, Down: st.Down, Symbols: st.Symbols, Events: st.Events, Dropped: st.Dropped,
		Reconnects: st.Reconnects, Gaps: st.Gaps}
}

// Subscribe asks for the given channels of the given products, written
// "code$REGION" (such as "700$HK" or "EURUSD$GB"), or
// "code$EXCHANGE$REGION" for a stock of a secondary exchange; products
// differing only in case are one. It returns once the service has
// acknowledged every request involved, or ctx ends. A refusal comes back
// as a *StreamError, passing the plan's caps (Plan.StreamSymbols,
// Plan.StreamConns, or WithMaxSymbols and WithMaxConns) is ErrPlanLimit and
// subscribes nothing, and a bad symbol or channel is ErrInvalidArgument.
// The package documentation's Streaming section says what a cancelled or
// reconnecting Subscribe does.
func (s *Stream) Subscribe(ctx context.Context, symbols []string, channels ...Channel) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	chans, err := parseChannels(channels, false)
	if err != nil {
		return err
	}
	err = s.e.Subscribe(ctx, symbols, chans)
	if s.prev != nil && slices.Contains(chans, string(ChannelQuote)) {
		// Only what the service acknowledged costs a snapshot, taken in
		// the Stream's own goroutine.
		s.prev.add(s.quotesHeld(symbols, true))
	}
	return wait.Ended(ctx, err)
}

// quotesHeld returns the products among symbols whose quotes the Stream
// holds (held true), as first subscribed, or those whose quotes it does
// not (held false), as parsed. Symbols that do not parse are left out.
func (s *Stream) quotesHeld(symbols []string, held bool) []stream.Symbol {
	var out []stream.Symbol
	for _, raw := range symbols {
		sym, ok := s.e.Acked(raw, string(ChannelQuote))
		if ok != held {
			continue
		}
		if !held {
			var err error
			if sym, err = stream.ParseSymbol(raw); err != nil {
				continue
			}
		}
		out = append(out, sym)
	}
	return out
}

// Unsubscribe stops the given channels of the given products; with no
// channels it stops all of them. Products not subscribed are ignored. The
// Stream forgets the channels at once; when ctx ends before the service
// has acknowledged, the request still completes in the background, so the
// service forgets them too.
func (s *Stream) Unsubscribe(ctx context.Context, symbols []string, channels ...Channel) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	chans, err := parseChannels(channels, true)
	if err != nil {
		return err
	}
	err = s.e.Unsubscribe(ctx, symbols, chans)
	if s.prev != nil {
		s.prev.forget(s.quotesHeld(symbols, false))
	}
	return wait.Ended(ctx, err)
}

// parseChannels checks channels and returns their wire names, each once.
func parseChannels(channels []Channel, emptyOK bool) ([]string, error) {
	if len(channels) == 0 && !emptyOK {
		return nil, invalidArg("no stream channels")
	}
	out := make([]string, 0, len(channels))
	for _, ch := range channels {
		if err := ch.validate(); err != nil {
			return nil, err
		}
		if !slices.Contains(out, string(ch)) {
			out = append(out, string(ch))
		}
	}
	return out, nil
}

// handshakeTransport returns the transport handshakes use unless
// WithStreamHTTPClient sets one: a copy, with keep-alives off, of the
// client's transport when that is an *http.Transport, or of the one it
// wraps when it says which (an Unwrap() http.RoundTripper method, followed
// down), so the handshake keeps its proxy and TLS settings; else of
// http.DefaultTransport when that is one; nil when none is (a program
// wrapped them all), which leaves the handshake to http.DefaultClient.
//
// A copy, because a handshake's connection is never reused (a successful
// one is taken over by the WebSocket, a refused one is done with), while
// net/http finishes a dial even after its request is cancelled and keeps
// the connection idle for later requests: a Stream closed during a
// reconnection would otherwise leave a connection, and the goroutines
// that serve it, in the REST pool for as long as the pool keeps it.
func handshakeTransport(base http.RoundTripper) *http.Transport {
	t, ok := findTransport[*http.Transport](base)
	if !ok {
		t, ok = http.DefaultTransport.(*http.Transport)
	}
	if !ok {
		return nil
	}
	t = t.Clone()
	t.DisableKeepAlives = true
	return t
}

// streamSymbol is the wire form of a pushed or subscribed product.
func streamSymbol(code, exchange string, region Region) string {
	return stream.Symbol{Code: code, Exchange: exchange, Region: string(region)}.String()
}
