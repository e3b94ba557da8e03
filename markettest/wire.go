package markettest

import (
	"github.com/d19c4e34/itick"
)

// The wire forms below reproduce what the service sends where the SDK's own
// MarshalJSON would be more regular: fields some classes leave out, and a
// depth level with no price.

// quoteWire is a quote; crypto quotes are sent without p, ch and chp.
type quoteWire struct {
	S   string   `json:"s"`
	Ld  float64  `json:"ld"`
	O   float64  `json:"o"`
	P   *float64 `json:"p,omitempty"`
	H   float64  `json:"h"`
	L   float64  `json:"l"`
	T   int64    `json:"t"`
	V   float64  `json:"v"`
	Tu  float64  `json:"tu"`
	TS  int      `json:"ts"`
	Ch  *float64 `json:"ch,omitempty"`
	Chp *float64 `json:"chp,omitempty"`
}

// hasPrevClose reports the classes whose quotes carry p, ch and chp: all
// but crypto (indices, funds and forex send them too, in the 2026 docs).
func hasPrevClose(class Class) bool { return class != Crypto }

func wireQuote(class Class, q itick.Quote) quoteWire {
	w := quoteWire{S: q.Symbol, Ld: q.Last, O: q.Open, H: q.High, L: q.Low, T: q.Time.UnixMilli(),
		V: q.Volume, Tu: q.Turnover, TS: q.Status}
	if hasPrevClose(class) {
		w.P, w.Ch, w.Chp = &q.PrevClose, &q.Change, &q.ChangePercent
	}
	return w
}

type depthWire struct {
	S string      `json:"s"`
	A []levelWire `json:"a"`
	B []levelWire `json:"b"`
}

// levelWire is a depth level; p is left out of an empty futures level.
type levelWire struct {
	Po int      `json:"po"`
	P  *float64 `json:"p,omitempty"`
	V  float64  `json:"v"`
	O  float64  `json:"o"`
}

func wireDepth(class Class, b itick.DepthBook) depthWire {
	levels := func(ls []itick.DepthLevel) []levelWire {
		out := make([]levelWire, 0, len(ls))
		for _, l := range ls {
			w := levelWire{Po: l.Level, V: l.Volume, O: l.Orders}
			if !(class == Future && l.Price == 0) {
				p := l.Price
				w.P = &p
			}
			out = append(out, w)
		}
		return out
	}
	return depthWire{S: b.Symbol, A: levels(b.Asks), B: levels(b.Bids)}
}

// splitPageWire is a Spring-style page of split records.
type splitPageWire struct {
	Content       []itick.SplitRecord `json:"content"`
	Page          int                 `json:"page"`
	Size          int                 `json:"size"`
	TotalPages    int                 `json:"totalPages"`
	TotalElements int                 `json:"totalElements"`
	Last          bool                `json:"last"`
}

// newsPageWire is a page of news with its cursor.
type newsPageWire struct {
	Data       []itick.NewsItem `json:"data"`
	Pagination paginationWire   `json:"pagination"`
}

type paginationWire struct {
	NextCursor string `json:"nextCursor"`
	HasMore    bool   `json:"hasMore"`
	Count      int    `json:"count"`
}

// klineWire is a candle with plain numbers, so large volumes arrive as
// integers as the service sends them.
type klineWire struct {
	T  int64   `json:"t"`
	O  float64 `json:"o"`
	H  float64 `json:"h"`
	L  float64 `json:"l"`
	C  float64 `json:"c"`
	V  float64 `json:"v"`
	Tu float64 `json:"tu"`
}

func wireKlines(ks []itick.Kline) []klineWire {
	out := make([]klineWire, len(ks))
	for i, k := range ks {
		out[i] = klineWire{T: k.Time.UnixMilli(), O: k.Open, H: k.High, L: k.Low, C: k.Close, V: k.Volume, Tu: k.Turnover}
	}
	return out
}
