package itick

import (
	"context"

	"github.com/d19c4e34/itick/internal/codec"
)

// DepthBook is the order book of one product.
type DepthBook struct {
	Symbol string       `itick:"s,code"`
	Asks   []DepthLevel `itick:"a"` // best first
	Bids   []DepthLevel `itick:"b"` // best first
}

// DepthLevel is one price level of a book. Price is zero on a level the
// service sent without one; Orders can be fractional for crypto pairs.
type DepthLevel struct {
	Level  int     `itick:"po"` // from 1
	Price  float64 `itick:"p"`
	Volume float64 `itick:"v"`
	Orders float64 `itick:"o"`
}

var (
	levelModel = codec.Describe[DepthLevel]()
	// A book's two sides are read into the State's scratch and share one
	// allocation.
	bookModel   = codec.Describe[DepthBook](levelModel, codec.Together("a", "b"))
	booksReader = codec.NewMap(bookModel.Into)
)

// UnmarshalJSON decodes the wire form.
func (d *DepthBook) UnmarshalJSON(b []byte) error { return bookModel.Unmarshal(b, d) }

// MarshalJSON encodes the service's wire form.
func (d DepthBook) MarshalJSON() ([]byte, error) { return bookModel.Marshal(&d) }

// UnmarshalJSON decodes the wire form.
func (l *DepthLevel) UnmarshalJSON(b []byte) error { return levelModel.Unmarshal(b, l) }

// MarshalJSON encodes the service's wire form.
func (l DepthLevel) MarshalJSON() ([]byte, error) { return levelModel.Marshal(&l) }

func (m market) depth(ctx context.Context, region Region, code string, opts []QuoteOption) (*DepthBook, error) {
	return fetchOne(ctx, m.c, m.path("depth"), region, code, quoteQuery(opts), bookModel.Ptr)
}

func (m market) depths(ctx context.Context, region Region, codes []string, opts []QuoteOption) (map[string]DepthBook, error) {
	return fetchBatch(ctx, m.c, m.path("depths"), region, codes, quoteQuery(opts), booksReader.Read, nil)
}
