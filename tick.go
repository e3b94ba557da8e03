package itick

import (
	"context"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
)

// Tick is the latest trade of one product.
type Tick struct {
	Symbol    string         // s
	Last      float64        // ld: trade price
	Time      time.Time      // t, Unix ms, UTC
	Volume    float64        // v: the trade's volume
	Session   TickSession    // te (stocks only)
	Turnover  float64        // tu (crypto only)
	Status    TradingStatus  // ts (crypto only)
	Direction TradeDirection // d (stocks only): neutral, sell or buy
}

var tickModel = codec.NewModel(
	codec.Symbol("s", func(t *Tick) *string { return &t.Symbol }),
	codec.Num("ld", func(t *Tick) *float64 { return &t.Last }),
	codec.Millis("t", func(t *Tick) *time.Time { return &t.Time }),
	codec.Num("v", func(t *Tick) *float64 { return &t.Volume }),
	codec.Int("te", func(t *Tick) *TickSession { return &t.Session }),
	codec.Num("tu", func(t *Tick) *float64 { return &t.Turnover }),
	codec.Int("ts", func(t *Tick) *TradingStatus { return &t.Status }),
	codec.Int("d", func(t *Tick) *TradeDirection { return &t.Direction }),
)

var ticksReader = codec.NewMap(tickModel.Into)

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (t *Tick) UnmarshalJSON(b []byte) error { return tickModel.Unmarshal(b, t) }

// MarshalJSON encodes the service's wire form.
func (t Tick) MarshalJSON() ([]byte, error) { return tickModel.Marshal(&t) }

func (m market) tick(ctx context.Context, region Region, code string, opts []QuoteOption) (*Tick, error) {
	return fetchOne(ctx, m.c, m.path("tick"), region, code, quoteQuery(opts), tickModel.Ptr)
}

func (m market) ticks(ctx context.Context, region Region, codes []string, opts []QuoteOption) (map[string]Tick, error) {
	return fetchBatch(ctx, m.c, m.path("ticks"), region, codes, quoteQuery(opts), ticksReader.Read, nil)
}
