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
	codec.Symbol("s", func(b *DepthBook) *string { return &b.Symbol }),
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
// span, and copied out by readBook; it is written as a list.
func bookSide(name string, span func(*bookScratch) *levelSpan, p func(*DepthBook) *[]DepthLevel) codec.Field[DepthBook] {
	f := levelsField[DepthBook](name, span)
	f.Enc = func(b []byte, v *DepthBook) ([]byte, error) { return codec.AppendList(b, *p(v), levelModel) }
	return f
}

// levelsField reads one side's levels into the State's scratch, at span:
// a side of a book or of a depth push.
func levelsField[T any](name string, span func(*bookScratch) *levelSpan) codec.Field[T] {
	return codec.Field[T]{Name: name, Want: "an array",
		Dec: func(st *codec.State, _ *T, _ string) (err error) {
			s := bookLevels.Get(st)
			*span(s), err = s.read(st)
			return err
		}}
}

// reset empties the scratch for the next book, dropping a buffer a hostile
// book grew past what a State keeps.
func (s *bookScratch) reset() {
	if cap(s.levels) > codec.MaxScratch {
		s.levels = nil
	}
	s.levels = s.levels[:0]
	s.asks, s.bids = levelSpan{}, levelSpan{}
}

// read reads an array of levels into the scratch and returns where it sits.
func (s *bookScratch) read(st *codec.State) (levelSpan, error) {
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

// sides copies the two sides out of the scratch into one allocation, each
// capped at its length; a side that was null or absent is nil.
func (s *bookScratch) sides() (asks, bids []DepthLevel) {
	if !s.asks.isSet && !s.bids.isSet {
		return nil, nil
	}
	na, nb := s.asks.end-s.asks.start, s.bids.end-s.bids.start
	all := make([]DepthLevel, na+nb)
	copy(all, s.levels[s.asks.start:s.asks.end])
	copy(all[na:], s.levels[s.bids.start:s.bids.end])
	if s.asks.isSet {
		asks = all[:na:na]
	}
	if s.bids.isSet {
		bids = all[na : na+nb : na+nb]
	}
	return asks, bids
}

// readBook reads a book into b, its two sides sharing one allocation.
func readBook(st *codec.State, b *DepthBook, key string) error {
	s := bookLevels.Get(st)
	s.reset()
	if err := bookModel.Into(st, b, key); err != nil {
		return err
	}
	if asks, bids := s.sides(); asks != nil || bids != nil {
		b.Asks, b.Bids = asks, bids
	}
	return nil
}

func (m market) depth(ctx context.Context, region Region, code string, opts []QuoteOption) (*DepthBook, error) {
	return fetchOne(ctx, m.c, m.path("depth"), region, code, quoteQuery(opts), bookPtr)
}

func (m market) depths(ctx context.Context, region Region, codes []string, opts []QuoteOption) (map[string]DepthBook, error) {
	return fetchBatch(ctx, m.c, m.path("depths"), region, codes, quoteQuery(opts), booksReader.Read, nil)
}
