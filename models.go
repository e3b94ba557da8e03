package itick

import (
	"encoding/json"
	"time"
)

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

type quoteWire struct {
	S   str     `json:"s"`
	Ld  num     `json:"ld"`
	O   num     `json:"o"`
	P   num     `json:"p"`
	H   num     `json:"h"`
	L   num     `json:"l"`
	T   millis  `json:"t"`
	V   num     `json:"v"`
	Tu  num     `json:"tu"`
	TS  integer `json:"ts"`
	Ch  num     `json:"ch"`
	Chp num     `json:"chp"`
}

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (q *Quote) UnmarshalJSON(b []byte) error {
	return unmarshalQuote(b, q)
}

// MarshalJSON encodes the service's wire form.
func (q Quote) MarshalJSON() ([]byte, error) {
	return json.Marshal(quoteWire{S: str(q.Symbol), Ld: num(q.Last), O: num(q.Open), P: num(q.PrevClose),
		H: num(q.High), L: num(q.Low), T: millis(q.Time), V: num(q.Volume), Tu: num(q.Turnover),
		TS: integer(q.Status), Ch: num(q.Change), Chp: num(q.ChangePercent)})
}

// DepthBook is the order book of one product.
type DepthBook struct {
	Symbol string       // s
	Asks   []DepthLevel // a, best first
	Bids   []DepthLevel // b, best first
}

type depthBookWire struct {
	S str          `json:"s"`
	A []DepthLevel `json:"a"`
	B []DepthLevel `json:"b"`
}

// UnmarshalJSON decodes the wire form.
func (d *DepthBook) UnmarshalJSON(b []byte) error {
	return unmarshalDepthBook(b, d)
}

// MarshalJSON encodes the service's wire form.
func (d DepthBook) MarshalJSON() ([]byte, error) {
	return json.Marshal(depthBookWire{S: str(d.Symbol), A: d.Asks, B: d.Bids})
}

// DepthLevel is one price level of a book. Price is zero on a level the
// service sent without one; Orders can be fractional for crypto pairs.
type DepthLevel struct {
	Level  int     // po, from 1
	Price  float64 // p
	Volume float64 // v
	Orders float64 // o
}

type depthLevelWire struct {
	Po integer `json:"po"`
	P  num     `json:"p"`
	V  num     `json:"v"`
	O  num     `json:"o"`
}

// UnmarshalJSON decodes the wire form.
func (l *DepthLevel) UnmarshalJSON(b []byte) error {
	return unmarshalDepthLevel(b, l)
}

// MarshalJSON encodes the service's wire form.
func (l DepthLevel) MarshalJSON() ([]byte, error) {
	return json.Marshal(depthLevelWire{Po: integer(l.Level), P: num(l.Price), V: num(l.Volume), O: num(l.Orders)})
}

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

type klineWire struct {
	T  millis `json:"t"`
	O  num    `json:"o"`
	H  num    `json:"h"`
	L  num    `json:"l"`
	C  num    `json:"c"`
	V  num    `json:"v"`
	Tu num    `json:"tu"`
}

// UnmarshalJSON decodes the wire form.
func (k *Kline) UnmarshalJSON(b []byte) error {
	return unmarshalKline(b, k)
}

// MarshalJSON encodes the service's wire form.
func (k Kline) MarshalJSON() ([]byte, error) {
	return json.Marshal(klineWire{T: millis(k.Time), O: num(k.Open), H: num(k.High), L: num(k.Low),
		C: num(k.Close), V: num(k.Volume), Tu: num(k.Turnover)})
}

// SplitRecord is one stock split or reverse split.
type SplitRecord struct {
	ExDate time.Time // d, Unix ms, UTC
	Region Region    // r
	Name   string    // n
	Code   string    // c
	Ratio  string    // v, "<number>:<number>"
}

type splitRecordWire struct {
	D millis `json:"d"`
	R str    `json:"r"`
	N str    `json:"n"`
	C str    `json:"c"`
	V str    `json:"v"`
}

// UnmarshalJSON decodes the wire form.
func (s *SplitRecord) UnmarshalJSON(b []byte) error {
	var w splitRecordWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*s = SplitRecord{ExDate: time.Time(w.D), Region: Region(w.R), Name: string(w.N), Code: string(w.C), Ratio: string(w.V)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (s SplitRecord) MarshalJSON() ([]byte, error) {
	return json.Marshal(splitRecordWire{D: millis(s.ExDate), R: str(s.Region), N: str(s.Name), C: str(s.Code), V: str(s.Ratio)})
}

// SplitPage is one page of split records; Page is 0-based.
type SplitPage struct {
	Records       []SplitRecord
	Page          int
	Size          int
	TotalPages    int
	TotalElements int
	Last          bool
}

// UnmarshalJSON decodes the wire form.
func (p *SplitPage) UnmarshalJSON(b []byte) error {
	var w pageWire[SplitRecord]
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*p = SplitPage{Records: w.Content, Page: int(w.Page), Size: int(w.Size), TotalPages: int(w.TotalPages),
		TotalElements: int(w.TotalElements), Last: bool(w.Last)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (p SplitPage) MarshalJSON() ([]byte, error) {
	return json.Marshal(pageWire[SplitRecord]{Content: p.Records, Page: integer(p.Page), Size: integer(p.Size),
		TotalPages: integer(p.TotalPages), TotalElements: integer(p.TotalElements), Last: boolean(p.Last)})
}

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

type newsItemWire struct {
	ID str     `json:"id"`
	Te str     `json:"te"`
	Pt seconds `json:"pt"`
	Mt str     `json:"mt"`
	Lg str     `json:"lg"`
	Lk str     `json:"lk"`
	Pv str     `json:"pv"`
}

// UnmarshalJSON decodes the wire form; pt may be a number or a string.
func (n *NewsItem) UnmarshalJSON(b []byte) error {
	var w newsItemWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*n = NewsItem{ID: string(w.ID), Title: string(w.Te), Published: time.Time(w.Pt), Market: string(w.Mt),
		Lang: string(w.Lg), Link: string(w.Lk), Provider: string(w.Pv)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (n NewsItem) MarshalJSON() ([]byte, error) {
	return json.Marshal(newsItemWire{ID: str(n.ID), Te: str(n.Title), Pt: seconds(n.Published), Mt: str(n.Market),
		Lg: str(n.Lang), Lk: str(n.Link), Pv: str(n.Provider)})
}

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

type newsPageWire struct {
	Data       []NewsItem `json:"data"`
	Pagination struct {
		NextCursor str     `json:"nextCursor"`
		HasMore    boolean `json:"hasMore"`
		Count      integer `json:"count"`
	} `json:"pagination"`
}

// UnmarshalJSON decodes the wire form.
func (p *NewsPage) UnmarshalJSON(b []byte) error {
	var w newsPageWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*p = NewsPage{Items: w.Data, NextCursor: string(w.Pagination.NextCursor), HasMore: bool(w.Pagination.HasMore),
		Count: int(w.Pagination.Count)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (p NewsPage) MarshalJSON() ([]byte, error) {
	var w newsPageWire
	w.Data = p.Items
	w.Pagination.NextCursor = str(p.NextCursor)
	w.Pagination.HasMore = boolean(p.HasMore)
	w.Pagination.Count = integer(p.Count)
	return json.Marshal(w)
}
