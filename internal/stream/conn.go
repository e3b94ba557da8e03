package stream

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
	"strings"
	"sync"
	"sync/atomic"
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

// maxRefusalBody bounds what is read of a refused handshake's body.
const maxRefusalBody = 1 << 10

// closeGrace is how long a closing Engine waits for the service to answer
// its close frame before it drops the connection.
const closeGrace = time.Second

// errConnLost reports a request whose connection went down before its
// acknowledgement; the renewed connection carries the subscription.
var errConnLost = errors.New("itick: stream connection lost")

// ErrNoPong reports a connection the heartbeat found dead.
var ErrNoPong = errors.New("itick: stream: ping unanswered")

// shard is one of an Engine's connections and the products it carries. It
// outlives its sessions: each reconnection is a new session.
type shard[E any] struct {
	e  *Engine[E]
	id int
	// subs is what the shard carries or is asked to carry: each product's
	// channels. Guarded by e.mu.
	subs map[Symbol]map[string]*subEntry

	// reqMu lets one request at a time await its acknowledgement on the
	// shard's connection. Acknowledgements carry no id, so this is what
	// ties each one to its request.
	reqMu chan struct{}

	stateMu sync.Mutex // guards the two fields below
	ss      *session[E]
	readyCh chan struct{} // closed while a session is up and subscribed
}

func (e *Engine[E]) newShard() *shard[E] {
	sh := &shard[E]{e: e, id: len(e.shards)}
	sh.init()
	e.shards = append(e.shards, sh)
	return sh
}

func (sh *shard[E]) init() {
	sh.subs = make(map[Symbol]map[string]*subEntry)
	sh.reqMu = make(chan struct{}, 1)
	sh.readyCh = make(chan struct{})
}

// current returns the session that is up and subscribed, or nil.
func (sh *shard[E]) current() *session[E] {
	sh.stateMu.Lock()
	defer sh.stateMu.Unlock()
	return sh.ss
}

// ready returns a channel closed once a session is up and subscribed.
func (sh *shard[E]) ready() <-chan struct{} {
	sh.stateMu.Lock()
	defer sh.stateMu.Unlock()
	return sh.readyCh
}

// lock takes reqMu unless ctx or the Engine ends first.
func (sh *shard[E]) lock(ctx context.Context) error {
	select {
	case sh.reqMu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sh.e.ctx.Done():
		return sh.e.cfg.ErrClosed
	}
}

func (sh *shard[E]) unlock() { <-sh.reqMu }

// session is one WebSocket connection of a shard.
type session[E any] struct {
	sh     *shard[E]
	conn   *websocket.Conn
	ctx    context.Context // ends when the connection is unusable
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when the reader has returned

	auth  chan Reply
	acks  chan Reply
	pongs chan struct{}

	// active is when the session last pushed, or last had a subscription
	// acknowledged (Unix ns): what the stale watchdog reads.
	active atomic.Int64
}

// connect dials, starts the reader and waits for the service to accept
// the token.
func (e *Engine[E]) connect(ctx context.Context, sh *shard[E]) (*session[E], error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.DialTimeout)
	defer cancel()
	hdr := e.hdr.Clone()
	hdr.Set("token", e.cfg.Token)
	conn, resp, err := websocket.Dial(ctx, e.cfg.URL, &websocket.DialOptions{
		HTTPClient: e.cfg.HTTPClient,
		HTTPHeader: hdr,
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			// The dialer keeps at most the first KiB of a refusal's body,
			// which is what an error's evidence carries anyway.
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, maxRefusalBody))
			}
			return nil, e.cfg.Hooks.HandshakeRefused(resp.StatusCode, resp.Header, body)
		}
		return nil, e.cleanErr(fmt.Errorf("itick: stream /%s: %w", e.cfg.Class, err))
	}
	conn.SetReadLimit(maxStreamMessage)
	ss := &session[E]{sh: sh, conn: conn, done: make(chan struct{}),
		auth: make(chan Reply, 1), acks: make(chan Reply, 1), pongs: make(chan struct{}, 1)}
	ss.ctx, ss.cancel = context.WithCancelCause(context.Background())
	go ss.read()

	authed := func(m Reply) error {
		_, err := e.ackErr("auth", m)
		return err
	}
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
				err = fmt.Errorf("itick: stream /%s: after authentication: %w", e.cfg.Class, context.Cause(ss.ctx))
			}
		default:
			err = fmt.Errorf("itick: stream /%s: before authentication: %w", e.cfg.Class, context.Cause(ss.ctx))
		}
	case <-ctx.Done():
		err = fmt.Errorf("itick: stream /%s: waiting for authentication: %w", e.cfg.Class, ctx.Err())
	}
	ss.close(false)
	return nil, e.cleanErr(err)
}

