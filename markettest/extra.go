package markettest

import (
	"github.com/d19c4e34/itick"
)

// The single-code forms of quotes, K-lines and depth, and the trades
// endpoints. Each answers from the same Generator call as its batch form,
// so a singular quote equals the batch quote of the same code at the same
// time.

func serveQuote(c *call) (any, error) {
	return wireQuote(c.class, c.gen.Quote(c.class, c.region(), c.code(), c.now)), nil
}

func serveKline(c *call) (any, error) {
	a, err := c.klineArgs()
	if err != nil {
		return nil, err
	}
	return wireKlines(c.klines(c.code(), a)), nil
}

func serveTick(c *call) (any, error) {
	return wireTick(c.class, c.gen.Tick(c.class, c.region(), c.code(), c.now)), nil
}

func serveTicks(c *call) (any, error) {
	return perCode(c, func(code string) tickWire {
		return wireTick(c.class, c.gen.Tick(c.class, c.region(), code, c.now))
	}), nil
}

// tickWire is a trade as the service sends it: te and d for stocks only,
// tu and ts for crypto only.
type tickWire struct {
	S  string   `json:"s"`
	Ld float64  `json:"ld"`
	T  int64    `json:"t"`
	V  float64  `json:"v"`
	Te *int     `json:"te,omitempty"`
	Tu *float64 `json:"tu,omitempty"`
	TS *int     `json:"ts,omitempty"`
	D  *int     `json:"d,omitempty"`
}

func wireTick(class Class, t itick.Tick) tickWire {
	w := tickWire{S: t.Symbol, Ld: t.Last, T: t.Time.UnixMilli(), V: t.Volume}
	switch class {
	case Stock:
		te, d := int(t.Session), int(t.Direction)
		w.Te, w.D = &te, &d
	case Crypto:
		ts := int(t.Status)
		w.Tu, w.TS = &t.Turnover, &ts
	}
	return w
}
