package itick

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/stream"
)

// Channel is a kind of push a Stream subscribes to: ChannelQuote,
// ChannelTick, ChannelDepth or ChannelKline(interval).
type Channel string

// The channels the service pushes.
const (
	ChannelQuote Channel = "quote"
	ChannelTick  Channel = "tick"
	ChannelDepth Channel = "depth"
)

// ChannelKline is the channel of candles of the given interval,
// "kline@<kType>" on the wire.
func ChannelKline(i Interval) Channel { return Channel("kline@" + strconv.Itoa(int(i))) }

// klineInterval returns the interval of a kline channel, or 0.
func (ch Channel) klineInterval() Interval {
	n, ok := strings.CutPrefix(string(ch), "kline@")
	if !ok {
		return 0
	}
	k, err := strconv.Atoi(n)
	if err != nil || !Interval(k).valid() || strconv.Itoa(k) != n {
		return 0
	}
	return Interval(k)
}

func (ch Channel) validate() error {
	switch ch {
	case ChannelQuote, ChannelTick, ChannelDepth:
		return nil
	}
	if ch.klineInterval() != 0 {
		return nil
	}
	return invalidArg("unknown stream channel %q (want quote, tick, depth or kline@1 to kline@10)", string(ch))
}

// Event is what a Stream delivers: a QuoteEvent, TickEvent, DepthEvent,
// KlineEvent, DisconnectEvent, GapEvent or ErrorEvent. Use a type switch.
type Event interface{ streamEvent() }

// The push events name their product as it was subscribed: the service
// pushes codes and regions in a case of its own ("xauusd" for a
// subscription to XAUUSD$GB, "BTCUSDT$ba" for BTCUSDT$BA), and a push is
// matched to its subscription ignoring case. Code, Region and Exchange are
// the subscription's parts as the Subscribe call wrote them, and Symbol
// the whole of it ("XAUUSD$GB", "600519$SHSE$SH"). A push that matches no
// subscription keeps what it carried.

// QuoteEvent is a pushed quote. Quote.Symbol is the code without region.
// The service's quote pushes carry no previous close, so Quote.PrevClose,
// Change and ChangePercent are zero unless the Stream has WithPrevClose
// and knows the previous close of the quote's trading day.
type QuoteEvent struct {
	Code     string // the product's code, as subscribed
	Region   Region // its region, as subscribed
	Exchange string // from a CODE$EXCHANGE$REGION subscription, else ""
	Quote    Quote  // the quote; its Symbol is Code
}

// TickEvent is a pushed trade.
type TickEvent struct {
	Code     string // the product's code, as subscribed
	Region   Region // its region, as subscribed
	Exchange string // from a CODE$EXCHANGE$REGION subscription, else ""
	Tick     Tick   // the trade; its Symbol is Code
}

// DepthEvent is a pushed order book; Depth.Symbol has no $REGION suffix.
type DepthEvent struct {
	Code     string    // the product's code, as subscribed
	Region   Region    // its region, as subscribed
	Exchange string    // from a CODE$EXCHANGE$REGION subscription, else ""
	Depth    DepthBook // the whole book as pushed; its Symbol is Code
}

// KlineEvent is a pushed candle, the one in progress for its interval.
type KlineEvent struct {
	Code     string   // the product's code, as subscribed
	Region   Region   // its region, as subscribed
	Exchange string   // from a CODE$EXCHANGE$REGION subscription, else ""
	Interval Interval // the channel's interval (kline@N)
	Kline    Kline    // the candle so far; it changes until its interval ends
}

// DisconnectEvent says a connection was lost, at once: its Symbols get no
// pushes until it is renewed, which a GapEvent will report. Use it, or
// StreamStats.Down, to serve the products from REST meanwhile.
type DisconnectEvent struct {
	Conn    int       // which connection, from 0
	At      time.Time // when it was lost
	Reason  error     // why; matches ErrStreamStale when WithStaleAfter noticed it
	Symbols []string  // the products it carries
}

