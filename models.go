package itick

import "time"

// Quote is a real-time quote of one product. PrevClose, Change and
// ChangePercent are decoded whenever the service sends them, whatever the
// class: stocks, futures, funds, indices and forex do; crypto quotes leave
// them out, so they are zero there.
type Quote struct {
	Symbol        string    // s
	Last          float64   // ld
	Open          float64   // o
	PrevClose     float64   // p   (zero when not sent, as for crypto)
	High, Low     float64   // h, l
	Time          time.Time // t, Unix ms, UTC
	Volume        float64   // v
	Turnover      float64   // tu
	Status        int       // ts
	Change        float64   // ch  (zero when not sent, as for crypto)
	ChangePercent float64   // chp (zero when not sent, as for crypto)
}

var quoteModel = newModel(func(st *fastState) *Quote { return &st.quote },
	strField("s", func(q *Quote) *string { return &q.Symbol }),
	numField("ld", func(q *Quote) *float64 { return &q.Last }),
	numField("o", func(q *Quote) *float64 { return &q.Open }),
	numField("p", func(q *Quote) *float64 { return &q.PrevClose }),
	numField("h", func(q *Quote) *float64 { return &q.High }),
	numField("l", func(q *Quote) *float64 { return &q.Low }),
	millisField("t", func(q *Quote) *time.Time { return &q.Time }),
	numField("v", func(q *Quote) *float64 { return &q.Volume }),
	numField("tu", func(q *Quote) *float64 { return &q.Turnover }),
	intField("ts", func(q *Quote) *int { return &q.Status }),
	numField("ch", func(q *Quote) *float64 { return &q.Change }),
	numField("chp", func(q *Quote) *float64 { return &q.ChangePercent }),
)

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (q *Quote) UnmarshalJSON(b []byte) error { return quoteModel.unmarshal(b, q) }

// MarshalJSON encodes the service's wire form.
func (q Quote) MarshalJSON() ([]byte, error) { return quoteModel.marshal(&q) }

// DepthBook is the order book of one product.
type DepthBook struct {
	Symbol string       // s
	Asks   []DepthLevel // a, best first
	Bids   []DepthLevel // b, best first
}

// bookModel reads a book's sides into the state's level scratch (see
// readBook); it writes them as lists.
var bookModel = newModel(func(st *fastState) *DepthBook { return &st.book },
	strField("s", func(b *DepthBook) *string { return &b.Symbol }),
	bookSide("a", func(st *fastState) *levelSpan { return &st.asks }, func(b *DepthBook) *[]DepthLevel { return &b.Asks }),
	bookSide("b", func(st *fastState) *levelSpan { return &st.bids }, func(b *DepthBook) *[]DepthLevel { return &b.Bids }),
)

// UnmarshalJSON decodes the wire form.
func (d *DepthBook) UnmarshalJSON(b []byte) error { return unmarshalWith(b, d, readBook) }

// MarshalJSON encodes the service's wire form.
func (d DepthBook) MarshalJSON() ([]byte, error) { return bookModel.marshal(&d) }

// DepthLevel is one price level of a book. Price is zero on a level the
// service sent without one; Orders can be fractional for crypto pairs.
type DepthLevel struct {
	Level  int     // po, from 1
	Price  float64 // p
	Volume float64 // v
	Orders float64 // o
}

var levelModel = newModel(func(st *fastState) *DepthLevel { return &st.level },
	intField("po", func(l *DepthLevel) *int { return &l.Level }),
	numField("p", func(l *DepthLevel) *float64 { return &l.Price }),
	numField("v", func(l *DepthLevel) *float64 { return &l.Volume }),
	numField("o", func(l *DepthLevel) *float64 { return &l.Orders }),
)

// UnmarshalJSON decodes the wire form.
func (l *DepthLevel) UnmarshalJSON(b []byte) error { return levelModel.unmarshal(b, l) }

// MarshalJSON encodes the service's wire form.
func (l DepthLevel) MarshalJSON() ([]byte, error) { return levelModel.marshal(&l) }

// Kline is one candle.
type Kline struct {
	Time     time.Time // t, Unix ms, UTC: the start of the interval
	Open     float64   // o
	High     float64   // h
	Low      float64   // l
	Close    float64   // c
	Volume   float64   // v
	Turnover float64   // tu
}

var klineModel = newModel(func(st *fastState) *Kline { return &st.kline },
	millisField("t", func(k *Kline) *time.Time { return &k.Time }),
	numField("o", func(k *Kline) *float64 { return &k.Open }),
	numField("h", func(k *Kline) *float64 { return &k.High }),
	numField("l", func(k *Kline) *float64 { return &k.Low }),
	numField("c", func(k *Kline) *float64 { return &k.Close }),
	numField("v", func(k *Kline) *float64 { return &k.Volume }),
	numField("tu", func(k *Kline) *float64 { return &k.Turnover }),
)

