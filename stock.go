package itick

import "context"

// StockService serves stock market data.
type StockService struct{ m market }

// Depth returns the order book of one stock (up to 10 levels a side).
func (s *StockService) Depth(ctx context.Context, region Region, code string) (*DepthBook, error) {
	return s.m.depth(ctx, region, code)
}

// Depths returns the order books of many stocks, keyed by code.
func (s *StockService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes)
}

// Quotes returns real-time quotes of many stocks, keyed by code.
func (s *StockService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes)
}

// Klines returns up to limit candles per stock, oldest first, keyed by code.
// WithExchange picks a secondary exchange; WithEnd sets the last candle's time.
func (s *StockService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}
