// Package stream is the engine under the itick Stream: the WebSocket
// connections of one asset class, their authentication, heartbeat and
// reconnection, the ledger that keeps what the client believes is
// subscribed equal to what the service holds, the routing of messages, and
// the scrubbing of text the server controls.
//
// An Engine is configured by a plain Config and by Hooks that decode
// pushes and build the caller's event and error values, so the engine
// knows nothing of the SDK's exported types. Events are of the caller's
// type E and arrive on one channel.
package stream

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
	"time"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wait"
)

// Config is what an Engine needs. Every duration and cap must be set.
type Config[E any] struct {
	URL       string // ws:// or wss://, the asset class's path included
	Class     string // the asset class, for log lines and error texts
	Token     string // sent as the token header, to URL's origin only
	UserAgent string
	Logger    *slog.Logger // nil: silent
	// HTTPClient makes the handshake; nil is a zero http.Client. A copy is
	// used whose redirects stay within URL's origin.
	HTTPClient *http.Client

	PingInterval time.Duration // how often each connection pings
	PongTimeout  time.Duration // how long a ping may go unanswered
	DialTimeout  time.Duration // bounds a handshake, an authentication and an acknowledgement
	MinBackoff   time.Duration // the reconnection wait's bounds
	MaxBackoff   time.Duration

	Buffer      int   // data events waiting for the consumer, at most
	BufferBytes int64 // bytes of the frames they were decoded from, at most
	DropNewest  bool  // a full buffer drops the arriving event, not the oldest

	// StaleAfter, when set, replaces a connection that carries
	// subscriptions and pushes nothing for that long.
	StaleAfter time.Duration
	// AuthRetries is how many refused authentications in a row a
	// reconnection tries again before the Engine ends.
	AuthRetries int

	MaxConns       int // connections at most
	MaxSymbols     int // products subscribed at once, at most
	SymbolsPerConn int // products on one connection, at most

	// Errors the engine's own refusals wrap.
	ErrClosed          error // a call on an Engine that has ended
	ErrInvalidArgument error // a bad symbol
	ErrPlanLimit       error // a Subscribe past MaxSymbols or MaxConns
	ErrStale           error // the reason of a connection StaleAfter replaced

	Hooks Hooks[E]
}

// Hooks decode pushes and build the caller's values. Every hook must be
// set.
type Hooks[E any] struct {
	// NewDecoder returns the decoder of one connection's pushes. match
	// finds the subscription a pushed product belongs to; red scrubs
	// text the server sent.
	NewDecoder func(match Matcher, red *redact.Redactor) Decoder[E]
	// Disconnect reports a connection lost at at, at once.
	Disconnect func(conn int, at time.Time, reason error, symbols []string) E
	// Gap reports a connection that was down from..to and is renewed.
	Gap func(conn int, from, to time.Time, reason error, symbols []string) E
	// Error reports a problem the engine carried on through.
	Error func(conn int, err error) E
	// Refused is the error of a refusal the service sent in reply to
	// action ("auth", "subscribe", "unsubscribe"); its texts are scrubbed.
	Refused func(action string, r Reply) error
	// HandshakeRefused is the error of a handshake answered with another
	// status than 101; body is at most a KiB of the answer.
	HandshakeRefused func(status int, header http.Header, body []byte) error
	// Fatal reports an error no reconnection mends, such as a refused token.
	Fatal func(err error) bool
}

// Decoder reads the data of one connection's messages: Data is called for
// each message's data member (again for a duplicate, which replaces what
// the first gave), and Event once the message is read and routed as a
// push. Only the connection's reader calls it.
type Decoder[E any] interface {
	// Data reads the value at st's scanner. An error that is not a
	// *wire.Error leaves the scanner where it was; the engine skips the
	// value.
	Data(st *codec.State) error
	// Event returns the push the data held: ok is false when it names no
	// product, type or candle (a reply's data).
	Event() (ev E, ok bool, err error)
}

// Reply is a message that is not a push: what routes it and what an
// acknowledgement says.
type Reply struct {
	ResAc    string
	Code     int    // when a number
	CodeText string // when text, such as "E003"; bounded
	Msg      string // scrubbed and bounded once it reaches Refused
}

