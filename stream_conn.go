package itick

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/errtext"
	"github.com/d19c4e34/itick/internal/transport"
	"github.com/d19c4e34/itick/internal/wait"
)

// maxStreamMessage bounds one message from the service; a depth push is a
// few kilobytes.
const maxStreamMessage = 1 << 20

// closeGrace is how long a closing Stream waits for the service to answer
// its close frame before it drops the connection.
const closeGrace = time.Second

// errConnLost reports a request whose connection went down before its
// acknowledgement; the renewed connection carries the subscription.
var errConnLost = errors.New("itick: stream connection lost")

// errNoPong reports a connection the heartbeat found dead.
var errNoPong = errors.New("itick: stream: ping unanswered")

// shard is one of a Stream's connections and the products it carries. It
// outlives its sessions: each reconnection is a new session.
type shard struct {
	s  *Stream
	id int
	// subs is what the shard carries or is asked to carry: each product's
	// channels. Guarded by s.mu.
	subs map[streamSymbol]map[Channel]*subEntry

	// reqMu lets one request at a time await its acknowledgement on the
	// shard's connection. Acknowledgements carry no id, so this is what
	// ties each one to its request.
	reqMu chan struct{}

	stateMu sync.Mutex // guards the two fields below
	ss      *session
	readyCh chan struct{} // closed while a session is up and subscribed
}

func (s *Stream) newShard() *shard {
	sh := &shard{s: s, id: len(s.shards)}
	sh.init()
	s.shards = append(s.shards, sh)
	return sh
}

func (sh *shard) init() {
	sh.subs = make(map[streamSymbol]map[Channel]*subEntry)
	sh.reqMu = make(chan struct{}, 1)
	sh.readyCh = make(chan struct{})
}

// current returns the session that is up and subscribed, or nil.
func (sh *shard) current() *session {
	sh.stateMu.Lock()
	defer sh.stateMu.Unlock()
	return sh.ss
}

// ready returns a channel closed once a session is up and subscribed.
func (sh *shard) ready() <-chan struct{} {
	sh.stateMu.Lock()
	defer sh.stateMu.Unlock()
	return sh.readyCh
}

// lock takes reqMu unless ctx or the Stream ends first.
func (sh *shard) lock(ctx context.Context) error {
	select {
	case sh.reqMu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sh.s.ctx.Done():
		return ErrStreamClosed
	}
}

func (sh *shard) unlock() { <-sh.reqMu }

// session is one WebSocket connection of a shard.
type session struct {
	sh     *shard
	conn   *websocket.Conn
	ctx    context.Context // ends when the connection is unusable
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when the reader has returned

	auth  chan *message
	acks  chan *message
	pongs chan struct{}
}

// connect dials, starts the reader and waits for the service to accept
// the token.
func (s *Stream) connect(ctx context.Context, sh *shard) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, s.set.dialTimeout)
	defer cancel()
	hdr := s.hdr.Clone()
	hdr.Set("token", s.c.attempt.Token)
	conn, resp, err := websocket.Dial(ctx, s.url, &websocket.DialOptions{
		HTTPClient: s.set.httpClient,
		HTTPHeader: hdr,
	})
	if err != nil {
		path := "/" + string(s.class)
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			// The dialer keeps at most the first KiB of a refusal's body,
			// which is what an APIError carries anyway.
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			}
			e := newAPIError(path, resp.StatusCode, resp.Header, body, s.c.attempt.Redactor(),
				&codec.Failure{Message: "WebSocket handshake refused"})
			return nil, e
		}
		return nil, s.cleanErr(fmt.Errorf("itick: stream %s: %w", path, err))
	}
	conn.SetReadLimit(maxStreamMessage)
	ss := &session{sh: sh, conn: conn, done: make(chan struct{}),
		auth: make(chan *message, 1), acks: make(chan *message, 1), pongs: make(chan struct{}, 1)}
	ss.ctx, ss.cancel = context.WithCancelCause(context.Background())
	go ss.read()

	authed := func(m *message) error { return s.ackErr("auth", m) }
	select {
	case m := <-ss.auth:
		if err = authed(m); err == nil {
			return ss, nil
		}
	case <-ss.ctx.Done():
		// The reader hands over the reply before it reads on, so a
		// refusal the service sent just before closing is here by now.
		select {
		case m := <-ss.auth:
			if err = authed(m); err == nil {
				err = fmt.Errorf("itick: stream /%s: after authentication: %w", s.class, context.Cause(ss.ctx))
			}
		default:
			err = fmt.Errorf("itick: stream /%s: before authentication: %w", s.class, context.Cause(ss.ctx))
		}
	case <-ctx.Done():
		err = fmt.Errorf("itick: stream /%s: waiting for authentication: %w", s.class, ctx.Err())
	}
	ss.close(false)
	return nil, s.cleanErr(err)
}

