package itick

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/d19c4e34/itick/internal/redact"
)

// ErrStreamClosed reports a call on a Stream that has ended.
var ErrStreamClosed = errors.New("itick: stream closed")

// streamClasses are the asset classes the service streams, each at /<class>.
var streamClasses = []AssetType{AssetStock, AssetForex, AssetIndices, AssetCrypto, AssetFuture, AssetFund}

// Stream is a live feed of one asset class over the service's WebSocket
// channel. It keeps itself connected: it pings, notices a silent or lost
// connection, reconnects with jittered backoff, authenticates and renews
// every subscription, and reports each outage as a GapEvent. Products are
// spread over as many connections as the per-connection limit needs,
// within the connection cap.
//
// Events arrive on the channel Events returns, so a consumer can select on
// them beside its own timers and contexts. The channel is buffered; when
// the consumer falls behind, the overflow policy (DropOldest by default)
// drops events and Dropped counts them, so the socket reader never blocks.
// The channel is closed once the Stream has ended and every goroutine it
// started has returned; Err then says why.
//
// A Stream is safe for concurrent use.
type Stream struct {
	c     *Client
	class AssetType
	url   string
	set   streamSettings
	hdr   http.Header // without the token, which is added per dial
	log   *slog.Logger
	red   *redact.Redactor // keeps the token out of server text passed on

	ctx    context.Context
	cancel context.CancelCauseFunc
	events chan Event
	done   chan struct{}

	mu      sync.Mutex
	shards  []*shard
	owner   map[string]owned // by streamSymbol.key
	closing bool
	wg      sync.WaitGroup
	// index is the subscribed products by upper-case code, for matching
	// pushes without taking mu. It is rebuilt from owner whenever a
	// Subscribe or Unsubscribe changes which products there are; a
	// product dropped otherwise (refused, or withdrawn before it was
	// sent) lingers until then, which only names its late pushes.
	index atomic.Pointer[map[string][]owned]

	received   atomic.Uint64
	dropped    atomic.Uint64
	reconnects atomic.Uint64
	gaps       atomic.Uint64
}

