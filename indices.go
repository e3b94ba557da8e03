package itick

import (
	"context"
	"time"
)

// IndicesService serves index market data. Index quotes carry PrevClose,
// Change and ChangePercent when the service sends them, as its
// documentation shows.
type IndicesService struct{ m market }

// Depths returns the order books of many indices, keyed by code.
func (s *IndicesService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes, nil)
}

// Quotes returns real-time quotes of many indices, keyed by code.
func (s *IndicesService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes, nil)
}

// Klines returns up to limit candles per index, oldest first, keyed by code.
func (s *IndicesService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}

// Depth returns the order book of one index.
func (s *IndicesService) Depth(ctx context.Context, region Region, code string) (*DepthBook, error) {
	return s.m.depth(ctx, region, code, nil)
}

// Quote returns the real-time quote of one index.
func (s *IndicesService) Quote(ctx context.Context, region Region, code string) (*Quote, error) {
	return s.m.quote(ctx, region, code, nil)
}

// Kline returns up to limit candles of one index, oldest first.
func (s *IndicesService) Kline(ctx context.Context, region Region, code string, interval Interval, limit int, opts ...KlineOption) ([]Kline, error) {
	return s.m.kline(ctx, region, code, interval, limit, opts)
}

// Tick returns the latest trade of one index.
func (s *IndicesService) Tick(ctx context.Context, region Region, code string) (*Tick, error) {
	return s.m.tick(ctx, region, code, nil)
}

// Ticks returns the latest trades of many indices, keyed by code.
func (s *IndicesService) Ticks(ctx context.Context, region Region, codes []string) (map[string]Tick, error) {
	return s.m.ticks(ctx, region, codes, nil)
}

// KlineRange returns every candle of one index with from <= Time < to,
// oldest first, however many requests that takes, as
// StockService.KlineRange does; WithResume and WithClosedOnly apply.
func (s *IndicesService) KlineRange(ctx context.Context, region Region, code string, interval Interval, from, to time.Time, opts ...KlineOption) ([]Kline, error) {
	return s.m.klineRange(ctx, region, code, interval, from, to, opts)
}

// KlinesRange returns every candle with from <= Time < to of many
// indices, oldest first, keyed by code, as StockService.KlinesRange does:
// WithResume completes a partial result with only the missing requests,
// and WithClosedOnly leaves out the candle still forming.
func (s *IndicesService) KlinesRange(ctx context.Context, region Region, codes []string, interval Interval, from, to time.Time, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klinesRange(ctx, region, codes, interval, from, to, opts)
}
