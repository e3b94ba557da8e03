package itick

import (
	"context"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
)

// Tick is the latest trade of one product.
type Tick struct {
	Symbol    string         `itick:"s,code"`
	Last      float64        `itick:"ld"`       // trade price
	Time      time.Time      `itick:"t,unixms"` // UTC
	Volume    float64        `itick:"v"`        // the trade's volume
	Session   TickSession    `itick:"te"`       // stocks only
	Turnover  float64        `itick:"tu"`       // crypto only
	Status    TradingStatus  `itick:"ts"`       // crypto only
	Direction TradeDirection `itick:"d"`        // stocks only: neutral, sell or buy
}

var tickModel = codec.Describe[Tick]()

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
