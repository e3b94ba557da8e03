package itick

import (
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// Info returns the company profile of one stock: sector, industry,
// description, market capitalisation and the like.
func (s *StockService) Info(ctx context.Context, region Region, code string) (*StockInfo, error) {
	return fetchOne[StockInfo](ctx, s.m.c, "/stock/info", region, code, url.Values{"type": {"stock"}})
}

// IPOKind selects upcoming or recent listings.
type IPOKind string

// The IPO lists the service serves.
const (
	IPOUpcoming IPOKind = "upcoming"
	IPORecent   IPOKind = "recent"
)

// String returns the wire name, such as "upcoming".
func (k IPOKind) String() string { return string(k) }

func (k IPOKind) validate() error {
	if k != IPOUpcoming && k != IPORecent {
		return invalidArg("unknown IPO kind %q (want upcoming or recent)", string(k))
	}
	return nil
}

// IPOPage returns one page (0-based) of a region's upcoming or recent IPOs.
func (s *StockService) IPOPage(ctx context.Context, kind IPOKind, region Region, page int) (*IPOPage, error) {
	if err := kind.validate(); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	if page < 0 {
		return nil, invalidArg("IPO page %d is negative", page)
	}
	var p IPOPage
	q := query(region, "type", string(kind), "page", strconv.Itoa(page))
	if err := s.m.c.get(ctx, "/stock/ipo", q, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// IPOs iterates over a region's upcoming or recent IPOs, fetching pages as
// the loop needs them. It stops after the page marked last, at an empty
// page, or at a page that repeats an earlier one; an error is yielded once
// and ends the sequence. Breaking out of the loop stops fetching.
func (s *StockService) IPOs(ctx context.Context, kind IPOKind, region Region) iter.Seq2[IPO, error] {
	return pages(func(page int) (pageInfo[IPO], error) {
		p, err := s.IPOPage(ctx, kind, region, page)
		if err != nil {
			return pageInfo[IPO]{}, err
		}
		return pageInfo[IPO]{items: p.Records, last: p.Last, totalPages: p.TotalPages}, nil
	})
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

type stockInfoWire struct {
	C   str `json:"c"`
	N   str `json:"n"`
	T   str `json:"t"`
	E   str `json:"e"`
	S   str `json:"s"`
	I   str `json:"i"`
	L   str `json:"l"`
	R   str `json:"r"`
	Bd  str `json:"bd"`
	Wu  str `json:"wu"`
	Mcb num `json:"mcb"`
	Tso num `json:"tso"`
	Pet num `json:"pet"`
	Fcc str `json:"fcc"`
}

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (s *StockInfo) UnmarshalJSON(b []byte) error {
	var w stockInfoWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*s = StockInfo{Code: string(w.C), Name: string(w.N), Type: string(w.T), Exchange: string(w.E),
		Sector: string(w.S), Industry: string(w.I), Logo: string(w.L), Region: Region(w.R),
		Description: string(w.Bd), Website: string(w.Wu), MarketCap: float64(w.Mcb), Shares: float64(w.Tso),
		PE: float64(w.Pet), Currency: string(w.Fcc)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (s StockInfo) MarshalJSON() ([]byte, error) {
	return json.Marshal(stockInfoWire{C: str(s.Code), N: str(s.Name), T: str(s.Type), E: str(s.Exchange),
		S: str(s.Sector), I: str(s.Industry), L: str(s.Logo), R: str(s.Region), Bd: str(s.Description),
		Wu: str(s.Website), Mcb: num(s.MarketCap), Tso: num(s.Shares), Pet: num(s.PE), Fcc: str(s.Currency)})
}

// IPO is one initial public offering. MarketCap and Price are the
// service's text, such as "19.1M" and "3.50-4.50".
type IPO struct {
	ListingDate       time.Time // dt, Unix ms, UTC
	Company           string    // cn
	Code              string    // sc
	Exchange          string    // ex
	Country           string    // ct
	MarketCap         string    // mc
	Price             string    // pr: a price or a range
	SubscriptionStart time.Time // bs, Unix seconds, UTC
	SubscriptionEnd   time.Time // es, Unix seconds, UTC
	ResultDate        time.Time // ro: allotment results, Unix seconds, UTC
}

type ipoWire struct {
	Dt millis  `json:"dt"`
	Cn str     `json:"cn"`
	Sc str     `json:"sc"`
	Ex str     `json:"ex"`
	Ct str     `json:"ct"`
	Mc str     `json:"mc"`
	Pr str     `json:"pr"`
	Bs seconds `json:"bs"`
	Es seconds `json:"es"`
	Ro seconds `json:"ro"`
}

// UnmarshalJSON decodes the wire form: dt in milliseconds, bs, es and ro in
// seconds.
func (p *IPO) UnmarshalJSON(b []byte) error {
	var w ipoWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*p = IPO{ListingDate: time.Time(w.Dt), Company: string(w.Cn), Code: string(w.Sc), Exchange: string(w.Ex),
		Country: string(w.Ct), MarketCap: string(w.Mc), Price: string(w.Pr),
		SubscriptionStart: time.Time(w.Bs), SubscriptionEnd: time.Time(w.Es), ResultDate: time.Time(w.Ro)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (p IPO) MarshalJSON() ([]byte, error) {
	return json.Marshal(ipoWire{Dt: millis(p.ListingDate), Cn: str(p.Company), Sc: str(p.Code), Ex: str(p.Exchange),
		Ct: str(p.Country), Mc: str(p.MarketCap), Pr: str(p.Price),
		Bs: seconds(p.SubscriptionStart), Es: seconds(p.SubscriptionEnd), Ro: seconds(p.ResultDate)})
}

// IPOPage is one page of IPOs; Page is 0-based.
type IPOPage struct {
	Records       []IPO
	Page          int
	Size          int
	TotalPages    int
	TotalElements int
	Last          bool
}

// UnmarshalJSON decodes the wire form.
func (p *IPOPage) UnmarshalJSON(b []byte) error {
	var w pageWire[IPO]
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*p = IPOPage{Records: w.Content, Page: int(w.Page), Size: int(w.Size), TotalPages: int(w.TotalPages),
		TotalElements: int(w.TotalElements), Last: bool(w.Last)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (p IPOPage) MarshalJSON() ([]byte, error) {
	return json.Marshal(pageWire[IPO]{Content: p.Records, Page: integer(p.Page), Size: integer(p.Size),
		TotalPages: integer(p.TotalPages), TotalElements: integer(p.TotalElements), Last: boolean(p.Last)})
}
