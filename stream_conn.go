package itick

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/d19c4e34/itick/internal/wait"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick/internal/transport"
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
	// subs is what the shard should carry: each product's channels, true
	// once the service has acknowledged them. Renewals send the
	// acknowledged ones; a Subscribe in progress sends its own. Guarded
	// by s.mu.
	subs map[streamSymbol]map[Channel]bool

	reqMu chan struct{} // one request/acknowledgement exchange at a time

	stateMu sync.Mutex // guards the three fields below
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
	sh.subs = make(map[streamSymbol]map[Channel]bool)
	sh.reqMu = make(chan struct{}, 1)
	sh.readyCh = make(chan struct{})
}

// current returns the session that is up and subscribed, or nil.
func (sh *shard) current() *session {
	sh.stateMu.Lock()
	defer sh.stateMu.Unlock()
	return sh.ss
}

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
			return nil, &APIError{StatusCode: resp.StatusCode, Path: path,
				Message: "WebSocket handshake refused"}
		}
		return nil, fmt.Errorf("itick: stream %s: %w", path, s.c.redactErr(err))
	}
	conn.SetReadLimit(maxStreamMessage)
	ss := &session{sh: sh, conn: conn, done: make(chan struct{}),
		auth: make(chan *message, 1), acks: make(chan *message, 1), pongs: make(chan struct{}, 1)}
	ss.ctx, ss.cancel = context.WithCancelCause(context.Background())
	go ss.read()

	select {
	case m := <-ss.auth:
		if int(m.Code) == 1 {
			return ss, nil
		}
		err = &StreamError{Action: "auth", Code: int(m.Code), Message: s.c.redact(string(m.Msg))}
	case <-ss.ctx.Done():
		err = fmt.Errorf("itick: stream /%s: before authentication: %w", s.class, context.Cause(ss.ctx))
	case <-ctx.Done():
		err = fmt.Errorf("itick: stream /%s: waiting for authentication: %w", s.class, ctx.Err())
	}
	ss.close(false)
	return nil, err
}

// fatal reports errors no reconnection can mend.
func fatal(err error) bool { return errors.Is(err, ErrUnauthorized) }

// run keeps the shard connected until the Stream ends. first is an
// authenticated session to start with, or nil.
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
		subscribed, err := sh.serve(ss, lost, reason)
		ss = nil
		if s.ctx.Err() != nil {
			return
		}
		s.reconnects.Add(1)
		s.logf(slog.LevelWarn, "itick stream connection lost", "conn", sh.id, "err", err)
		if subscribed {
			lost, reason, attempt = time.Now(), err, 0
		} else {
			attempt++
		}
	}
}

// serve renews the shard's subscriptions on ss, reports the gap since
// lost, and returns when the connection ends, saying whether it got as
// far as being subscribed.
func (sh *shard) serve(ss *session, lost time.Time, reason error) (subscribed bool, err error) {
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
		return false, err
	}
	if !lost.IsZero() {
		s.mu.Lock()
		syms := make([]string, 0, len(sh.subs))
		for sym := range sh.subs {
			syms = append(syms, sym.String())
		}
		s.mu.Unlock()
		slices.Sort(syms)
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
	return true, nil
}

// resubscribe sends every wanted subscription, grouped by channel set, and
// marks the shard ready.
func (sh *shard) resubscribe(ss *session) error {
	s := sh.s
	sh.reqMu <- struct{}{}
	defer func() { <-sh.reqMu }()

	type group struct {
		chans []Channel
		syms  []streamSymbol
	}
	s.mu.Lock()
	groups := make(map[string]*group)
	for sym, set := range sh.subs {
		chans := sortedChannels(set, func(acked bool) bool { return acked })
		if len(chans) == 0 {
			continue
		}
		key := joinChannels(chans)
		g := groups[key]
		if g == nil {
			g = &group{chans: chans}
			groups[key] = g
		}
		g.syms = append(g.syms, sym)
	}
	s.mu.Unlock()

	for _, g := range groups {
		for chunk := range slices.Chunk(g.syms, s.set.symbolsPerConn) {
			err := ss.exchange(s.ctx, "subscribe", chunk, g.chans)
			var refused *StreamError
			switch {
			case errors.As(err, &refused):
				s.emit(ErrorEvent{Conn: sh.id, Err: fmt.Errorf("renewing %d subscription(s): %w", len(chunk), err)})
			case err != nil:
				return err
			}
		}
	}
	sh.stateMu.Lock()
	sh.ss = ss
	close(sh.readyCh)
	sh.stateMu.Unlock()
	return nil
}

