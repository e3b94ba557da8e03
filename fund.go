package itick

import "context"

// FundService serves fund market data.
type FundService struct{ m market }

// Depths returns the order books of many funds, keyed by code. Funds often
// answer with placeholder levels whose price and volume are 0.
func (s *FundService) Depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return s.m.depths(ctx, region, codes)
}