// UnmarshalJSON decodes the wire form.
func (k *Kline) UnmarshalJSON(b []byte) error { return klineModel.unmarshal(b, k) }

// MarshalJSON encodes the service's wire form.
func (k Kline) MarshalJSON() ([]byte, error) { return klineModel.marshal(&k) }

// SplitRecord is one stock split or reverse split.
type SplitRecord struct {
	ExDate time.Time // d, Unix ms, UTC
	Region Region    // r
	Name   string    // n
	Code   string    // c
	Ratio  string    // v, "<number>:<number>"
}

var splitModel = newModel(nil,
	millisField("d", func(s *SplitRecord) *time.Time { return &s.ExDate }),
	strField("r", func(s *SplitRecord) *Region { return &s.Region }),
	strField("n", func(s *SplitRecord) *string { return &s.Name }),
	strField("c", func(s *SplitRecord) *string { return &s.Code }),
	strField("v", func(s *SplitRecord) *string { return &s.Ratio }),
)

// UnmarshalJSON decodes the wire form.
func (s *SplitRecord) UnmarshalJSON(b []byte) error { return splitModel.unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s SplitRecord) MarshalJSON() ([]byte, error) { return splitModel.marshal(&s) }

// SplitPage is one page of split records; Page is 0-based.
type SplitPage struct {
	Records       []SplitRecord
	Page          int
	Size          int
	TotalPages    int
	TotalElements int
	Last          bool
}

var splitPageModel = newModel(nil, pageFields(splitModel, func(p *SplitPage) *pageInfoFields[SplitRecord] {
	return (*pageInfoFields[SplitRecord])(p)
})...)

// UnmarshalJSON decodes the wire form.
func (p *SplitPage) UnmarshalJSON(b []byte) error { return splitPageModel.unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p SplitPage) MarshalJSON() ([]byte, error) { return splitPageModel.marshal(&p) }

// NewsItem is one news article's headline.
type NewsItem struct {
	ID        string    // id
	Title     string    // te
	Published time.Time // pt, Unix seconds, UTC
	Market    string    // mt
	Lang      string    // lg
	Link      string    // lk
	Provider  string    // pv
}

var newsItemModel = newModel(nil,
	strField("id", func(n *NewsItem) *string { return &n.ID }),
	strField("te", func(n *NewsItem) *string { return &n.Title }),
	secondsField("pt", func(n *NewsItem) *time.Time { return &n.Published }),
	strField("mt", func(n *NewsItem) *string { return &n.Market }),
	strField("lg", func(n *NewsItem) *string { return &n.Lang }),
	strField("lk", func(n *NewsItem) *string { return &n.Link }),
	strField("pv", func(n *NewsItem) *string { return &n.Provider }),
)

// UnmarshalJSON decodes the wire form; pt may be a number or a string.
func (n *NewsItem) UnmarshalJSON(b []byte) error { return newsItemModel.unmarshal(b, n) }

// MarshalJSON encodes the service's wire form.
func (n NewsItem) MarshalJSON() ([]byte, error) { return newsItemModel.marshal(&n) }

// NewsQuery selects news. Market and Lang are required by the service;
// Cursor is a previous page's NextCursor.
type NewsQuery struct {
	Market string
	Lang   string
	// Limit is the page size. The service requires one, so 0 sends
	// DefaultNewsLimit (20); a negative Limit is ErrInvalidArgument.
	Limit  int
	Cursor string
}

// NewsPage is one page of news.
type NewsPage struct {
	Items      []NewsItem
	NextCursor string
	HasMore    bool
	Count      int
}

// newsPageModel reads the page's items from data and the rest from the
// pagination object.
var newsPageModel = newModel(nil,
	listField("data", newsItemModel, func(p *NewsPage) *[]NewsItem { return &p.Items }),
	objectField("pagination", newModel(nil,
		strField("nextCursor", func(p *NewsPage) *string { return &p.NextCursor }),
		boolField("hasMore", func(p *NewsPage) *bool { return &p.HasMore }),
		intField("count", func(p *NewsPage) *int { return &p.Count }),
	)),
)

// UnmarshalJSON decodes the wire form.
func (p *NewsPage) UnmarshalJSON(b []byte) error { return newsPageModel.unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p NewsPage) MarshalJSON() ([]byte, error) { return newsPageModel.marshal(&p) }
