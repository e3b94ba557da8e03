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
	Code        string  `itick:"c,code"`
	Name        string  `itick:"n"`
	Type        string  `itick:"t,code"` // "stock"
	Exchange    string  `itick:"e,code"`
	Sector      string  `itick:"s"`
	Industry    string  `itick:"i"`
	Logo        string  `itick:"l"` // an image URL
	Region      Region  `itick:"r,code"`
	Description string  `itick:"bd"`
	Website     string  `itick:"wu"`
	MarketCap   float64 `itick:"mcb"`
	Shares      float64 `itick:"tso"` // total shares outstanding
	PE          float64 `itick:"pet"` // price to earnings ratio
	Currency    string  `itick:"fcc"`
}

var stockInfoModel = codec.Describe[StockInfo]()

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (s *StockInfo) UnmarshalJSON(b []byte) error { return stockInfoModel.Unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s StockInfo) MarshalJSON() ([]byte, error) { return stockInfoModel.Marshal(&s) }