// fatal reports errors no reconnection can mend.
func fatal(err error) bool { return errors.Is(err, ErrUnauthorized) }

// run keeps the shard connected until the Stream ends. first is an
// authenticated session to start with, or nil.
//
// The wait before each reconnection grows with every attempt, and starts
// over only after a session stayed subscribed for a heartbeat interval:
// a server that accepts, renews and drops at once is retried ever more
// slowly rather than hammered.
func (sh *shard) run(first *session) {
	s := sh.s
	defer s.wg.Done()
	var (
		lost    time.Time // when the last good session ended
		reason  error
		attempt int
	)
	ss := first
	for {
		if ss == nil {
			if attempt > 0 || !lost.IsZero() {
				if !wait.Sleep(s.ctx, transport.Jitter(s.set.minBackoff, s.set.maxBackoff, attempt, rand.Float64())) {
					return
				}
			}
			var err error
			ss, err = s.connect(s.ctx, sh)
			if err != nil {
				if s.ctx.Err() != nil {
					return
				}
				if fatal(err) {
					s.cancel(err)
					return
				}
				s.logf(slog.LevelWarn, "itick stream connect failed", "conn", sh.id, "attempt", attempt+1, "err", err)
				attempt++
				continue
			}
		}
		s.logf(slog.LevelDebug, "itick stream connected", "conn", sh.id)
		up, subscribed, err := sh.serve(ss, lost, reason)
		ss = nil
		if s.ctx.Err() != nil {
			return
		}
		err = s.cleanErr(err)
		s.reconnects.Add(1)
		s.logf(slog.LevelWarn, "itick stream connection lost", "conn", sh.id, "err", err)
		if subscribed {
			lost, reason = time.Now(), err
		}
		if up >= s.set.pingInterval {
			attempt = 0
		} else {
			attempt++
		}
	}
}

// serve renews the shard's subscriptions on ss, reports the gap since
// lost, and returns when the connection ends, saying how long it stayed
// subscribed, if it got that far.
func (sh *shard) serve(ss *session, lost time.Time, reason error) (up time.Duration, subscribed bool, err error) {
	s := sh.s
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		ss.heartbeat(s.set.pingInterval, s.set.pongTimeout)
	}()
	defer func() {
		ss.close(s.ctx.Err() != nil)
		<-hbDone
		if err == nil {
			err = context.Cause(ss.ctx)
		}
	}()

	if err := sh.resubscribe(ss); err != nil {
		return 0, false, err
	}
	since := time.Now()
	if !lost.IsZero() {
		syms := s.subscribedSymbols(sh)
		s.gaps.Add(1)
		s.emit(GapEvent{Conn: sh.id, From: lost, To: time.Now(), Reason: reason, Symbols: syms})
	}

	select {
	case <-s.ctx.Done():
	case <-ss.ctx.Done():
	}
	sh.stateMu.Lock()
	sh.ss = nil
	sh.readyCh = make(chan struct{})
	sh.stateMu.Unlock()
	return time.Since(since), true, nil
}

