package itick

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
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

// QuoteEvent is a pushed quote. Quote.Symbol is the code without region.
type QuoteEvent struct {
	Code   string
	Region Region
	Quote  Quote
}

// TickEvent is a pushed trade.
type TickEvent struct {
	Code   string
	Region Region
	Tick   Tick
}

// DepthEvent is a pushed order book; Depth.Symbol has no $REGION suffix.
type DepthEvent struct {
	Code   string
	Region Region
	Depth  DepthBook
}

// KlineEvent is a pushed candle, the one in progress for its interval.
type KlineEvent struct {
	Code     string
	Region   Region
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
	Code    int    // the message's code
	Message string // the message's msg
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("itick: stream %s refused (code %d): %s", e.Action, e.Code, e.Message)
}

// Is matches the sentinels APIError does, by the service's error texts.
func (e *StreamError) Is(target error) bool {
	return (&APIError{Code: e.Code, Message: e.Message}).Is(target)
}

// streamSymbol is a product on the wire: code$REGION.
type streamSymbol struct {
	code   string
	region Region
}

func (s streamSymbol) String() string { return s.code + "$" + string(s.region) }

// parseStreamSymbol reads "code$REGION", trimmed.
func parseStreamSymbol(raw string) (streamSymbol, error) {
	t := strings.TrimSpace(raw)
	i := strings.LastIndexByte(t, '$')
	if i < 0 {
		return streamSymbol{}, invalidArg("stream symbol %q is not code$REGION", raw)
	}
	code, err := batch.Code(t[:i])
	if err != nil {
		return streamSymbol{}, invalidArg("stream symbol %q: %v", raw, err)
	}
	if strings.Contains(code, "$") {
		return streamSymbol{}, invalidArg("stream symbol %q has more than one $", raw)
	}
	region := Region(t[i+1:])
	if err := region.validate(); err != nil {
		return streamSymbol{}, fmt.Errorf("stream symbol %q: %w", raw, err)
	}
	return streamSymbol{code, region}, nil
}

// message is any message the service sends over a stream connection.
type message struct {
	Code  integer         `json:"code"`
	ResAc str             `json:"resAc"`
	Msg   str             `json:"msg"`
	Data  json.RawMessage `json:"data"`
}

// pushHead is what routes a push: its product, region and type. T and K
// only matter in the legacy kline form, where t is the kType.
type pushHead struct {
	S    str             `json:"s"`
	R    str             `json:"r"`
	Type str             `json:"type"`
	T    json.RawMessage `json:"t"`
	K    json.RawMessage `json:"k"`
}

// decodePush turns a push's data into an event. region resolves a push
// that names no region.
func decodePush(data []byte, region func(code string) Region) (Event, error) {
	var h pushHead
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("itick: stream push: %w", err)
	}
	code, reg := splitPushSymbol(string(h.S), Region(h.R))
	if reg == "" && region != nil {
		reg = region(code)
	}
	if len(h.K) > 0 && !bytes.Equal(h.K, []byte("null")) {
		var kt integer
		if err := json.Unmarshal(h.T, &kt); err != nil || !Interval(kt).valid() {
			return nil, fmt.Errorf("itick: stream kline push for %s: bad kType %s", code, h.T)
		}
		ev := KlineEvent{Code: code, Region: reg, Interval: Interval(kt)}
		if err := json.Unmarshal(h.K, &ev.Kline); err != nil {
			return nil, fmt.Errorf("itick: stream kline push for %s: %w", code, err)
		}
		return ev, nil
	}
	typ := Channel(h.Type)
	var (
		ev  Event
		err error
	)
	switch typ {
	case ChannelQuote:
		e := QuoteEvent{Code: code, Region: reg}
		err = json.Unmarshal(data, &e.Quote)
		e.Quote.Symbol = code
		ev = e
	case ChannelTick:
		e := TickEvent{Code: code, Region: reg}
		err = json.Unmarshal(data, &e.Tick)
		e.Tick.Symbol = code
		ev = e
	case ChannelDepth:
		e := DepthEvent{Code: code, Region: reg}
		err = json.Unmarshal(data, &e.Depth)
		e.Depth.Symbol = code
		ev = e
	default:
		iv := typ.klineInterval()
		if iv == 0 {
			return nil, fmt.Errorf("itick: stream push for %s: unknown type %q", code, string(h.Type))
		}
		e := KlineEvent{Code: code, Region: reg, Interval: iv}
		err = json.Unmarshal(data, &e.Kline)
		ev = e
	}
	if err != nil {
		return nil, fmt.Errorf("itick: stream %s push for %s: %w", typ, code, err)
	}
	return ev, nil
}

// splitPushSymbol strips a $REGION suffix from a pushed symbol; the suffix
// gives the region when the push has no r.
func splitPushSymbol(s string, r Region) (string, Region) {
	if i := strings.LastIndexByte(s, '$'); i >= 0 {
		if r == "" {
			r = Region(s[i+1:])
		}
		s = s[:i]
	}
	return s, r
}
