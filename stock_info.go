package itick

import (
	"context"
	"net/url"

	"github.com/d19c4e34/itick/internal/codec"
)

// Info returns the company profile of one stock: sector, industry,
// description, market capitalisation and the like.
func (s *StockService) Info(ctx context.Context, region Region, code string) (*StockInfo, error) {
	return fetchOne(ctx, s.m.c, "/stock/info", region, code, url.Values{"type": {"stock"}}, stockInfoModel.Ptr)
}

// StockInfo is a company profile.
type StockInfo struct {
	Code        string  // c
	Name        string  // n
	Type        string  // t: "stock"
	Exchange    string  // e
	Sector      string  // s
	Industry    string  // i
	Logo        string  // l: an image URL
	Region      Region  // r
	Description string  // bd
	Website     string  // wu
	MarketCap   float64 // mcb
	Shares      float64 // tso: total shares outstanding
	PE          float64 // pet: price to earnings ratio
	Currency    string  // fcc
}

var stockInfoModel = codec.NewModel(
	codec.Symbol("c", func(s *StockInfo) *string { return &s.Code }),
	codec.Str("n", func(s *StockInfo) *string { return &s.Name }),
	codec.Symbol("t", func(s *StockInfo) *string { return &s.Type }),
	codec.Symbol("e", func(s *StockInfo) *string { return &s.Exchange }),
	codec.Str("s", func(s *StockInfo) *string { return &s.Sector }),
	codec.Str("i", func(s *StockInfo) *string { return &s.Industry }),
	codec.Str("l", func(s *StockInfo) *string { return &s.Logo }),
	codec.Symbol("r", func(s *StockInfo) *Region { return &s.Region }),
	codec.Str("bd", func(s *StockInfo) *string { return &s.Description }),
	codec.Str("wu", func(s *StockInfo) *string { return &s.Website }),
	codec.Num("mcb", func(s *StockInfo) *float64 { return &s.MarketCap }),
	codec.Num("tso", func(s *StockInfo) *float64 { return &s.Shares }),
	codec.Num("pet", func(s *StockInfo) *float64 { return &s.PE }),
	codec.Str("fcc", func(s *StockInfo) *string { return &s.Currency }),
)

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (s *StockInfo) UnmarshalJSON(b []byte) error { return stockInfoModel.Unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s StockInfo) MarshalJSON() ([]byte, error) { return stockInfoModel.Marshal(&s) }
