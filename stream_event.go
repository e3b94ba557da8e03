package itick

import (
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

// Error describes the refusal.
func (e *StreamError) Error() string {
	return fmt.Sprintf("itick: stream %s refused (code %d): %s", e.Action, e.Code, e.Message)
}

// Is matches the sentinels APIError does, by the service's error texts.
// A refused authentication matches ErrUnauthorized whatever its text.
func (e *StreamError) Is(target error) bool {
	if target == ErrUnauthorized && e.Action == "auth" {
		return true
	}
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

// message is any message the service sends over a stream connection,
// decoded in one pass: a push's data is flat, so one struct holds every
// field any push type carries.
type message struct {
	Code  integer   `json:"code"`
	ResAc str       `json:"resAc"`
	Msg   str       `json:"msg"`
	Data  *pushWire `json:"data"`
}

// pushWire is the data of any push. T is the time in Unix ms, except in
// the legacy kline form, where it is the kType and K holds the candle.
type pushWire struct {
	S    str              `json:"s"`
	R    str              `json:"r"`
	Type str              `json:"type"`
	Ld   num              `json:"ld"`
	O    num              `json:"o"`
	P    num              `json:"p"`
	H    num              `json:"h"`
	L    num              `json:"l"`
	C    num              `json:"c"`
	T    num              `json:"t"`
	V    num              `json:"v"`
	Tu   num              `json:"tu"`
	TS   integer          `json:"ts"`
	Te   integer          `json:"te"`
	Ch   num              `json:"ch"`
	Chp  num              `json:"chp"`
	A    []depthLevelWire `json:"a"`
	B    []depthLevelWire `json:"b"`
	K    *klineWire       `json:"k"`
}

// decodePushJSON decodes one push's data; the reader decodes whole
// messages instead.
func decodePushJSON(data []byte, region func(code string) Region) (Event, error) {
	var w pushWire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("itick: stream push: %w", err)
	}
	return decodePush(&w, region)
}

// decodePush turns a push's data into an event. region resolves a push
// that names no region.
func decodePush(w *pushWire, region func(code string) Region) (Event, error) {
	code, reg := splitPushSymbol(string(w.S), Region(w.R))
	if reg == "" && region != nil {
		reg = region(code)
	}
	if w.K != nil {
		kt := Interval(w.T)
		if float64(kt) != float64(w.T) || !kt.valid() {
			return nil, fmt.Errorf("itick: stream kline push for %s: bad kType %v", code, float64(w.T))
		}
		k := w.K
		return KlineEvent{Code: code, Region: reg, Interval: kt, Kline: Kline{Time: time.Time(k.T),
			Open: float64(k.O), High: float64(k.H), Low: float64(k.L), Close: float64(k.C),
			Volume: float64(k.V), Turnover: float64(k.Tu)}}, nil
	}
	t, err := pushTime(w.T)
	if err != nil {
		return nil, fmt.Errorf("itick: stream %s push for %s: %w", string(w.Type), code, err)
	}
	switch typ := Channel(w.Type); typ {
	case ChannelQuote:
		return QuoteEvent{Code: code, Region: reg, Quote: Quote{Symbol: code, Last: float64(w.Ld),
			Open: float64(w.O), PrevClose: float64(w.P), High: float64(w.H), Low: float64(w.L), Time: t,
			Volume: float64(w.V), Turnover: float64(w.Tu), Status: int(w.TS), Change: float64(w.Ch),
			ChangePercent: float64(w.Chp)}}, nil
	case ChannelTick:
		return TickEvent{Code: code, Region: reg, Tick: Tick{Symbol: code, Last: float64(w.Ld), Time: t,
			Volume: float64(w.V), Session: TickSession(w.Te), Turnover: float64(w.Tu),
			Status: TradingStatus(w.TS)}}, nil
	case ChannelDepth:
		return DepthEvent{Code: code, Region: reg, Depth: DepthBook{Symbol: code,
			Asks: depthLevels(w.A), Bids: depthLevels(w.B)}}, nil
	default:
		iv := typ.klineInterval()
		if iv == 0 {
			return nil, fmt.Errorf("itick: stream push for %s: unknown type %q", code, string(w.Type))
		}
		return KlineEvent{Code: code, Region: reg, Interval: iv, Kline: Kline{Time: t, Open: float64(w.O),
			High: float64(w.H), Low: float64(w.L), Close: float64(w.C), Volume: float64(w.V),
			Turnover: float64(w.Tu)}}, nil
	}
}

// pushTime reads a push's t with the rules of every other Unix-ms field.
func pushTime(f num) (time.Time, error) {
	var m millis
	err := m.UnmarshalJSON(strconv.AppendFloat(make([]byte, 0, 24), float64(f), 'f', -1, 64))
	return time.Time(m), err
}

func depthLevels(ws []depthLevelWire) []DepthLevel {
	if ws == nil {
		return nil
	}
	out := make([]DepthLevel, len(ws))
	for i, w := range ws {
		out[i] = DepthLevel{Level: int(w.Po), Price: float64(w.P), Volume: float64(w.V), Orders: float64(w.O)}
	}
	return out
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