// run keeps the shard connected until the Engine ends. first is an
// authenticated session to start with, or nil.
//
// The wait before each reconnection grows with every attempt, and starts
// over only after a session stayed subscribed for a heartbeat interval:
// a server that accepts, renews and drops at once is retried ever more
// slowly rather than hammered.
func (sh *shard[E]) run(first *session[E]) {
	e := sh.e
	defer e.wg.Done()
	var (
		lost     time.Time // when the last good session ended
		reason   error
		attempt  int
		refusals int // refused authentications in a row
	)
	ss := first
	for {
		if ss == nil {
			if attempt > 0 || !lost.IsZero() {
				if !wait.Sleep(e.ctx, transport.Jitter(e.cfg.MinBackoff, e.cfg.MaxBackoff, attempt, rand.Float64())) {
					return
				}
			}
			var err error
			ss, err = e.connect(e.ctx, sh)
			if err != nil {
				if e.ctx.Err() != nil {
					return
				}
				// The token was accepted on this Engine (New authenticated
				// it), so a refusal now may be the service's hiccup: it is
				// tried again a few times before it ends the Engine.
				if e.cfg.Hooks.Fatal(err) {
					if refusals >= e.cfg.AuthRetries {
						e.cancel(err)
						return
					}
					refusals++
				}
				e.logf(slog.LevelWarn, "itick stream connect failed", "conn", sh.id, "attempt", attempt+1, "err", err)
				attempt++
				continue
			}
			refusals = 0
		}
		e.logf(slog.LevelDebug, "itick stream connected", "conn", sh.id)
		up, subscribed, err := sh.serve(ss, lost, reason)
		ss = nil
		if e.ctx.Err() != nil {
			return
		}
		err = e.cleanErr(err)
		e.reconnects.Add(1)
		e.logf(slog.LevelWarn, "itick stream connection lost", "conn", sh.id, "err", err)
		if subscribed {
			lost, reason = time.Now(), err
			e.down.Add(1)
			e.emitEvent(e.cfg.Hooks.Disconnect(sh.id, lost, err, e.subscribedSymbols(sh)))
		}
		if up >= e.cfg.PingInterval {
			attempt = 0
		} else {
			attempt++
		}
	}
}

