package itick

import "context"

// IndicesService serves index market data. Index quotes carry no
// PrevClose, Change or ChangePercent.
type IndicesService struct{ m market }

// Depths returns the order books of many indices, keyed by code.
func (s *IndicesService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes)
}

// Quotes returns real-time quotes of many indices, keyed by code.
func (s *IndicesService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes)
}

// Klines returns up to limit candles per index, oldest first, keyed by code.
func (s *IndicesService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}