// Engine is the live feed of one asset class. It is safe for concurrent
// use.
type Engine[E any] struct {
	cfg Config[E]
	hdr http.Header // without the token, which is added per dial
	red *redact.Redactor

	parent context.Context // New's: its end ends the Engine
	ctx    context.Context
	cancel context.CancelCauseFunc
	buf    *buffer[E]
	done   chan struct{}

	mu      sync.Mutex
	shards  []*shard[E]
	owner   map[string]owned[E] // by Symbol.Key
	closing bool
	wg      sync.WaitGroup
	// index is the subscribed products by upper-case code, for matching
	// pushes without taking mu. It is rebuilt from owner whenever a
	// Subscribe or Unsubscribe changes which products there are; a
	// product dropped otherwise (refused, or withdrawn before it was
	// sent) lingers until then, which only names its late pushes.
	index atomic.Pointer[map[string][]owned[E]]

	received   atomic.Uint64
	dropped    atomic.Uint64
	reconnects atomic.Uint64
	gaps       atomic.Uint64
	down       atomic.Int64
}

// Stats is a snapshot of an Engine's counters.
type Stats struct {
	Conns      int    // connections up and subscribed now
	Symbols    int    // products the service has acknowledged
	Events     uint64 // pushes decoded since the start
	Dropped    uint64 // events the overflow policy discarded
	Reconnects uint64 // connections lost and replaced
	Gaps       uint64 // gap events sent
	Down       int    // connections lost and not yet renewed
}

// New connects to cfg.URL and returns once the first connection is
// authenticated. ctx bounds the whole Engine: its end closes it as Close
// does.
func New[E any](ctx context.Context, cfg Config[E]) (*Engine[E], error) {
	cfg.HTTPClient = handshakeClient(cfg.HTTPClient, cfg.URL)
	e := &Engine[E]{
		cfg:   cfg,
		hdr:   http.Header{"User-Agent": {cfg.UserAgent}},
		red:   redact.New(cfg.Token),
		buf:   newBuffer(cfg.Buffer, cfg.BufferBytes, cfg.DropNewest, cfg.Hooks.Error),
		done:  make(chan struct{}),
		owner: make(map[string]owned[E]),
	}
	e.parent = ctx
	e.ctx, e.cancel = context.WithCancelCause(ctx)

	first := e.newShard()
	ss, err := e.connect(ctx, first)
	if err != nil {
		e.cancel(err)
		return nil, err
	}
	e.wg.Add(1)
	go first.run(ss)
	go func() {
		<-e.ctx.Done()
		e.mu.Lock()
		e.closing = true
		e.mu.Unlock()
		e.wg.Wait()
		e.buf.close()
		close(e.done)
	}()
	return e, nil
}

// URL is the address the Engine connects to.
func (e *Engine[E]) URL() string { return e.cfg.URL }

// Events returns the channel events arrive on. It is closed when the
// Engine ends.
func (e *Engine[E]) Events() <-chan E { return e.buf.ch }

// Close closes every connection and returns once every goroutine the
// Engine started has ended and Events is closed.
func (e *Engine[E]) Close() {
	e.cancel(e.cfg.ErrClosed)
	<-e.done
}

// Done is closed when the Engine has ended and Events is closed.
func (e *Engine[E]) Done() <-chan struct{} { return e.done }

// Err says why the Engine ended: nil while it runs and after Close, the
// context's error after its end (with the context's cause, if it has one),
// or the failure that stopped it.
func (e *Engine[E]) Err() error {
	if e.ctx.Err() == nil {
		return nil
	}
	err := context.Cause(e.ctx)
	switch {
	case errors.Is(err, e.cfg.ErrClosed):
		return nil
	case e.parent.Err() != nil && errors.Is(err, context.Cause(e.parent)):
		// The context ended it, and its cause alone may match neither
		// context.Canceled nor DeadlineExceeded.
		return wait.Err(e.parent)
	}
	return err
}

// Dropped is the number of events the overflow policy has discarded.
func (e *Engine[E]) Dropped() uint64 { return e.dropped.Load() }

// Stats returns the Engine's counters.
func (e *Engine[E]) Stats() Stats {
	st := Stats{Events: e.received.Load(), Dropped: e.dropped.Load(),
		Reconnects: e.reconnects.Load(), Gaps: e.gaps.Load(), Down: int(e.down.Load())}
	e.mu.Lock()
	for _, sh := range e.shards {
		for _, set := range sh.subs {
			if hasAcked(set) {
				st.Symbols++
			}
		}
	}
	shards := slices.Clone(e.shards)
	e.mu.Unlock()
	for _, sh := range shards {
		if sh.current() != nil {
			st.Conns++
		}
	}
	return st
}

// Go runs f under the Engine's lifetime: ctx ends when the Engine does,
// and Close and Done wait for f to return. It reports false, running
// nothing, once the Engine is ending.
func (e *Engine[E]) Go(f func(ctx context.Context)) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing || e.ctx.Err() != nil {
		return false
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f(e.ctx)
	}()
	return true
}

