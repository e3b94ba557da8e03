package itick

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// StreamOption configures a Stream. A bad one makes Client.Stream fail
// with ErrInvalidArgument.
type StreamOption func(*streamSettings) error

// Overflow is what a Stream does with an event when its buffer is full
// because the consumer reads slower than the service pushes.
type Overflow int

const (
	// DropOldest evicts the oldest buffered event to make room, so the
	// consumer always catches up with the freshest market. The default.
	DropOldest Overflow = iota
	// DropNewest discards the arriving event and keeps the buffer as it is.
	DropNewest
)

// String names the policy.
func (o Overflow) String() string {
	switch o {
	case DropOldest:
		return "DropOldest"
	case DropNewest:
		return "DropNewest"
	}
	return "Overflow(" + strconv.Itoa(int(o)) + ")"
}

// Stream defaults.
const (
	// DefaultPingInterval is how often a connection sends the service's
	// JSON ping; the service drops a connection silent for a minute.
	DefaultPingInterval = 30 * time.Second
	// DefaultPongTimeout is how long a ping may go unanswered before the
	// connection counts as dead and is replaced.
	DefaultPongTimeout = 20 * time.Second
	// DefaultStreamBuffer is the number of events buffered for a slow consumer.
	DefaultStreamBuffer = 4096
	// DefaultStreamBufferBytes bounds the bytes of the events buffered for
	// a slow consumer (see WithBufferBytes).
	DefaultStreamBufferBytes = 64 << 20
	// DefaultAuthRetries is how many refused re-authentications in a row a
	// Stream tries again (see WithAuthRetries).
	DefaultAuthRetries = 3
	// maxStreamBuffer bounds WithBuffer: the buffer is allocated whole
	// when the Stream opens, and a million events is minutes of the
	// busiest feed.
	maxStreamBuffer = 1 << 20
	// maxPingInterval is the longest the service lets a connection be
	// silent before it drops it.
	maxPingInterval = time.Minute
	// DefaultSymbolsPerConn is the service's limit of products on one connection.
	DefaultSymbolsPerConn = 500
	// DefaultDialTimeout bounds the WebSocket handshake and authentication,
	// and each wait for the service to acknowledge a request.
	DefaultDialTimeout = 15 * time.Second
)

// StreamConns is the plan's default cap on the connections one Stream
// opens: 1, 3, 6 and 12 for Free, Base, Professional and Premium, and
// Premium's for Enterprise, whose quota is custom (WithMaxConns raises it).
func (p Plan) StreamConns() int { return p.info().streamConns }

// StreamSymbols is the plan's default cap on the products one Stream
// subscribes to at once: 3, 200, 500 and 2000 for Free, Base,
// Professional and Premium, and Premium's for Enterprise, whose quota is
// custom (WithMaxSymbols raises it).
func (p Plan) StreamSymbols() int { return p.info().streamSymbols }

type streamSettings struct {
	url            *url.URL // ws or wss base; the class is appended
	httpClient     *http.Client
	pingInterval   time.Duration
	pongTimeout    time.Duration
	dialTimeout    time.Duration
	minBackoff     time.Duration
	maxBackoff     time.Duration
	buffer         int
	bufferBytes    int64
	overflow       Overflow
	staleAfter     time.Duration
	authRetries    int
	prevClose      bool
	prevCloseRetry [2]time.Duration // tests' waits between snapshots; zero: the defaults
	maxConns       int
	maxSymbols     int
	symbolsPerConn int
}

// WithStreamURL sets the WebSocket address instead of deriving it from the
// client's base URL; the asset class is appended as the last path segment.
// ws, wss, http and https schemes are accepted (http means ws). The token
// goes to this URL's origin only: a handshake redirected to another
// origin (another scheme, host or port; wss to ws included) is not
// followed.
func WithStreamURL(rawURL string) StreamOption {
	return func(s *streamSettings) error {
		u, err := url.Parse(strings.TrimSpace(rawURL))
		if err != nil {
			return invalidArg("stream URL %q: %v", rawURL, err)
		}
		switch u.Scheme {
		case "ws", "wss":
		case "http":
			u.Scheme = "ws"
		case "https":
			u.Scheme = "wss"
		default:
			return invalidArg("stream URL %q: scheme must be ws, wss, http or https", rawURL)
		}
		if u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return invalidArg("stream URL %q needs a host and no query, fragment or user info", rawURL)
		}
		u.Path = strings.TrimRight(u.Path, "/")
		u.RawPath = ""
		s.url = u
		return nil
	}
}

