package itick

import (
	"fmt"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/stream"
)

// A push's data is its model's fields plus s, r and type, and the type may
// come last, so a push is read in one pass into the fields of every model
// a push can carry, and its event is built from them once its type is
// known. Every field is checked whatever the type, as encoding/json would
// check one flat struct of them all.

// push is what a push's data may hold.
type push struct {
	s, r, typ                            string
	ld, o, p, h, l, c, v, tu, ch, chp, t float64
	tOff                                 int // where t's value starts
	ts, te, d                            int
	k                                    Kline
	hasK                                 bool
	levels                               *bookScratch // the state's, holding a and b
}

var pushModel = codec.NewModel(
	codec.Symbol("s", func(p *push) *string { return &p.s }),
	codec.Symbol("r", func(p *push) *string { return &p.r }),
	codec.Symbol("type", func(p *push) *string { return &p.typ }),
	codec.Num("ld", func(p *push) *float64 { return &p.ld }),
	codec.Num("o", func(p *push) *float64 { return &p.o }),
	codec.Num("p", func(p *push) *float64 { return &p.p }),
	codec.Num("h", func(p *push) *float64 { return &p.h }),
	codec.Num("l", func(p *push) *float64 { return &p.l }),
	codec.Num("c", func(p *push) *float64 { return &p.c }),
	codec.Num("v", func(p *push) *float64 { return &p.v }),
	codec.Num("tu", func(p *push) *float64 { return &p.tu }),
	codec.Field[push]{Name: "t", Want: "a number", Dec: func(st *codec.State, p *push, _ string) (err error) {
		p.tOff = st.D.Offset()
		p.t, err = st.D.Num()
		return err
	}},
	codec.Int("ts", func(p *push) *int { return &p.ts }),
	codec.Int("te", func(p *push) *int { return &p.te }),
	codec.Int("d", func(p *push) *int { return &p.d }),
	codec.Num("ch", func(p *push) *float64 { return &p.ch }),
	codec.Num("chp", func(p *push) *float64 { return &p.chp }),
	levelsField[push]("a", func(s *bookScratch) *levelSpan { return &s.asks }),
	levelsField[push]("b", func(s *bookScratch) *levelSpan { return &s.bids }),
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
	pd.p = push{levels: bookLevels.Get(st)}
	pd.p.levels.reset()
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
	if sub, found := pd.matchOf(sym); found {
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
		asks, bids := p.levels.sides()
		return DepthEvent{Code: code, Region: reg, Exchange: exch,
			Depth: DepthBook{Symbol: code, Asks: asks, Bids: bids}}, true, nil
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
		return QuoteEvent{Code: code, Region: reg, Exchange: exch, Quote: Quote{Symbol: code, Last: p.ld, Open: p.o,
			PrevClose: p.p, High: p.h, Low: p.l, Time: t, Volume: p.v, Turnover: p.tu, Status: p.ts,
			Change: p.ch, ChangePercent: p.chp}}, true, nil
	case ChannelTick:
		return TickEvent{Code: code, Region: reg, Exchange: exch, Tick: Tick{Symbol: code, Last: p.ld, Time: t,
			Volume: p.v, Session: TickSession(p.te), Turnover: p.tu, Status: TradingStatus(p.ts),
			Direction: TradeDirection(p.d)}}, true, nil
	}
	return KlineEvent{Code: code, Region: reg, Exchange: exch, Interval: iv, Kline: Kline{Time: t, Open: p.o,
		High: p.h, Low: p.l, Close: p.c, Volume: p.v, Turnover: p.tu}}, true, nil
}