// StreamStats is a snapshot of a Stream's counters.
type StreamStats struct {
	Conns      int    // connections up and subscribed now
	Symbols    int    // products the service has acknowledged (renewed after each reconnection)
	Events     uint64 // pushes decoded since the start
	Dropped    uint64 // events the overflow policy discarded
	Reconnects uint64 // connections lost and replaced
	Gaps       uint64 // GapEvents sent
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
	if !slices.Contains(streamClasses, class) {
		return nil, invalidArg("unknown stream class %q (want one of %v)", string(class), streamClasses)
	}
	set := streamSettings{
		url:            streamURL(c.baseURL),
		pingInterval:   DefaultPingInterval,
		pongTimeout:    DefaultPongTimeout,
		dialTimeout:    DefaultDialTimeout,
		minBackoff:     c.rc.RetryWaitMin,
		maxBackoff:     c.rc.RetryWaitMax,
		buffer:         DefaultStreamBuffer,
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
	set.httpClient = handshakeClient(set.httpClient, set.url)
	u := *set.url
	u.Path += "/" + string(class)
	s := &Stream{
		c:      c,
		class:  class,
		url:    u.String(),
		set:    set,
		hdr:    http.Header{"User-Agent": {c.userAgent}},
		log:    c.attempt.Logger,
		red:    redact.New(c.attempt.Token),
		events: make(chan Event, set.buffer),
		done:   make(chan struct{}),
		owner:  make(map[string]owned),
	}
	s.ctx, s.cancel = context.WithCancelCause(ctx)

	first := s.newShard()
	ss, err := s.connect(ctx, first)
	if err != nil {
		s.cancel(err)
		return nil, err
	}
	s.wg.Add(1)
	go first.run(ss)
	go func() {
		<-s.ctx.Done()
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.wg.Wait()
		close(s.events)
		close(s.done)
	}()
	return s, nil
}

// String describes the stream without its token.
func (s *Stream) String() string {
	st := s.Stats()
	return fmt.Sprintf("itick.Stream{URL: %q, Conns: %d, Symbols: %d}", s.url, st.Conns, st.Symbols)
}

// GoString is String, so %#v keeps the token out too.
func (s *Stream) GoString() string { return s.String() }

// Format prints String for every verb, so no verb reaches the token.
func (s *Stream) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// Events returns the channel events arrive on. It is closed when the
// Stream ends.
func (s *Stream) Events() <-chan Event { return s.events }

// Close closes every connection and returns once every goroutine the
// Stream started has ended and Events is closed. It is safe to call more
// than once.
func (s *Stream) Close() error {
	s.cancel(ErrStreamClosed)
	<-s.done
	return nil
}

// Done is closed when the Stream has ended and Events is closed.
func (s *Stream) Done() <-chan struct{} { return s.done }

// Err says why the Stream ended: nil while it runs and after Close, the
// context's error after cancellation, or the failure that stopped it,
// such as a refused token (ErrUnauthorized).
func (s *Stream) Err() error {
	if s.ctx.Err() == nil {
		return nil
	}
	if err := context.Cause(s.ctx); !errors.Is(err, ErrStreamClosed) {
		return err
	}
	return nil
}

// Dropped is the number of events the overflow policy has discarded.
func (s *Stream) Dropped() uint64 { return s.dropped.Load() }

// Stats returns the Stream's counters.
func (s *Stream) Stats() StreamStats {
	st := StreamStats{Events: s.received.Load(), Dropped: s.dropped.Load(),
		Reconnects: s.reconnects.Load(), Gaps: s.gaps.Load()}
	s.mu.Lock()
	for _, sh := range s.shards {
		for _, set := range sh.subs {
			if hasAcked(set) {
				st.Symbols++
			}
		}
	}
	shards := slices.Clone(s.shards)
	s.mu.Unlock()
	for _, sh := range shards {
		if sh.current() != nil {
			st.Conns++
		}
	}
	return st
}

// Subscribe asks for the given channels of the given products, written
// "code$REGION" (such as "700$HK" or "EURUSD$GB"), or
// "code$EXCHANGE$REGION" for a stock of a secondary exchange. Products are
// told apart ignoring case, as the service does: "xauusd$gb" is the
// product subscribed as "XAUUSD$GB", and its events keep the form it was
// first subscribed in. Products already subscribed keep their other
// channels. New products go to the first
// connection with room, and to a new connection when every one is full.
// When that would pass the connection cap (Plan.StreamConns, or
// WithMaxConns), or the products would number more than the cap on them
// (Plan.StreamSymbols, or WithMaxSymbols), nothing is subscribed or sent
// and the error matches ErrPlanLimit. A bad symbol or channel matches
// ErrInvalidArgument.
//
// Subscribe returns once the service has acknowledged the subscription on
// every connection involved, or ctx ends. A subscription the service
// refuses is forgotten and returned as a *StreamError. One made while its
// connection is down is sent when the connection is back, unless an
// Unsubscribe withdraws it first. When ctx ends before the request is
// sent, nothing is subscribed; when it ends after, the acknowledgement
// still decides: the Stream keeps, counts and renews what the service
// accepted, exactly as the service holds it.
func (s *Stream) Subscribe(ctx context.Context, symbols []string, channels ...Channel) error {
	syms, chans, err := s.lockFor(symbols, channels, false)
	if err != nil {
		return err
	}
	plan, err := s.place(syms)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	work := make(map[*shard][]*claim)
	added := false
	for _, sym := range syms {
		sh := plan[sym]
		if sh.id == len(s.shards) {
			s.shards = append(s.shards, sh)
			s.wg.Add(1)
			go sh.run(nil)
		}
		set := sh.subs[sym]
		if set == nil {
			set = make(map[Channel]*subEntry)
			sh.subs[sym] = set
			s.owner[sym.key()] = owned{sym, sh}
			added = true
		}
		for _, ch := range chans {
			e := set[ch]
			if e == nil {
				e = &subEntry{}
				set[ch] = e
			}
			if e.acked {
				continue
			}
			e.waiters++
			work[sh] = append(work[sh], &claim{sym: sym, ch: ch, e: e})
		}
	}
	if added {
		s.reindex()
	}
	s.mu.Unlock()

	return forEachShard(work, func(sh *shard, claims []*claim) error { return sh.subscribe(ctx, claims) })
}

// lockFor checks a Subscribe's or Unsubscribe's arguments and, when they
// are good and the Stream still runs, returns with s.mu held.
func (s *Stream) lockFor(symbols []string, channels []Channel, noChannelsOK bool) ([]streamSymbol, []Channel, error) {
	syms, err := parseStreamSymbols(symbols)
	if err != nil {
		return nil, nil, err
	}
	chans, err := parseChannels(channels, noChannelsOK)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	if s.closing || s.ctx.Err() != nil {
		s.mu.Unlock()
		return nil, nil, ErrStreamClosed
	}
	for i, sym := range syms {
		if o, ok := s.owner[sym.key()]; ok {
			syms[i] = o.sym // the form it was first subscribed in
		}
	}
	return syms, chans, nil
}

// place finds a connection for each product: the one that has it, else
// the first with room, else a new one within the cap. It changes nothing;
// new shards are returned with id equal to their future index. s.mu is held.
func (s *Stream) place(syms []streamSymbol) (map[streamSymbol]*shard, error) {
	added := 0
	for _, sym := range syms {
		if _, ok := s.owner[sym.key()]; !ok {
			added++
		}
	}
	if len(s.owner)+added > s.set.maxSymbols {
		return nil, fmt.Errorf("%w: %d product(s) subscribed and %d new would pass the cap of %d (the plan's, unless WithMaxSymbols sets it)",
			ErrPlanLimit, len(s.owner), added, s.set.maxSymbols)
	}
	plan := make(map[streamSymbol]*shard, len(syms))
	load := make(map[*shard]int)
	shards := slices.Clone(s.shards)
	var fresh []*shard
	for _, sym := range syms {
		if o, ok := s.owner[sym.key()]; ok {
			plan[sym] = o.sh
			continue
		}
		var target *shard
		for _, sh := range shards {
			if len(sh.subs)+load[sh] < s.set.symbolsPerConn {
				target = sh
				break
			}
		}
		if target == nil {
			if len(shards) >= s.set.maxConns {
				return nil, fmt.Errorf("%w: %d new products need more than %d connection(s) of %d products",
					ErrPlanLimit, len(syms), s.set.maxConns, s.set.symbolsPerConn)
			}
			target = &shard{s: s, id: len(shards)}
			shards = append(shards, target)
			fresh = append(fresh, target)
		}
		load[target]++
		plan[sym] = target
	}
	for _, sh := range fresh {
		sh.init()
	}
	return plan, nil
}

// Unsubscribe stops the given channels of the given products; with no
// channels it stops all of them. Products not subscribed are ignored. A
// product with no channel left frees its place on its connection.
//
// The Stream forgets the channels at once. When ctx ends before the
// service has acknowledged, the request still completes in the
// background, so the service forgets them too.
func (s *Stream) Unsubscribe(ctx context.Context, symbols []string, channels ...Channel) error {
	syms, chans, err := s.lockFor(symbols, channels, true)
	if err != nil {
		return err
	}
	type work struct {
		syms  []streamSymbol
		chans map[Channel]struct{}
	}
	todo := make(map[*shard]*work)
	removed := false
	for _, sym := range syms {
		o, ok := s.owner[sym.key()]
		if !ok {
			continue
		}
		sh := o.sh
		removed = true
		for ch, e := range sh.subs[sym] {
			if len(chans) != 0 && !slices.Contains(chans, ch) {
				continue
			}
			sh.remove(sym, ch)
			if !e.acked && !e.inflight {
				continue // the service never got it: nothing to send
			}
			w := todo[sh]
			if w == nil {
				w = &work{chans: make(map[Channel]struct{})}
				todo[sh] = w
			}
			if !slices.Contains(w.syms, sym) {
				w.syms = append(w.syms, sym)
			}
			w.chans[ch] = struct{}{}
		}
	}
	if removed {
		s.reindex()
	}
	results := make(chan error, len(todo))
	for sh, w := range todo {
		s.wg.Add(1) // s.mu is held and the Stream not closing: Wait has not begun
		go func() { results <- sh.unsubscribe(w.syms, sortedChannels(w.chans, nil)) }()
	}
	s.mu.Unlock()

	var errs []error
	for range todo {
		select {
		case err := <-results:
			errs = append(errs, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return errors.Join(errs...)
}

// forEachShard runs fn for every shard's work at once and joins the
// errors.
func forEachShard[T any](work map[*shard]T, fn func(*shard, T) error) error {
	errs := make([]error, 0, len(work))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for sh, syms := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(sh, syms); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// emit hands an event to the consumer without ever blocking: when the
// buffer is full the overflow policy decides what is dropped.
func (s *Stream) emit(ev Event) {
	for {
		select {
		case s.events <- ev:
			return
		default:
		}
		if s.set.overflow == DropNewest {
			s.dropped.Add(1)
			return
		}
		select {
		case <-s.events:
			s.dropped.Add(1)
		default:
		}
	}
}

// owned is a product as it was first subscribed, and its connection.
type owned struct {
	sym streamSymbol
	sh  *shard
}

// reindex rebuilds index from owner. s.mu is held.
func (s *Stream) reindex() {
	idx := make(map[string][]owned, len(s.owner))
	for _, o := range s.owner {
		k := strings.ToUpper(o.sym.code)
		idx[k] = append(idx[k], o)
	}
	for _, os := range idx {
		slices.SortFunc(os, func(a, b owned) int { return compareSymbols(a.sym, b.sym) })
	}
	s.index.Store(&idx)
}

// matcher returns the matcher of pushes on sh's connection: a pushed
// product is the subscribed one with its code and, where the push names
// them, its region and exchange, all ignoring case. When several match
// (a push naming no region for a code subscribed in two), one on sh wins,
// then the first in order.
func (s *Stream) matcher(sh *shard) matcher {
	return func(p streamSymbol) (streamSymbol, bool) {
		idx := s.index.Load()
		if idx == nil {
			return p, false
		}
		var best owned
		found := false
		var arr [64]byte
		for _, o := range (*idx)[string(upperKey(arr[:0], p.code))] {
			if p.region != "" && !strings.EqualFold(string(p.region), string(o.sym.region)) ||
				p.exchange != "" && !strings.EqualFold(p.exchange, o.sym.exchange) {
				continue
			}
			if !found || o.sh == sh && best.sh != sh {
				best, found = o, true
			}
		}
		return best.sym, found
	}
}

// upperKey appends code as reindex keys it, without allocating for the
// ASCII codes pushes carry (a push may name "xauusd" for XAUUSD).
func upperKey(dst []byte, code string) []byte {
	for i := 0; i < len(code); i++ {
		c := code[i]
		if c >= 0x80 {
			return append(dst[:0], strings.ToUpper(code)...)
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func (s *Stream) logf(level slog.Level, msg string, args ...any) {
	if s.log != nil {
		s.log.Log(context.Background(), level, msg, append([]any{"class", s.class}, args...)...)
	}
}

func parseStreamSymbols(symbols []string) ([]streamSymbol, error) {
	if len(symbols) == 0 {
		return nil, invalidArg("no stream symbols")
	}
	out := make([]streamSymbol, 0, len(symbols))
	seen := make(map[string]struct{}, len(symbols))
	for _, raw := range symbols {
		sym, err := parseStreamSymbol(raw)
		if err != nil {
			return nil, err
		}
		if _, dup := seen[sym.key()]; !dup {
			seen[sym.key()] = struct{}{}
			out = append(out, sym)
		}
	}
	return out, nil
}

func parseChannels(channels []Channel, emptyOK bool) ([]Channel, error) {
	if len(channels) == 0 && !emptyOK {
		return nil, invalidArg("no stream channels")
	}
	out := make([]Channel, 0, len(channels))
	for _, ch := range channels {
		if err := ch.validate(); err != nil {
			return nil, err
		}
		if !slices.Contains(out, ch) {
			out = append(out, ch)
		}
	}
	return out, nil
}

// sortedChannels lists a set of channels in a stable order.
func sortedChannels[V any](set map[Channel]V, keep func(V) bool) []Channel {
	out := make([]Channel, 0, len(set))
	for ch, v := range set {
		if keep == nil || keep(v) {
			out = append(out, ch)
		}
	}
	slices.Sort(out)
	return out
}

func joinSymbols(syms []streamSymbol) string {
	var b strings.Builder
	for i, sym := range syms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(sym.String())
	}
	return b.String()
}

func joinChannels(chans []Channel) string {
	var b strings.Builder
	for i, ch := range chans {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(ch))
	}
	return b.String()
}