// ReportError hands the consumer the error event of err, a problem the
// caller carried on through, on connection conn (-1 for none). The overflow
// policy never drops it; when errors flood a consumer that has fallen
// behind, they are counted and summed up in one event (see buffer).
func (e *Engine[E]) ReportError(conn int, err error) { e.buf.putError(conn, err) }

// Acked reports whether the Engine holds channel of symbol as subscribed
// and acknowledged by the service, and returns the product in the form it
// was first subscribed in.
func (e *Engine[E]) Acked(symbol, channel string) (Symbol, bool) {
	sym, err := ParseSymbol(symbol)
	if err != nil {
		return Symbol{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := e.owner[sym.Key()]
	if !ok {
		return Symbol{}, false
	}
	en := o.sh.subs[o.sym][channel]
	return o.sym, en != nil && en.acked
}

// Subscriptions returns what the Engine holds as subscribed: each
// product's acknowledged channels, sorted.
func (e *Engine[E]) Subscriptions() map[string][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string][]string)
	for _, sh := range e.shards {
		for sym, set := range sh.subs {
			for ch, en := range set {
				if en.acked {
					out[sym.String()] = append(out[sym.String()], ch)
				}
			}
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

// Holds reports whether the product is in the ledger, acknowledged or
// waiting to be sent.
func (e *Engine[E]) Holds(symbol string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.owner[strings.ToUpper(symbol)]
	return ok
}

// Subscribe asks for channels of symbols ("code$REGION" or
// "code$EXCHANGE$REGION"); channels are the service's names, already
// checked. See the Stream's Subscribe for what it promises.
func (e *Engine[E]) Subscribe(ctx context.Context, symbols, channels []string) error {
	syms, err := e.lockFor(symbols)
	if err != nil {
		return err
	}
	plan, err := e.place(syms)
	if err != nil {
		e.mu.Unlock()
		return err
	}
	work := make(map[*shard[E]][]*claim)
	added := false
	for _, sym := range syms {
		sh := plan[sym]
		if sh.id == len(e.shards) {
			e.shards = append(e.shards, sh)
			e.wg.Add(1)
			go sh.run(nil)
		}
		set := sh.subs[sym]
		if set == nil {
			set = make(map[string]*subEntry)
			sh.subs[sym] = set
			e.owner[sym.Key()] = owned[E]{sym, sh}
			added = true
		}
		for _, ch := range channels {
			en := set[ch]
			if en == nil {
				en = &subEntry{}
				set[ch] = en
			}
			if en.acked {
				continue
			}
			en.waiters++
			work[sh] = append(work[sh], &claim{sym: sym, ch: ch, e: en})
		}
	}
	if added {
		e.reindex()
	}
	e.mu.Unlock()

	return forEachShard(work, func(sh *shard[E], claims []*claim) error { return sh.subscribe(ctx, claims) })
}

// lockFor parses symbols and, when they are good and the Engine still
// runs, returns with e.mu held.
func (e *Engine[E]) lockFor(symbols []string) ([]Symbol, error) {
	syms, err := e.parseSymbols(symbols)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.closing || e.ctx.Err() != nil {
		e.mu.Unlock()
		return nil, e.cfg.ErrClosed
	}
	for i, sym := range syms {
		if o, ok := e.owner[sym.Key()]; ok {
			syms[i] = o.sym // the form it was first subscribed in
		}
	}
	return syms, nil
}

// place finds a connection for each product: the one that has it, else
// the first with room, else a new one within the cap. It changes nothing;
// new shards are returned with id equal to their future index. e.mu is held.
func (e *Engine[E]) place(syms []Symbol) (map[Symbol]*shard[E], error) {
	added := 0
	for _, sym := range syms {
		if _, ok := e.owner[sym.Key()]; !ok {
			added++
		}
	}
	if len(e.owner)+added > e.cfg.MaxSymbols {
		return nil, fmt.Errorf("%w: %d product(s) subscribed and %d new would pass the cap of %d (the plan's, unless WithMaxSymbols sets it)",
			e.cfg.ErrPlanLimit, len(e.owner), added, e.cfg.MaxSymbols)
	}
	plan := make(map[Symbol]*shard[E], len(syms))
	load := make(map[*shard[E]]int)
	shards := slices.Clone(e.shards)
	var fresh []*shard[E]
	for _, sym := range syms {
		if o, ok := e.owner[sym.Key()]; ok {
			plan[sym] = o.sh
			continue
		}
		var target *shard[E]
		for _, sh := range shards {
			if len(sh.subs)+load[sh] < e.cfg.SymbolsPerConn {
				target = sh
				break
			}
		}
		if target == nil {
			if len(shards) >= e.cfg.MaxConns {
				return nil, fmt.Errorf("%w: %d new products need more than %d connection(s) of %d products",
					e.cfg.ErrPlanLimit, len(syms), e.cfg.MaxConns, e.cfg.SymbolsPerConn)
			}
			target = &shard[E]{e: e, id: len(shards)}
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
// channels it stops all of them. See the Stream's Unsubscribe.
func (e *Engine[E]) Unsubscribe(ctx context.Context, symbols, channels []string) error {
	syms, err := e.lockFor(symbols)
	if err != nil {
		return err
	}
	type work struct {
		syms  []Symbol
		chans map[string]struct{}
	}
	todo := make(map[*shard[E]]*work)
	removed := false
	for _, sym := range syms {
		o, ok := e.owner[sym.Key()]
		if !ok {
			continue
		}
		sh := o.sh
		removed = true
		for ch, en := range sh.subs[sym] {
			if len(channels) != 0 && !slices.Contains(channels, ch) {
				continue
			}
			sh.remove(sym, ch)
			if !en.acked && !en.inflight {
				continue // the service never got it: nothing to send
			}
			w := todo[sh]
			if w == nil {
				w = &work{chans: make(map[string]struct{})}
				todo[sh] = w
			}
			if !slices.Contains(w.syms, sym) {
				w.syms = append(w.syms, sym)
			}
			w.chans[ch] = struct{}{}
		}
	}
	if removed {
		e.reindex()
	}
	results := make(chan error, len(todo))
	for sh, w := range todo {
		e.wg.Add(1) // e.mu is held and the Engine not closing: Wait has not begun
		go func() { results <- sh.unsubscribe(w.syms, sortedKeys(w.chans)) }()
	}
	e.mu.Unlock()

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
func forEachShard[E, T any](work map[*shard[E]]T, fn func(*shard[E], T) error) error {
	errs := make([]error, 0, len(work))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for sh, w := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(sh, w); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// emit hands a push's event, decoded from size bytes, to the consumer
// without ever blocking: past the buffer's bounds the overflow policy
// decides what is dropped.
func (e *Engine[E]) emit(ev E, size int64) {
	if n := e.buf.putData(ev, size); n > 0 {
		e.dropped.Add(uint64(n))
	}
}

// emitEvent hands a disconnect or a gap to the consumer. It is never
// dropped: when the buffer is full it waits for the consumer, and nothing
// put after it overtakes it. Only the end of the Engine stops the wait.
func (e *Engine[E]) emitEvent(ev E) { e.buf.putEvent(e.ctx, ev) }

// carries reports whether sh's products include one the service has
// acknowledged.
func (e *Engine[E]) carries(sh *shard[E]) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, set := range sh.subs {
		if hasAcked(set) {
			return true
		}
	}
	return false
}

// owned is a product as it was first subscribed, and its connection.
type owned[E any] struct {
	sym Symbol
	sh  *shard[E]
}

// reindex rebuilds index from owner. e.mu is held.
func (e *Engine[E]) reindex() {
	idx := make(map[string][]owned[E], len(e.owner))
	for _, o := range e.owner {
		k := strings.ToUpper(o.sym.Code)
		idx[k] = append(idx[k], o)
	}
	for _, os := range idx {
		slices.SortFunc(os, func(a, b owned[E]) int { return compareSymbols(a.sym, b.sym) })
	}
	e.index.Store(&idx)
}

// matcher returns the matcher of pushes on sh's connection: a pushed
// product is the subscribed one with its code and, where the push names
// them, its region and exchange, all ignoring case. When several match
// (a push naming no region for a code subscribed in two), one on sh wins,
// then the first in order.
func (e *Engine[E]) matcher(sh *shard[E]) Matcher {
	return func(p Symbol) (Symbol, bool) {
		idx := e.index.Load()
		if idx == nil {
			return p, false
		}
		var best owned[E]
		found := false
		var arr [64]byte
		for _, o := range (*idx)[string(upperKey(arr[:0], p.Code))] {
			if p.Region != "" && !strings.EqualFold(p.Region, o.sym.Region) ||
				p.Exchange != "" && !strings.EqualFold(p.Exchange, o.sym.Exchange) {
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

func (e *Engine[E]) logf(level slog.Level, msg string, args ...any) {
	if e.cfg.Logger != nil {
		e.cfg.Logger.Log(context.Background(), level, msg, append([]any{"class", e.cfg.Class}, args...)...)
	}
}

// sortedKeys lists a set of channels in a stable order.
func sortedKeys[V any](set map[string]V) []string {
	out := make([]string, 0, len(set))
	for ch := range set {
		out = append(out, ch)
	}
	slices.Sort(out)
	return out
}
