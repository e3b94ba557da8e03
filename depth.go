package itick

import (
	"context"

	"github.com/d19c4e34/itick/internal/codec"
)

// DepthBook is the order book of one product.
type DepthBook struct {
	Symbol string       // s
	Asks   []DepthLevel // a, best first
	Bids   []DepthLevel // b, best first
}

// DepthLevel is one price level of a book. Price is zero on a level the
// service sent without one; Orders can be fractional for crypto pairs.
type DepthLevel struct {
	Level  int     // po, from 1
	Price  float64 // p
	Volume float64 // v
	Orders float64 // o
}

var levelModel = codec.NewModel(
	codec.Int("po", func(l *DepthLevel) *int { return &l.Level }),
	codec.Num("p", func(l *DepthLevel) *float64 { return &l.Price }),
	codec.Num("v", func(l *DepthLevel) *float64 { return &l.Volume }),
	codec.Num("o", func(l *DepthLevel) *float64 { return &l.Orders }),
)

// bookModel reads a book's sides into the State's level scratch (see
// readBook); it writes them as lists.
var bookModel = codec.NewModel(
	codec.Str("s", func(b *DepthBook) *string { return &b.Symbol }),
	bookSide("a", func(s *bookScratch) *levelSpan { return &s.asks }, func(b *DepthBook) *[]DepthLevel { return &b.Asks }),
	bookSide("b", func(s *bookScratch) *levelSpan { return &s.bids }, func(b *DepthBook) *[]DepthLevel { return &b.Bids }),
)

var (
	booksReader = codec.NewMap(readBook)
	bookPtr     = codec.Reader[*DepthBook](func(st *codec.State) (*DepthBook, error) {
		if st.D.Null() {
			return nil, nil
		}
		b := new(DepthBook)
		return b, readBook(st, b, "")
	})
)

// UnmarshalJSON decodes the wire form.
func (d *DepthBook) UnmarshalJSON(b []byte) error { return codec.Unmarshal(b, d, readBook) }

// MarshalJSON encodes the service's wire form.
func (d DepthBook) MarshalJSON() ([]byte, error) { return bookModel.Marshal(&d) }

// UnmarshalJSON decodes the wire form.
func (l *DepthLevel) UnmarshalJSON(b []byte) error { return levelModel.Unmarshal(b, l) }

// MarshalJSON encodes the service's wire form.
func (l DepthLevel) MarshalJSON() ([]byte, error) { return levelModel.Marshal(&l) }

// bookScratch is where a book's levels are read before they are copied
// out, both sides in one allocation.
type bookScratch struct {
	levels     []DepthLevel
	asks, bids levelSpan
}

var bookLevels = codec.NewScratch[bookScratch]()

// levelSpan is where one side's levels sit in the scratch; isSet tells an
// array (even empty) from null or absence, which leave nil.
type levelSpan struct {
	start, end int
	isSet      bool
}

// bookSide is a side of a book: its levels are read into the scratch, at
// span, and copied out by readBook.
func bookSide(name string, span func(*bookScratch) *levelSpan, p func(*DepthBook) *[]DepthLevel) codec.Field[DepthBook] {
	return codec.Field[DepthBook]{Name: name, Want: "an array",
		Dec: func(st *codec.State, _ *DepthBook, _ string) (err error) {
			s := bookLevels.Get(st)
			*span(s), err = readLevels(st, s)
			return err
		},
		Enc: func(b []byte, v *DepthBook) ([]byte, error) { return codec.AppendList(b, *p(v), levelModel) }}
}

// readBook reads a book into b, its two sides sharing one allocation, each
// capped at its length.
func readBook(st *codec.State, b *DepthBook, key string) error {
	s := bookLevels.Get(st)
	s.levels = s.levels[:0]
	s.asks, s.bids = levelSpan{}, levelSpan{}
	defer func() {
		if cap(s.levels) > codec.MaxScratch {
			s.levels = nil
		}
	}()
	if err := bookModel.Into(st, b, key); err != nil || !s.asks.isSet && !s.bids.isSet {
		return err
	}
	asks, bids := s.asks, s.bids
	na, nb := asks.end-asks.start, bids.end-bids.start
	all := make([]DepthLevel, na+nb)
	copy(all, s.levels[asks.start:asks.end])
	copy(all[na:], s.levels[bids.start:bids.end])
	if asks.isSet {
		b.Asks = all[:na:na]
	}
	if bids.isSet {
		b.Bids = all[na : na+nb : na+nb]
	}
	return nil
}

func readLevels(st *codec.State, s *bookScratch) (levelSpan, error) {
	span := levelSpan{start: len(s.levels), isSet: true}
	isNull, err := codec.EachElem(&st.D, func() error {
		s.levels = append(s.levels, DepthLevel{})
		return levelModel.Into(st, &s.levels[len(s.levels)-1], "")
	})
	if isNull || err != nil {
		return levelSpan{}, err
	}
	span.end = len(s.levels)
	return span, nil
}

func (m market) depth(ctx context.Context, region Region, code string, opts []QuoteOption) (*DepthBook, error) {
	return fetchOne(ctx, m.c, m.path("depth"), region, code, quoteQuery(opts), bookPtr)
}

func (m market) depths(ctx context.Context, region Region, codes []string, opts []QuoteOption) (map[string]DepthBook, error) {
	return fetchBatch(ctx, m.c, m.path("depths"), region, codes, quoteQuery(opts), booksReader.Read, nil)
}
