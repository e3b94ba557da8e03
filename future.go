package itick

import (
	"context"
	"time"
)

// FutureService serves futures market data.
type FutureService struct{ m market }

// Depths returns the order books of many contracts, keyed by code.
func (s *FutureService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes, nil)
}

// Quotes returns real-time quotes of many contracts, keyed by code.
func (s *FutureService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes, nil)
}

// Klines returns up to limit candles per contract, oldest first, keyed by code.
func (s *FutureService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}

// Depth returns the order book of one contract.
func (s *FutureService) Depth(ctx context.Context, region Region, code string) (*DepthBook, error) {
	return s.m.depth(ctx, region, code, nil)
}

// Quote returns the real-time quote of one contract.
func (s *FutureService) Quote(ctx context.Context, region Region, code string) (*Quote, error) {
	return s.m.quote(ctx, region, code, nil)
}

// Kline returns up to limit candles of one contract, oldest first.
func (s *FutureService) Kline(ctx context.Context, region Region, code string, interval Interval, limit int, opts ...KlineOption) ([]Kline, error) {
	return s.m.kline(ctx, region, code, interval, limit, opts)
}

// Tick returns the latest trade of one contract.
func (s *FutureService) Tick(ctx context.Context, region Region, code string) (*Tick, error) {
	return s.m.tick(ctx, region, code, nil)
}

// Ticks returns the latest trades of many contracts, keyed by code.
func (s *FutureService) Ticks(ctx context.Context, region Region, codes []string) (map[string]Tick, error) {
	return s.m.ticks(ctx, region, codes, nil)
}

// KlineRange returns every candle of one contract with from <= Time < to,
// oldest first, however many requests that takes, as
// StockService.KlineRange does; WithResume and WithClosedOnly apply.
func (s *FutureService) KlineRange(ctx context.Context, region Region, code string, interval Interval, from, to time.Time, opts ...KlineOption) ([]Kline, error) {
	return s.m.klineRange(ctx, region, code, interval, from, to, opts)
}

// KlinesRange returns every candle with from <= Time < to of many
// contracts, oldest first, keyed by code, as StockService.KlinesRange does:
// WithResume completes a partial result with only the missing requests,
// and WithClosedOnly leaves out the candle still forming.
func (s *FutureService) KlinesRange(ctx context.Context, region Region, codes []string, interval Interval, from, to time.Time, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klinesRange(ctx, region, codes, interval, from, to, opts)
}
