package itick

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/codec"
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
// KlineEvent, GapEvent or ErrorEvent. Use a type switch.
type Event interface{ streamEvent() }

// The push events name their product as it was subscribed: the service
// pushes codes and regions in a case of its own ("xauusd" for a
// subscription to XAUUSD$GB, "BTCUSDT$ba" for BTCUSDT$BA), and a push is
// matched to its subscription ignoring case. Code, Region and Exchange are
// the subscription's parts as the Subscribe call wrote them, and Symbol
// the whole of it ("XAUUSD$GB", "600519$SHSE$CN"). A push that matches no
// subscription keeps what it carried.

// QuoteEvent is a pushed quote. Quote.Symbol is the code without region.
type QuoteEvent struct {
	Code     string
	Region   Region
	Exchange string // from a CODE$EXCHANGE$REGION subscription, else ""
	Quote    Quote
}

// TickEvent is a pushed trade.
type TickEvent struct {
	Code     string
	Region   Region
	Exchange string // from a CODE$EXCHANGE$REGION subscription, else ""
	Tick     Tick
}

// DepthEvent is a pushed order book; Depth.Symbol has no $REGION suffix.
type DepthEvent struct {
	Code     string
	Region   Region
	Exchange string // from a CODE$EXCHANGE$REGION subscription, else ""
	Depth    DepthBook
}

// KlineEvent is a pushed candle, the one in progress for its interval.
type KlineEvent struct {
	Code     string
	Region   Region
	Exchange string // from a CODE$EXCHANGE$REGION subscription, else ""
	Interval Interval
	Kline    Kline
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
// could not decode, or a subscription the service refused when the
// connection was renewed.
type ErrorEvent struct {
	Conn int
	Err  error
}

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e QuoteEvent) Symbol() string { return streamSymbol{e.Code, e.Exchange, e.Region}.String() }

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e TickEvent) Symbol() string { return streamSymbol{e.Code, e.Exchange, e.Region}.String() }

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e DepthEvent) Symbol() string { return streamSymbol{e.Code, e.Exchange, e.Region}.String() }

// Symbol is the product as subscribed: code$REGION, or
// code$EXCHANGE$REGION.
func (e KlineEvent) Symbol() string { return streamSymbol{e.Code, e.Exchange, e.Region}.String() }

func (QuoteEvent) streamEvent() {}
func (TickEvent) streamEvent()  {}
func (DepthEvent) streamEvent() {}
func (KlineEvent) streamEvent() {}
func (GapEvent) streamEvent()   {}
func (ErrorEvent) streamEvent() {}

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

// streamSymbol is a product on the wire: code$REGION, or
// code$EXCHANGE$REGION for a stock of a secondary exchange. Its fields
// keep the case the caller wrote; key tells products apart, ignoring case,
// as the service does.
type streamSymbol struct {
	code     string
	exchange string
	region   Region
}

func (s streamSymbol) String() string {
	if s.exchange != "" {
		return s.code + "$" + s.exchange + "$" + string(s.region)
	}
	if s.region == "" {
		return s.code
	}
	return s.code + "$" + string(s.region)
}

// key is the product's identity: its wire form in upper case.
func (s streamSymbol) key() string { return strings.ToUpper(s.String()) }

// parseStreamSymbol reads "code$REGION" or "code$EXCHANGE$REGION", trimmed.
func parseStreamSymbol(raw string) (streamSymbol, error) {
	t := strings.TrimSpace(raw)
	rest, region, ok := cutLast(t, '$')
	if !ok {
		return streamSymbol{}, invalidArg("stream symbol %q is not code$REGION or code$EXCHANGE$REGION", raw)
	}
	var exchange string
	if c, e, ok := cutLast(rest, '$'); ok {
		rest, exchange = c, e
		if err := validExchange(exchange); err != nil {
			return streamSymbol{}, invalidArg("stream symbol %q: %v", raw, err)
		}
	}
	code, err := batch.Code(rest)
	if err != nil {
		return streamSymbol{}, invalidArg("stream symbol %q: %v", raw, err)
	}
	if strings.Contains(code, "$") {
		return streamSymbol{}, invalidArg("stream symbol %q has more than two $", raw)
	}
	if err := Region(region).validate(); err != nil {
		return streamSymbol{}, fmt.Errorf("stream symbol %q: %w", raw, err)
	}
	return streamSymbol{code: code, exchange: exchange, region: Region(region)}, nil
}

// validExchange checks the EXCHANGE of code$EXCHANGE$REGION: a name such
// as SHSE or NASDAQ, so a letter first, then letters, digits, '_' or '-'.
func validExchange(e string) error {
	if e == "" {
		return errors.New("exchange is empty")
	}
	for i, c := range e {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || (c < '0' || c > '9') && c != '_' && c != '-') {
			return fmt.Errorf("exchange %q is not a name (a letter, then letters, digits, '_' or '-')", e)
		}
	}
	return nil
}

// cutLast splits s around its last sep.
func cutLast(s string, sep byte) (before, after string, found bool) {
	if i := strings.LastIndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// message is a reply the service sends over a stream connection: what
// routes it and what an acknowledgement says.
type message struct {
	Code  codec.Code
	ResAc string
	Msg   string
}

// matcher finds the subscription a pushed product belongs to, if any.
type matcher func(pushed streamSymbol) (streamSymbol, bool)

// pushedSymbol reads a push's s, which may carry a $REGION or
// $EXCHANGE$REGION suffix, and r, which gives the region when present.
func pushedSymbol(s string, r Region) streamSymbol {
	sym := streamSymbol{code: s, region: r}
	if code, region, ok := cutLast(s, '$'); ok {
		sym.code = code
		if sym.region == "" {
			sym.region = Region(region)
		}
		if code, exchange, ok := cutLast(code, '$'); ok {
			sym.code, sym.exchange = code, exchange
		}
	}
	return sym
}
