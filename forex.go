package itick

import "context"

// ForexService serves forex pair market data. Forex quotes carry no
// PrevClose, Change or ChangePercent.
type ForexService struct{ m market }

// Depths returns the order books of many pairs, keyed by code.
func (s *ForexService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes)
}

// Quotes returns real-time quotes of many pairs, keyed by code.
func (s *ForexService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes)
}

// Klines returns up to limit candles per pair, oldest first, keyed by code.
func (s *ForexService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}