// WithStreamHTTPClient sets the http.Client that makes the WebSocket
// handshake. By default the Stream uses a copy, with keep-alives off, of
// the Client's transport when that is an *http.Transport or wraps one it
// names with an Unwrap() http.RoundTripper method, and of
// http.DefaultTransport otherwise; a handshake's connection is never
// reused. A client whose transport wraps another and cannot say which
// (otelhttp.Transport, say) gets no proxy or TLS setting of it: pass
// WithStreamHTTPClient(&http.Client{Transport: inner}) with the
// *http.Transport it wraps. hc itself is used as it is; the Stream uses a
// copy of it whose CheckRedirect refuses redirects out of the stream URL's
// origin before asking hc's own.
func WithStreamHTTPClient(hc *http.Client) StreamOption {
	return func(s *streamSettings) error {
		if hc == nil {
			return invalidArg("WithStreamHTTPClient: nil *http.Client")
		}
		s.httpClient = hc
		return nil
	}
}

// WithHeartbeat sets how often each connection pings the service and how
// long a ping may go unanswered before the connection is replaced. The
// unanswered ping is the Stream's read deadline: a server that has gone
// silent, or a connection that died without a word, is noticed within
// interval+pongTimeout. The service wants a ping at least once a minute,
// so interval is at most a minute.
func WithHeartbeat(interval, pongTimeout time.Duration) StreamOption {
	return func(s *streamSettings) error {
		if interval <= 0 || pongTimeout <= 0 {
			return invalidArg("WithHeartbeat: interval %s and timeout %s must be positive", interval, pongTimeout)
		}
		if interval > maxPingInterval {
			return invalidArg("WithHeartbeat: interval %s is longer than the service's %s", interval, maxPingInterval)
		}
		s.pingInterval, s.pongTimeout = interval, pongTimeout
		return nil
	}
}

// WithDialTimeout bounds each connection's handshake and authentication,
// and each wait for the service to acknowledge a subscription.
func WithDialTimeout(d time.Duration) StreamOption {
	return func(s *streamSettings) error {
		if d <= 0 {
			return invalidArg("WithDialTimeout: %s is not positive", d)
		}
		s.dialTimeout = d
		return nil
	}
}

// WithReconnectBackoff sets the bounds of the jittered, exponential wait
// between reconnection attempts. By default the Client's WithBackoff
// bounds apply. The wait grows with each attempt and starts over only
// once a connection has stayed subscribed for a heartbeat interval (see
// WithHeartbeat), so a server that accepts and drops at once is not
// hammered.
func WithReconnectBackoff(shortest, longest time.Duration) StreamOption {
	return func(s *streamSettings) error {
		if shortest < 0 || longest < shortest {
			return invalidArg("WithReconnectBackoff: need 0 <= shortest <= longest, got %s and %s", shortest, longest)
		}
		s.minBackoff, s.maxBackoff = shortest, longest
		return nil
	}
}

// WithBuffer sets how many events wait for the consumer, and what happens
// to one that arrives when they are all taken; Stream.Dropped counts what
// the policy drops. The size is at least 1 and at most 1<<20 (1048576).
// WithBufferBytes bounds the same events by their size.
//
// DisconnectEvent, GapEvent and ErrorEvent pass the bound, into room of
// their own, and events are read in the order they happened: nothing
// overtakes a control event, so while one waits in a full buffer, the
// arriving event is dropped whatever the policy (DropOldest drops the
// oldest again once the consumer has read it). The policy never drops a
// control event. Errors may take 256 places of their room: past that, a
// consumer that has stopped reading gets one ErrorEvent saying how many
// were left out, and the last of them. A DisconnectEvent or GapEvent is
// never left out: one that finds even the room full waits for the
// consumer to read, and only the connection it reports waits with it.
func WithBuffer(n int, policy Overflow) StreamOption {
	return func(s *streamSettings) error {
		if n < 1 || n > maxStreamBuffer {
			return invalidArg("WithBuffer: size %d is not within [1, %d]", n, maxStreamBuffer)
		}
		if policy != DropOldest && policy != DropNewest {
			return invalidArg("WithBuffer: unknown overflow policy %d", int(policy))
		}
		s.buffer, s.overflow = n, policy
		return nil
	}
}

