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
// service's 2026 docs accept exchange on each of them, as on Klines.
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
// the candles that arrived, the newest part of the range, come back with it.
func (s *StockService) KlineRange(ctx context.Context, region Region, code string, interval Interval, from, to time.Time, opts ...KlineOption) ([]Kline, error) {
	return s.m.klineRange(ctx, region, code, interval, from, to, opts)
}

// KlinesRange returns every candle with from <= Time < to of many stocks,
// oldest first with no duplicates, keyed by code; a code with no candle in
// the range is absent. A to in the future means now.
//
// It asks the batch endpoint for pages of WithPageSize candles (default
// DefaultPageSize) ending just before to, then just before each code's
// oldest candle so far, until a page reaches from. One request serves a
// chunk of codes whose pages end at the same time, chunks go out as any
// batch call's do, and every request waits on the client's limiter. A
// service that treats et as inclusive or exclusive, answers with pages that
// overlap or are shorter than asked, gets the same result. A page that
// brings a code nothing older ends that code's range (its history ran out),
// so the call never loops.
//
// A failure ends the failing codes' ranges; a 429 that was not waited out,
// or the end of ctx, ends every range. What arrived comes back, each
// code's candles being the newest part of its range, with a *BatchError
// naming the codes whose ranges are incomplete: asking again for
// [from, first candle's Time) completes them. When the codes fit in one
// chunk the error comes as it is, and ErrUnauthorized and ErrPlanLimit
// always do, with no results. WithEnd is ErrInvalidArgument here; so are
// from >= to, a zero from or to, and an unknown interval. WithProgress
// reports each page, and each page is a debug line in the client's log.
func (s *StockService) KlinesRange(ctx context.Context, region Region, codes []string, interval Interval, from, to time.Time, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klinesRange(ctx, region, codes, interval, from, to, opts)
}