// request sends a subscribe or unsubscribe on the shard's connection.
// A subscribe waits for the connection to be up and is sent again if it
// goes down before the acknowledgement; once acknowledged, renewals carry
// it. An unsubscribe with no connection up needs nothing sent: the next
// renewal leaves it out.
func (sh *shard) request(ctx context.Context, action string, syms []streamSymbol, chans []Channel) error {
	s := sh.s
	sub := action == "subscribe"
	for {
		if sub {
			sh.stateMu.Lock()
			ready := sh.readyCh
			sh.stateMu.Unlock()
			select {
			case <-ready:
			case <-ctx.Done():
				return ctx.Err()
			case <-s.ctx.Done():
				return ErrStreamClosed
			}
		}
		select {
		case sh.reqMu <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return ErrStreamClosed
		}
		ss := sh.current()
		var err error
		if ss == nil {
			err = errConnLost
		} else {
			for chunk := range slices.Chunk(syms, s.set.symbolsPerConn) {
				if err = ss.exchange(ctx, action, chunk, chans); err != nil {
					break
				}
			}
			if err == nil && sub {
				s.acknowledge(sh, syms, chans)
			}
		}
		<-sh.reqMu
		if !errors.Is(err, errConnLost) {
			return err
		}
		if !sub {
			return nil
		}
	}
}

// acknowledge marks subscriptions the service accepted, so renewals
// carry them.
func (s *Stream) acknowledge(sh *shard, syms []streamSymbol, chans []Channel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sym := range syms {
		if set := sh.subs[sym]; set != nil {
			for _, ch := range chans {
				if _, ok := set[ch]; ok {
					set[ch] = true
				}
			}
		}
	}
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
// acknowledgement.
func (ss *session) exchange(ctx context.Context, action string, syms []streamSymbol, chans []Channel) error {
	select {
	case <-ss.acks:
	default:
	}
	if err := ss.write(streamRequest{Ac: action, Params: joinSymbols(syms), Types: joinChannels(chans)}); err != nil {
		return fmt.Errorf("%w: %v", errConnLost, err)
	}
	t := time.NewTimer(ss.sh.s.set.dialTimeout)
	defer t.Stop()
	select {
	case m := <-ss.acks:
		if int(m.Code) == 1 {
			return nil
		}
		return &StreamError{Action: action, Code: int(m.Code), Message: ss.sh.s.c.redact(string(m.Msg))}
	case <-ss.ctx.Done():
		return fmt.Errorf("%w: %v", errConnLost, context.Cause(ss.ctx))
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("itick: stream %s: no acknowledgement within %s", action, ss.sh.s.set.dialTimeout)
	}
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
	region := s.regionOf(ss.sh)
	var buf bytes.Buffer
	for {
		_, r, err := ss.conn.Reader(ss.ctx)
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(r)
		}
		if err != nil {
			ss.cancel(fmt.Errorf("itick: stream read: %w", err))
			return
		}
		var m message
		if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
			s.emit(ErrorEvent{Conn: ss.sh.id, Err: fmt.Errorf("itick: stream message: %w", err)})
			continue
		}
		switch {
		case m.ResAc == "pong":
			offer(ss.pongs, struct{}{})
		case m.ResAc == "auth" || (m.ResAc == "" && m.Data == nil && hasErrorText(string(m.Msg))):
			offer(ss.auth, &m)
		case m.ResAc == "subscribe" || m.ResAc == "unsubscribe":
			offer(ss.acks, &m)
		case m.ResAc == "" && m.Data != nil:
			ev, err := decodePush(m.Data, region)
			if err != nil {
				s.emit(ErrorEvent{Conn: ss.sh.id, Err: err})
				continue
			}
			s.received.Add(1)
			s.emit(ev)
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