// GapEvent says a connection was down from From to To: pushes for its
// Symbols ("code$REGION") in that time are lost. It is sent once the
// connection is back and every subscription is renewed; a caller that
// needs the missing data fetches it over REST.
type GapEvent struct {
	Conn    int       // which of the Stream's connections, from 0
	From    time.Time // when the connection was lost
	To      time.Time // when its subscriptions were renewed
	Reason  error     // why it was lost
	Symbols []string  // the products it carries
}

// ErrorEvent reports a problem the Stream carried on through: a push it
// could not decode, a subscription the service refused when the connection
// was renewed, or a WithPrevClose snapshot that failed or lacked the
// previous close. When errors flood a consumer that has fallen behind, one
// ErrorEvent says how many were left out and wraps the last (see
// WithBuffer).
type ErrorEvent struct {
	Conn int   // which connection, from 0; -1 for none (a WithPrevClose snapshot)
	Err  error // what went wrong, its text scrubbed of the token and bounded
}

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e QuoteEvent) Symbol() string { return streamSymbol(e.Code, e.Exchange, e.Region) }

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e TickEvent) Symbol() string { return streamSymbol(e.Code, e.Exchange, e.Region) }

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e DepthEvent) Symbol() string { return streamSymbol(e.Code, e.Exchange, e.Region) }

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e KlineEvent) Symbol() string { return streamSymbol(e.Code, e.Exchange, e.Region) }

func (QuoteEvent) streamEvent()      {}
func (TickEvent) streamEvent()       {}
func (DepthEvent) streamEvent()      {}
func (KlineEvent) streamEvent()      {}
func (DisconnectEvent) streamEvent() {}
func (GapEvent) streamEvent()        {}
func (ErrorEvent) streamEvent()      {}

// StreamError is a refusal the service sent over a stream connection.
// errors.Is matches it to ErrUnauthorized and ErrPlanLimit by its message.
type StreamError struct {
	Action  string // what was refused: "auth", "subscribe", ...
	Code    int    // the message's code, when it was a number
	Message string // the message's msg

	// CodeText is the message's code when it arrived as text that is not
	// a number, such as "E003" (Code is then 0); at most 64 bytes.
	CodeText string
}

// Error describes the refusal.
func (e *StreamError) Error() string {
	code := strconv.Itoa(e.Code)
	if e.Code == 0 && e.CodeText != "" {
		code = e.CodeText
	}
	return fmt.Sprintf("itick: stream %s refused (code %s): %s", e.Action, code, e.Message)
}

// Is matches the sentinels APIError does, by the service's error texts.
// A refused authentication matches ErrUnauthorized whatever its text.
func (e *StreamError) Is(target error) bool {
	if target == ErrUnauthorized && e.Action == "auth" {
		return true
	}
	return (&APIError{Code: e.Code, CodeText: e.CodeText, Message: e.Message}).Is(target)
}

// A push's data is its model's fields plus s, r and type, and the type may
// come last, so a push is read in one pass into every model a push can
// carry, each key's value once into all the models that have it, and its
// event is built from them once its type is known. Every field is checked
// whatever the type, as encoding/json would check one flat struct of them
// all.

// push is what a push's data may hold.
type push struct {
	s    string       `itick:"s,code"`
	r    string       `itick:"r,code"`
	typ  string       `itick:"type,code"`
	t    float64      `itick:"t"` // a time, or a legacy kline push's interval
	tOff int          // where t's value starts
	q    Quote        `itick:",inline"`
	tk   Tick         `itick:",inline"`
	kl   Kline        `itick:",inline"`
	a    []DepthLevel `itick:"a"`
	b    []DepthLevel `itick:"b"`
	k    Kline        `itick:"-"` // a legacy kline push's candle
	hasK bool
}