// resubscribe sends every acknowledged subscription, grouped by channel
// set, and marks the shard ready. It holds reqMu throughout, so an
// Unsubscribe made meanwhile goes out after the renewal, on this session.
func (sh *shard) resubscribe(ss *session) error {
	s := sh.s
	select {
	case sh.reqMu <- struct{}{}:
	case <-ss.ctx.Done():
		return context.Cause(ss.ctx)
	case <-s.ctx.Done():
		return ErrStreamClosed
	}
	defer sh.unlock()

	for _, g := range s.renewals(sh) {
		err := ss.exchange("subscribe", g.syms, g.chans)
		var refused *StreamError
		switch {
		case errors.As(err, &refused):
			s.dropRefused(sh, g.entries)
			s.emit(ErrorEvent{Conn: sh.id, Err: fmt.Errorf("itick: stream: renewing %d product(s) refused, now dropped: %w",
				len(g.syms), err)})
		case err != nil:
			return err
		}
	}
	sh.stateMu.Lock()
	sh.ss = ss
	close(sh.readyCh)
	sh.stateMu.Unlock()
	return nil
}

type streamRequest struct {
	Ac     string `json:"ac"`
	Params string `json:"params"`
	Types  string `json:"types,omitempty"`
}

// write sends one request, bounded by the dial timeout. A failed write
// leaves the connection unusable, so it ends the session.
func (ss *session) write(req streamRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ss.ctx, ss.sh.s.set.dialTimeout)
	defer cancel()
	if err := ss.conn.Write(ctx, websocket.MessageText, b); err != nil {
		ss.cancel(fmt.Errorf("writing %s: %w", req.Ac, err))
		return err
	}
	return nil
}

// exchange sends one subscribe or unsubscribe and waits for its
// acknowledgement, however long the caller would have waited: reqMu is
// held, so the next acknowledgement is this request's, and leaving it
// unread would hand it to the next request. No acknowledgement within
// the dial timeout ends the session, since what the service holds is
// unknown from then on; the next session renews the client's view.
func (ss *session) exchange(action string, syms []streamSymbol, chans []Channel) error {
	s := ss.sh.s
	select {
	case <-ss.acks: // unsolicited: no request was waiting for it
	default:
	}
	if err := ss.write(streamRequest{Ac: action, Params: joinSymbols(syms), Types: joinChannels(chans)}); err != nil {
		return fmt.Errorf("%w: %v", errConnLost, s.cleanErr(err))
	}
	t := time.NewTimer(s.set.dialTimeout)
	defer t.Stop()
	select {
	case m := <-ss.acks:
		return s.ackErr(action, m)
	case <-ss.ctx.Done():
		select {
		case m := <-ss.acks: // it came just before the connection ended
			return s.ackErr(action, m)
		default:
		}
		return fmt.Errorf("%w: %v", errConnLost, s.cleanErr(context.Cause(ss.ctx)))
	case <-t.C:
		err := fmt.Errorf("itick: stream %s: no acknowledgement within %s", action, s.set.dialTimeout)
		ss.cancel(err)
		return err
	}
}

// ackErr reads an acknowledgement: nil for success, a *StreamError for a
// refusal.
func (s *Stream) ackErr(action string, m *message) error {
	if m.Code.N == 1 && m.Code.Text == "" {
		return nil
	}
	return &StreamError{Action: action, Code: m.Code.N, CodeText: codec.CodeText(s.red.Bound(m.Code.Text, 64)),
		Message: s.text(string(m.Msg))}
}

// heartbeat pings every interval and ends the session when a ping goes
// unanswered for timeout: this is what notices a silent server.
func (ss *session) heartbeat(interval, timeout time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	wait := time.NewTimer(timeout)
	wait.Stop()
	for {
		select {
		case <-ss.ctx.Done():
			return
		case <-tick.C:
		}
		select {
		case <-ss.pongs:
		default:
		}
		ms := strconv.FormatInt(time.Now().UnixMilli(), 10)
		if ss.write(streamRequest{Ac: "ping", Params: ms}) != nil {
			return
		}
		wait.Reset(timeout)
		select {
		case <-ss.ctx.Done():
			wait.Stop()
			return
		case <-ss.pongs:
			wait.Stop()
		case <-wait.C:
			ss.cancel(fmt.Errorf("%w for %s", errNoPong, timeout))
			return
		}
	}
}

