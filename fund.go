package itick

import (
	"context"
	"time"
)

// FundService serves fund market data.
type FundService struct{ m market }

// Depths returns the order books of many funds, keyed by code. Funds often
// answer with placeholder levels whose price and volume are 0.
func (s *FundService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes, nil)
}

// Depth returns the order book of one fund.
func (s *FundService) Depth(ctx context.Context, region Region, code string) (*DepthBook, error) {
	return s.m.depth(ctx, region, code, nil)
}

// Quote returns the real-time quote of one fund. Fund quotes carry
// PrevClose, Change and ChangePercent.
func (s *FundService) Quote(ctx context.Context, region Region, code string) (*Quote, error) {
	return s.m.quote(ctx, region, code, nil)
}

// Quotes returns real-time quotes of many funds, keyed by code.
func (s *FundService) Quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return s.m.quotes(ctx, region, codes, nil)
}

// Kline returns up to limit candles of one fund, oldest first.
func (s *FundService) Kline(ctx context.Context, region Region, code string, interval Interval, limit int, opts ...KlineOption) ([]Kline, error) {
	return s.m.kline(ctx, region, code, interval, limit, opts)
}

// Klines returns up to limit candles per fund, oldest first, keyed by code.
func (s *FundService) Klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klines(ctx, region, codes, interval, limit, opts)
}

// Tick returns the latest trade of one fund.
func (s *FundService) Tick(ctx context.Context, region Region, code string) (*Tick, error) {
	return s.m.tick(ctx, region, code, nil)
}

// Ticks returns the latest trades of many funds, keyed by code.
func (s *FundService) Ticks(ctx context.Context, region Region, codes []string) (map[string]Tick, error) {
	return s.m.ticks(ctx, region, codes, nil)
}

// KlineRange returns every candle of one fund with from <= Time < to,
// oldest first, however many requests that takes, as
// StockService.KlineRange does; WithResume and WithClosedOnly apply.
func (s *FundService) KlineRange(ctx context.Context, region Region, code string, interval Interval, from, to time.Time, opts ...KlineOption) ([]Kline, error) {
	return s.m.klineRange(ctx, region, code, interval, from, to, opts)
}

// KlinesRange returns every candle with from <= Time < to of many
// funds, oldest first, keyed by code, as StockService.KlinesRange does:
// WithResume completes a partial result with only the missing requests,
// and WithClosedOnly leaves out the candle still forming.
func (s *FundService) KlinesRange(ctx context.Context, region Region, codes []string, interval Interval, from, to time.Time, opts ...KlineOption) (map[string][]Kline, error) {
	return s.m.klinesRange(ctx, region, codes, interval, from, to, opts)
}