var pushModel = codec.Describe[push](quoteModel, tickModel, klineModel, levelModel, codec.Together("a", "b"),
	codec.Field[push]{Name: "t", Want: "a number", Dec: func(st *codec.State, p *push, _ string) (err error) {
		p.tOff = st.D.Offset()
		p.t, err = st.D.Num()
		return err
	}},
	codec.Field[push]{Name: "k", Want: "an object", Dec: func(st *codec.State, p *push, _ string) error {
		if p.hasK = !st.D.Null(); !p.hasK {
			return nil
		}
		p.k = Kline{}
		return klineModel.Into(st, &p.k, "")
	}},
)

// pushDecoder decodes the pushes of one connection; only its reader uses
// it, so what it reads into needs no lock.
type pushDecoder struct {
	match stream.Matcher
	red   *redact.Redactor
	prev  *prevCloses // nil without WithPrevClose
	p     push
}

func newPushDecoder(match stream.Matcher, red *redact.Redactor) *pushDecoder {
	return &pushDecoder{match: match, red: red}
}

func (pd *pushDecoder) matchOf(sym stream.Symbol) (stream.Symbol, bool) {
	if pd.match == nil {
		return sym, false
	}
	return pd.match(sym)
}

// Data reads a push's data object, replacing what an earlier one gave.
func (pd *pushDecoder) Data(st *codec.State) error {
	pd.p = push{}
	return pushModel.Into(st, &pd.p, "")
}

// Event builds the event of the push Data read, routed by its type: a kline
// push by its k, in the legacy form, and any other by type. The event names
// the product as it was subscribed; a product no subscription names keeps
// what the push carried, scrubbed and bounded like all server text. ok is
// false for data that names no product, type or candle.
func (pd *pushDecoder) Event() (ev Event, ok bool, err error) {
	p := &pd.p
	if p.s == "" && p.typ == "" && !p.hasK {
		return nil, false, nil
	}
	sym := stream.PushedSymbol(p.s, p.r)
	sub, subscribed := pd.matchOf(sym)
	if subscribed {
		sym = sub
	} else {
		sym.Code = pd.red.Bound(sym.Code, stream.MaxServerText)
		sym.Exchange = pd.red.Bound(sym.Exchange, stream.MaxServerText)
		sym.Region = pd.red.Bound(sym.Region, stream.MaxServerText)
	}
	code, reg, exch := sym.Code, Region(sym.Region), sym.Exchange
	if p.hasK && p.typ == "" {
		kt := Interval(p.t)
		if float64(kt) != p.t || !kt.valid() {
			return nil, true, fmt.Errorf("itick: stream kline push for %s: bad kType %v", code, p.t)
		}
		return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: kt, Kline: p.k}, true, nil
	}
	typ := Channel(p.typ)
	if typ == ChannelDepth {
		return DepthEvent{Code: code, Region: reg, Exchange: exch,
			Depth: DepthBook{Symbol: code, Asks: p.a, Bids: p.b}}, true, nil
	}
	iv := typ.klineInterval()
	if typ != ChannelQuote && typ != ChannelTick && iv == 0 {
		return nil, true, fmt.Errorf("itick: stream push for %s: unknown type %q", code, pd.red.Bound(p.typ, stream.MaxServerText))
	}
	t, inRange := codec.TimeFromMillis(p.t)
	if !inRange {
		return nil, true, fmt.Errorf("itick: stream %s push for %s: %w", string(typ), code,
			&codec.ValueError{Off: p.tOff, Want: "a timestamp before year 10000"})
	}
	switch typ {
	case ChannelQuote:
		q := p.q
		q.Symbol, q.Time = code, t
		if pd.prev != nil && subscribed {
			pd.prev.fill(sym, &q)
		}
		return QuoteEvent{Code: code, Region: reg, Exchange: exch, Quote: q}, true, nil
	case ChannelTick:
		tk := p.tk
		tk.Symbol, tk.Time = code, t
		return TickEvent{Code: code, Region: reg, Exchange: exch, Tick: tk}, true, nil
	}
	k := p.kl
	k.Time = t
	return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: iv, Kline: k}, true, nil
}