// serve renews the shard's subscriptions on ss, reports the gap since
// lost, and returns when the connection ends, saying how long it stayed
// subscribed, if it got that far.
func (sh *shard[E]) serve(ss *session[E], lost time.Time, reason error) (up time.Duration, subscribed bool, err error) {
	e := sh.e
	hbDone := make(chan struct{})
	var wdDone chan struct{} // the stale watchdog's, when there is one
	go func() {
		defer close(hbDone)
		ss.heartbeat(e.cfg.PingInterval, e.cfg.PongTimeout)
	}()
	defer func() {
		ss.close(e.ctx.Err() != nil) // ends the heartbeat and the watchdog
		<-hbDone
		if wdDone != nil {
			<-wdDone
		}
		if err == nil {
			err = context.Cause(ss.ctx)
		}
	}()

	if err := sh.resubscribe(ss); err != nil {
		return 0, false, err
	}
	since := time.Now()
	ss.active.Store(since.UnixNano())
	if e.cfg.StaleAfter > 0 {
		wdDone = make(chan struct{})
		go func() {
			defer close(wdDone)
			ss.watch(e.cfg.StaleAfter)
		}()
	}
	if !lost.IsZero() {
		syms := e.subscribedSymbols(sh)
		e.down.Add(-1) // renewed: down no more by the time the gap is read
		e.gaps.Add(1)
		e.emitEvent(e.cfg.Hooks.Gap(sh.id, lost, time.Now(), reason, syms))
	}

	select {
	case <-e.ctx.Done():
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
func (sh *shard[E]) resubscribe(ss *session[E]) error {
	e := sh.e
	select {
	case sh.reqMu <- struct{}{}:
	case <-ss.ctx.Done():
		return context.Cause(ss.ctx)
	case <-e.ctx.Done():
		return e.cfg.ErrClosed
	}
	defer sh.unlock()

	for _, g := range e.renewals(sh) {
		refused, err := ss.exchange("subscribe", g.syms, g.chans)
		switch {
		case refused:
			e.dropRefused(sh, g.entries)
			e.buf.putError(sh.id, fmt.Errorf("itick: stream: renewing %d product(s) refused, now dropped: %w", len(g.syms), err))
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
func (ss *session[E]) write(req streamRequest) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ss.ctx, ss.sh.e.cfg.DialTimeout)
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
// refused reports that the service refused the request, with its reason
// in err.
func (ss *session[E]) exchange(action string, syms []Symbol, chans []string) (refused bool, err error) {
	e := ss.sh.e
	select {
	case <-ss.acks: // unsolicited: no request was waiting for it
	default:
	}
	if err := ss.write(streamRequest{Ac: action, Params: joinSymbols(syms), Types: strings.Join(chans, ",")}); err != nil {
		return false, fmt.Errorf("%w: %v", errConnLost, e.cleanErr(err))
	}
	t := time.NewTimer(e.cfg.DialTimeout)
	defer t.Stop()
	select {
	case m := <-ss.acks:
		return e.ackErr(action, m)
	case <-ss.ctx.Done():
		select {
		case m := <-ss.acks: // it came just before the connection ended
			return e.ackErr(action, m)
		default:
		}
		return false, fmt.Errorf("%w: %v", errConnLost, e.cleanErr(context.Cause(ss.ctx)))
	case <-t.C:
		err := fmt.Errorf("itick: stream %s: no acknowledgement within %s", action, e.cfg.DialTimeout)
		ss.cancel(err)
		return false, err
	}
}

// ackErr reads an acknowledgement: nothing for success, the caller's
// error for a refusal, its texts scrubbed.
func (e *Engine[E]) ackErr(action string, m Reply) (refused bool, err error) {
	if m.Code == 1 && m.CodeText == "" {
		return false, nil
	}
	m.CodeText = codec.CodeText(e.red.Bound(m.CodeText, 64))
	m.Msg = e.text(m.Msg)
	return true, e.cfg.Hooks.Refused(action, m)
}

func joinSymbols(syms []Symbol) string {
	var b strings.Builder
	for i, sym := range syms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(sym.String())
	}
	return b.String()
}

// heartbeat pings every interval and ends the session when a ping goes
// unanswered for timeout: this is what notices a silent server.
func (ss *session[E]) heartbeat(interval, timeout time.Duration) {
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
			ss.cancel(fmt.Errorf("%w for %s", ErrNoPong, timeout))
			return
		}
	}
}

// watch ends the session when it carries subscriptions and has pushed
// nothing for staleAfter, though it may still answer pings: a server that
// keeps a socket open and silent. The watch looks four times a period.
func (ss *session[E]) watch(staleAfter time.Duration) {
	e := ss.sh.e
	tick := time.NewTicker(max(staleAfter/4, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ss.ctx.Done():
			return
		case now := <-tick.C:
			quiet := now.Sub(time.Unix(0, ss.active.Load()))
			if quiet >= staleAfter && e.carries(ss.sh) {
				ss.cancel(fmt.Errorf("%w: nothing pushed for %s", e.cfg.ErrStale, quiet.Round(time.Millisecond)))
				return
			}
		}
	}
}

// read turns every message into an event or hands it to whoever waits for
// it, until the connection fails.
func (ss *session[E]) read() {
	defer close(ss.done)
	e := ss.sh.e
	st := codec.NewState()
	dec := e.cfg.Hooks.NewDecoder(e.matcher(ss.sh), e.red)
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
		f := Decode(st, dec, buf.Bytes())
		switch {
		case f.Err != nil:
			e.buf.putError(ss.sh.id, e.cleanErr(f.Err))
		case f.Push:
			e.received.Add(1)
			if e.cfg.StaleAfter > 0 {
				ss.active.Store(time.Now().UnixNano())
			}
			e.emit(f.Event, int64(buf.Len()))
		default:
			ss.route(f.Reply)
		}
	}
}

// route hands a reply to whoever waits for it.
func (ss *session[E]) route(m Reply) {
	switch {
	case m.ResAc == "pong":
		offer(ss.pongs, struct{}{})
	case m.ResAc == "auth":
		offer(ss.auth, m)
	case m.ResAc == "subscribe" || m.ResAc == "unsubscribe":
		ss.active.Store(time.Now().UnixNano())
		offer(ss.acks, m)
	case m.ResAc != "":
		// A reply to nothing the SDK sends.
	case errtext.Fails(m.Msg):
		// Not a push: the connect message, or a refusal of the token
		// that names no action.
		offer(ss.auth, m)
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
func (ss *session[E]) close(graceful bool) {
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
			ss.cancel(ss.sh.e.cfg.ErrClosed) // the reader's context: closes the socket
			<-done
		}
		t.Stop()
	} else {
		ss.conn.CloseNow()
	}
	ss.cancel(errConnLost)
	<-ss.done
}

// errOtherOrigin refuses a handshake redirect that leaves the stream URL's
// origin: the request carries the token.
var errOtherOrigin = errors.New("itick: stream: redirect to another origin not followed (the token goes only to the stream URL's origin)")

// handshakeClient returns a copy of hc (nil means a zero http.Client)
// that follows a handshake redirect only within origin, so the token
// header goes nowhere else. Not following is clearer than following
// without the token, which the service would refuse as unauthorized and
// so end the Engine on a token that is fine. hc's own CheckRedirect, if
// any, is asked next.
func handshakeClient(hc *http.Client, rawURL string) *http.Client {
	origin, _ := url.Parse(rawURL)
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
