package itick

import (
	"fmt"
	"strconv"
	"strings"
	"time"
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
// could not decode, or a subscription the service refused when the
// connection was renewed.
type ErrorEvent struct {
	Conn int
	Err  error
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
