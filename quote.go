package itick

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
)

// Quote is a real-time quote of one product. PrevClose, Change and
// ChangePercent are decoded whenever the service sends them, whatever the
// class: stocks, futures, funds, indices and forex do; crypto quotes leave
// them out, so they are zero there.
type Quote struct {
	Symbol        string    `itick:"s,code"`
	Last          float64   `itick:"ld"`
	Open          float64   `itick:"o"`
	PrevClose     float64   `itick:"p"` // zero when not sent, as for crypto
	High          float64   `itick:"h"`
	Low           float64   `itick:"l"`
	Time          time.Time `itick:"t,unixms"` // UTC
	Volume        float64   `itick:"v"`
	Turnover      float64   `itick:"tu"`
	Status        int       `itick:"ts"`  // see Quote.TradingStatus for its meaning
	Change        float64   `itick:"ch"`  // zero when not sent, as for crypto
	ChangePercent float64   `itick:"chp"` // zero when not sent, as for crypto
}

var quoteModel = codec.Describe[Quote]()

var quotesReader = codec.NewMap(quoteModel.Into)

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (q *Quote) UnmarshalJSON(b []byte) error { return quoteModel.Unmarshal(b, q) }

// MarshalJSON encodes the service's wire form.
func (q Quote) MarshalJSON() ([]byte, error) { return quoteModel.Marshal(&q) }

// TradingStatus returns Status as a TradingStatus.
func (q Quote) TradingStatus() TradingStatus { return TradingStatus(q.Status) }

// QuoteOption refines a single stock quote or tick request.
type QuoteOption func(*quoteOptions)

type quoteOptions struct {
	exchange string
}

// WithQuoteExchange selects the exchange among stocks of one market (the e
// of the symbol list) for Stock.Quote, Stock.Tick, Stock.DepthWith and the
// batch Stock.QuotesWith, Stock.TicksWith and Stock.DepthsWith; without it
// the service answers for the primary one.
func WithQuoteExchange(exchange string) QuoteOption {
	return func(o *quoteOptions) { o.exchange = exchange }
}

func quoteQuery(opts []QuoteOption) url.Values {
	if len(opts) == 0 {
		return nil
	}
	var o quoteOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.exchange = strings.TrimSpace(o.exchange); o.exchange == "" {
		return nil
	}
	return url.Values{"exchange": {o.exchange}}
}

func (m market) quote(ctx context.Context, region Region, code string, opts []QuoteOption) (*Quote, error) {
	return fetchOne(ctx, m.c, m.path("quote"), region, code, quoteQuery(opts), quoteModel.Ptr)
}

func (m market) quotes(ctx context.Context, region Region, codes []string, opts []QuoteOption) (map[string]Quote, error) {
	return fetchBatch(ctx, m.c, m.path("quotes"), region, codes, quoteQuery(opts), quotesReader.Read, nil)
}
