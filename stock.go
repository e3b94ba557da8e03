package itick

import (
	"context"
	"time"
)

// StockService serves stock market data.
type StockService struct{ m market }

// Depth returns the order book of one stock (up to 10 levels a side).
// DepthWith takes options such as WithQuoteExchange.
func (s *StockService) Depth(ctx context.Context, region Region, code string) (*DepthBook, error) {
	return s.m.depth(ctx, region, code, nil)
}

// Depths returns the order books of many stocks, keyed by code. DepthsWith
// takes options such as WithQuoteExchange.
func (s *StockService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes, nil)
}

// Quotes returns real-time quotes of many stocks, keyed by code. QuotesWith
// takes options such as WithQuoteExchange.
func (s *StockService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes, nil)
}

// Klines returns up to limit candles per stock, oldest first, keyed by code.
// WithExchange picks a secondary exchange; WithEnd sets the last candle's time.
func (s *StockService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}

// Quote returns the real-time quote of one stock. WithQuoteExchange picks
// a secondary exchange.
func (s *StockService) Quote(ctx context.Context, region Region, code string, opts ...QuoteOption) (*Quote, error) {
	return s.m.quote(ctx, region, code, opts)
}

// Kline returns up to limit candles of one stock, oldest first.
func (s *StockService) Kline(ctx context.Context, region Region, code string, interval Interval, limit int, opts ...KlineOption) ([]Kline, error) {
	return s.m.kline(ctx, region, code, interval, limit, opts)
}

// Tick returns the latest trade of one stock, with the session it
// happened in. WithQuoteExchange picks a secondary exchange.
func (s *StockService) Tick(ctx context.Context, region Region, code string, opts ...QuoteOption) (*Tick, error) {
	return s.m.tick(ctx, region, code, opts)
}

// Ticks returns the latest trades of many stocks, keyed by code. TicksWith
// takes options such as WithQuoteExchange.
func (s *StockService) Ticks(ctx context.Context, region Region, codes []string) (map[string]Tick, error) {
	return s.m.ticks(ctx, region, codes, nil)
}

// The calls below are Quotes, Ticks, Depths and Depth with options: the
// service's documentation accepts exchange on each of them, as on Klines.
// WithQuoteExchange picks a secondary exchange (the e of the symbol list);
// every chunk of a batch call carries it.

// QuotesWith returns real-time quotes of many stocks, keyed by code, as
// Quotes does, with options such as WithQuoteExchange.
func (s *StockService) QuotesWith(ctx context.Context, region Region, codes []string, opts ...QuoteOption) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes, opts)
}

// TicksWith returns the latest trades of many stocks, keyed by code, as
// Ticks does, with options such as WithQuoteExchange.
func (s *StockService) TicksWith(ctx context.Context, region Region, codes []string, opts ...QuoteOption) (map[string]Tick, error) {
	return s.m.ticks(ctx, region, codes, opts)
}

// DepthsWith returns the order books of many stocks, keyed by code, as
// Depths does, with options such as WithQuoteExchange.
func (s *StockService) DepthsWith(ctx context.Context, region Region, codes []string, opts ...QuoteOption) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes, opts)
}

// DepthWith returns the order book of one stock, as Depth does, with
// options such as WithQuoteExchange.
func (s *StockService) DepthWith(ctx context.Context, region Region, code string, opts ...QuoteOption) (*DepthBook, error) {
	return s.m.depth(ctx, region, code, opts)
}

// KlineRange returns every candle of one stock with from <= Time < to,
// oldest first, however many requests that takes. It pages back from to
// with the single-code endpoint; the rules are KlinesRange's. On an error
// the candles that arrived, the newest part of the range, come back with
// it, and WithResume(map[string][]Kline{code: them}) asks only for the rest.
func (s *StockService) KlineRange(ctx context.Context, region Region, code string, interval Interval, from, to time.Time, opts ...KlineOption) ([]Kline, error) {
	return s.m.klineRange(ctx, region, code, interval, from, to, opts)
}

// KlinesRange returns every candle with from <= Time < to of many stocks,
// oldest first with no duplicates, keyed by code, in about one request per
// page per chunk. On a failure, what arrived comes back with a *BatchError
// naming the incomplete codes; WithResume(what arrived) asks only for what
// they lack. WithClosedOnly leaves out the candle still forming. See the
// package documentation's Backfilling section.
func (s *StockService) KlinesRange(ctx context.Context, region Region, codes []string, interval Interval, from, to time.Time, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klinesRange(ctx, region, codes, interval, from, to, opts)
}
