package itick

// The readers of each result type, over the models' tables.

func readQuote(st *fastState, key string) (Quote, error) { return quoteModel.read(st, key) }
func readTick(st *fastState, key string) (Tick, error)   { return tickModel.read(st, key) }
func readKline(st *fastState) (Kline, error)             { return klineModel.read(st, "") }

func readQuotes(st *fastState) (map[string]Quote, error) { return readMap(st, &st.quotes, readQuote) }
func readTicks(st *fastState) (map[string]Tick, error)   { return readMap(st, &st.ticks, readTick) }
func readBooks(st *fastState) (map[string]DepthBook, error) {
	return readMap(st, &st.books, readBook)
}
func readSeriesMap(st *fastState) (map[string][]Kline, error) {
	return readMap(st, &st.series, readSeries)
}

var (
	readQuotePtr     = pointerTo(readQuote)
	readTickPtr      = pointerTo(readTick)
	readBookPtr      = pointerTo(readBook)
	readStockInfoPtr = pointerTo(stockInfoModel.read)
	readArticlePtr   = pointerTo(articleModel.read)
)

func readSymbols(st *fastState) ([]Symbol, error)    { return readList(st, symbolModel) }
func readHolidays(st *fastState) ([]Holiday, error)  { return readList(st, holidayModel) }
func readSplitPage(st *fastState) (SplitPage, error) { return splitPageModel.read(st, "") }
func readIPOPage(st *fastState) (IPOPage, error)     { return ipoPageModel.read(st, "") }
func readNewsPage(st *fastState) (NewsPage, error)   { return newsPageModel.read(st, "") }

// pointerTo reads a single object as a *T, which null leaves nil.
func pointerTo[T any](read func(*fastState, string) (T, error)) func(*fastState) (*T, error) {
	return func(st *fastState) (*T, error) {
		if st.d.Null() {
			return nil, nil
		}
		v, err := read(st, "")
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}

// readMap reads an object keyed by code into pairs (scratch), so that the
// map can be made at its final size; a later duplicate key wins.
func readMap[T any](st *fastState, scratch *[]keyed[T], value func(*fastState, string) (T, error)) (map[string]T, error) {
	pairs := (*scratch)[:0]
	defer func() { *scratch = pairs }()
	isNull, err := eachMember(&st.d, func(k []byte) error {
		key := string(k)
		v, err := value(st, key)
		pairs = append(pairs, keyed[T]{key, v})
		return err
	})
	if isNull || err != nil {
		return nil, err
	}
	out := make(map[string]T, len(pairs))
	for _, p := range pairs {
		out[p.k] = p.v
	}
	return out, nil
}

// levelSpan is where one side's levels sit in the scratch buffer; isSet
// tells an array (even empty) from null or absence, which leave nil.
type levelSpan struct {
	start, end int
	isSet      bool
}

// bookSide is a side of a book: its levels are read into the state's
// scratch, at span, and copied out by readBook.
func bookSide(name string, span func(*fastState) *levelSpan, p func(*DepthBook) *[]DepthLevel) field[DepthBook] {
	return field[DepthBook]{name: name, want: "an array",
		dec: func(st *fastState, _ *DepthBook, _ string) (err error) { *span(st), err = readLevels(st); return err },
		enc: func(b []byte, v *DepthBook) ([]byte, error) { return appendList(b, *p(v), levelModel) }}
}

// readBook reads a book whose two sides share one allocation, each capped
// at its length.
func readBook(st *fastState, key string) (DepthBook, error) {
	st.levels = st.levels[:0]
	st.asks, st.bids = levelSpan{}, levelSpan{}
	book, err := bookModel.read(st, key)
	if err != nil || !st.asks.isSet && !st.bids.isSet {
		return book, err
	}
	asks, bids := st.asks, st.bids
	na, nb := asks.end-asks.start, bids.end-bids.start
	all := make([]DepthLevel, na+nb)
	copy(all, st.levels[asks.start:asks.end])
	copy(all[na:], st.levels[bids.start:bids.end])
	if asks.isSet {
		book.Asks = all[:na:na]
	}
	if bids.isSet {
		book.Bids = all[na : na+nb : na+nb]
	}
	return book, nil
}

func readLevels(st *fastState) (levelSpan, error) {
	span := levelSpan{start: len(st.levels), isSet: true}
	isNull, err := eachElem(&st.d, func() error {
		l, err := levelModel.read(st, "")
		st.levels = append(st.levels, l)
		return err
	})
	if isNull || err != nil {
		return levelSpan{}, err
	}
	span.end = len(st.levels)
	return span, nil
}

// readSeries reads one code's candles into the scratch buffer and copies
// them out at their final size: one allocation per code.
func readSeries(st *fastState, _ string) ([]Kline, error) {
	ks := st.klines[:0]
	defer func() { st.klines = ks }()
	isNull, err := eachElem(&st.d, func() error {
		k, err := readKline(st)
		ks = append(ks, k)
		return err
	})
	if isNull || err != nil {
		return nil, err
	}
	out := make([]Kline, len(ks))
	copy(out, ks)
	return out, nil
}

// readKlineData reads a single code's candles, or the empty object that
// says there are none.
func readKlineData(st *fastState) (klineData, error) {
	d := &st.d
	if d.Peek() == '{' {
		m := d.Mark()
		if empty, err := d.Enter('{'); err == nil && empty {
			return klineData{emptyObject: true}, nil
		}
		d.Rewind(m)
	}
	ks, err := readSeries(st, "")
	return klineData{klines: ks}, err
}