// WithBufferBytes bounds the events waiting for the consumer by the bytes
// of the frames they were decoded from, a close estimate of what they
// hold, as WithBuffer bounds their number: the overflow policy applies at
// whichever bound comes first. n is at least 1; the default is
// DefaultStreamBufferBytes. DisconnectEvent, GapEvent and ErrorEvent pass
// both bounds, as WithBuffer says.
func WithBufferBytes(n int64) StreamOption {
	return func(s *streamSettings) error {
		if n < 1 {
			return invalidArg("WithBufferBytes: %d is below 1", n)
		}
		s.bufferBytes = n
		return nil
	}
}

// WithStaleAfter replaces a connection that carries subscriptions and
// answers pings but has pushed nothing for d, reporting it as lost with a
// reason matching ErrStreamStale: a socket the service keeps open and
// silent. 0, the default, switches the watchdog off. Turn it on for
// products that push all the time, such as crypto pairs; a stock is quiet
// while its market is closed, so d must outlast that, or leave it off.
// A d below the ping interval (WithHeartbeat's, DefaultPingInterval unless
// set; the options may come in any order) makes Client.Stream fail with
// ErrInvalidArgument: the watchdog would replace connections that are only
// between pushes.
func WithStaleAfter(d time.Duration) StreamOption {
	return func(s *streamSettings) error {
		if d < 0 {
			return invalidArg("WithStaleAfter: %s is negative", d)
		}
		s.staleAfter = d
		return nil
	}
}

// WithAuthRetries sets how many times in a row a reconnection whose token
// the service refuses (a handshake answered 401 or 403, or a refused
// authentication) is tried again, with the reconnect backoff, before the
// Stream ends with ErrUnauthorized; the count starts again after each
// accepted one. The default is DefaultAuthRetries; 0 ends the Stream at the
// first refusal. A token refused on the first connection ends it at once.
func WithAuthRetries(n int) StreamOption {
	return func(s *streamSettings) error {
		if n < 0 {
			return invalidArg("WithAuthRetries: %d is negative", n)
		}
		s.authRetries = n
		return nil
	}
}

// WithMaxConns caps the connections the Stream opens, overriding the
// plan's default (Plan.StreamConns).
func WithMaxConns(n int) StreamOption {
	return func(s *streamSettings) error {
		if n < 1 {
			return invalidArg("WithMaxConns: %d is below 1", n)
		}
		s.maxConns = n
		return nil
	}
}

// WithMaxSymbols caps the products the Stream subscribes to at once,
// overriding the plan's default (Plan.StreamSymbols). A Subscribe that
// would pass it subscribes nothing and returns an error matching
// ErrPlanLimit, before anything is sent.
func WithMaxSymbols(n int) StreamOption {
	return func(s *streamSettings) error {
		if n < 1 {
			return invalidArg("WithMaxSymbols: %d is below 1", n)
		}
		s.maxSymbols = n
		return nil
	}
}

// WithSymbolsPerConn sets how many products one connection carries before
// the Stream opens another; the service allows DefaultSymbolsPerConn, which
// is also the most this accepts.
func WithSymbolsPerConn(n int) StreamOption {
	return func(s *streamSettings) error {
		if n < 1 || n > DefaultSymbolsPerConn {
			return invalidArg("WithSymbolsPerConn: %d is not within [1, %d]", n, DefaultSymbolsPerConn)
		}
		s.symbolsPerConn = n
		return nil
	}
}

// streamURL derives the WebSocket address from the REST base URL: https
// becomes wss, http becomes ws, host and path prefix stay.
func streamURL(base *url.URL) *url.URL {
	u := *base
	if u.Scheme == "http" {
		u.Scheme = "ws"
	} else {
		u.Scheme = "wss"
	}
	return &u
}