// read turns every message into an event or hands it to whoever waits for
// it, until the connection fails.
func (ss *session) read() {
	defer close(ss.done)
	s := ss.sh.s
	dec := newPushDecoder(s.matcher(ss.sh))
	// The reads take a context that never ends, which costs the WebSocket
	// library nothing per frame; the session's context ends them by
	// closing the connection instead.
	stop := context.AfterFunc(ss.ctx, func() { ss.conn.CloseNow() })
	defer stop()
	var buf bytes.Buffer
	for {
		_, r, err := ss.conn.Reader(context.Background())
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(r)
		}
		if err != nil {
			ss.cancel(fmt.Errorf("itick: stream read: %w", err))
			return
		}
		kind, ev, err := dec.decode(buf.Bytes())
		if kind == msgPush {
			if err != nil {
				s.emit(ErrorEvent{Conn: ss.sh.id, Err: s.cleanErr(err)})
				continue
			}
			s.received.Add(1)
			s.emit(ev)
			continue
		}
		m, err := decodeReply(buf.Bytes())
		if err != nil {
			s.emit(ErrorEvent{Conn: ss.sh.id, Err: s.cleanErr(err)})
			continue
		}
		// Route by resAc, then by what data holds, never by code: code
		// is 1 on success here, 0 on the legacy kline push, and absent
		// on a pong.
		switch {
		case m.ResAc == "pong":
			offer(ss.pongs, struct{}{})
		case m.ResAc == "auth":
			offer(ss.auth, m)
		case m.ResAc == "subscribe" || m.ResAc == "unsubscribe":
			offer(ss.acks, m)
		case m.ResAc != "":
			// A reply to nothing the SDK sends.
		case errtext.Fails(m.Msg):
			// Not a push: the connect message, or a refusal of the token
			// that names no action.
			offer(ss.auth, m)
		}
	}
}

// offer puts v in a one-slot channel, replacing what nobody took.
func offer[T any](ch chan T, v T) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// close ends the connection, with a close handshake when graceful, and
// waits for the reader.
func (ss *session) close(graceful bool) {
	if graceful {
		done := make(chan struct{})
		go func() {
			defer close(done)
			ss.conn.Close(websocket.StatusNormalClosure, "")
		}()
		t := time.NewTimer(closeGrace)
		select {
		case <-done:
		case <-t.C:
			ss.cancel(ErrStreamClosed) // the reader's context: closes the socket
			<-done
		}
		t.Stop()
	} else {
		ss.conn.CloseNow()
	}
	ss.cancel(errConnLost)
	<-ss.done
}

// handshakeTransport returns the transport handshakes use unless
// WithStreamHTTPClient sets one: a copy of base, else of
// http.DefaultTransport, when that is an *http.Transport, with keep-alives
// off; nil when neither is (a program wrapped them), which leaves the
// handshake to http.DefaultClient.
//
// A copy, because a handshake's connection is never reused (a successful
// one is taken over by the WebSocket, a refused one is done with), while
// net/http finishes a dial even after its request is cancelled and keeps
// the connection idle for later requests: a Stream closed during a
// reconnection would otherwise leave a connection, and the goroutines
// that serve it, in the REST pool for as long as the pool keeps it.
func handshakeTransport(base http.RoundTripper) *http.Transport {
	t, ok := base.(*http.Transport)
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

// errOtherOrigin refuses a handshake redirect that leaves the stream URL's
// origin: the request carries the token.
var errOtherOrigin = errors.New("itick: stream: redirect to another origin not followed (the token goes only to the stream URL's origin)")

// handshakeClient returns a copy of hc (nil means a zero http.Client)
// that follows a handshake redirect only within origin, so the token
// header goes nowhere else. Not following is clearer than following
// without the token, which the service would refuse as unauthorized and
// so end the Stream on a token that is fine. hc's own CheckRedirect, if
// any, is asked next.
func handshakeClient(hc *http.Client, origin *url.URL) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !transport.SameOrigin(origin, req.URL) {
			return errOtherOrigin
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}
