package itick

import "context"

// FutureService serves futures market data.
type FutureService struct{ m market }

// Depths returns the order books of many contracts, keyed by code.
func (s *FutureService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes)
}

// Quotes returns real-time quotes of many contracts, keyed by code.
func (s *FutureService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes)
}

// Klines returns up to limit candles per contract, oldest first, keyed by code.
func (s *FutureService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}
