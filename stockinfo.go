package itick

import (
	"context"
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

var stockInfoModel = newModel(nil,
	strField("c", func(s *StockInfo) *string { return &s.Code }),
	strField("n", func(s *StockInfo) *string { return &s.Name }),
	strField("t", func(s *StockInfo) *string { return &s.Type }),
	strField("e", func(s *StockInfo) *string { return &s.Exchange }),
	strField("s", func(s *StockInfo) *string { return &s.Sector }),
	strField("i", func(s *StockInfo) *string { return &s.Industry }),
	strField("l", func(s *StockInfo) *string { return &s.Logo }),
	strField("r", func(s *StockInfo) *Region { return &s.Region }),
	strField("bd", func(s *StockInfo) *string { return &s.Description }),
	strField("wu", func(s *StockInfo) *string { return &s.Website }),
	numField("mcb", func(s *StockInfo) *float64 { return &s.MarketCap }),
	numField("tso", func(s *StockInfo) *float64 { return &s.Shares }),
	numField("pet", func(s *StockInfo) *float64 { return &s.PE }),
	strField("fcc", func(s *StockInfo) *string { return &s.Currency }),
)

// UnmarshalJSON decodes the wire form, tolerating numbers sent as strings.
func (s *StockInfo) UnmarshalJSON(b []byte) error { return stockInfoModel.unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s StockInfo) MarshalJSON() ([]byte, error) { return stockInfoModel.marshal(&s) }

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

var ipoModel = newModel(nil,
	millisField("dt", func(p *IPO) *time.Time { return &p.ListingDate }),
	strField("cn", func(p *IPO) *string { return &p.Company }),
	strField("sc", func(p *IPO) *string { return &p.Code }),
	strField("ex", func(p *IPO) *string { return &p.Exchange }),
	strField("ct", func(p *IPO) *string { return &p.Country }),
	strField("mc", func(p *IPO) *string { return &p.MarketCap }),
	strField("pr", func(p *IPO) *string { return &p.Price }),
	secondsField("bs", func(p *IPO) *time.Time { return &p.SubscriptionStart }),
	secondsField("es", func(p *IPO) *time.Time { return &p.SubscriptionEnd }),
	secondsField("ro", func(p *IPO) *time.Time { return &p.ResultDate }),
)

// UnmarshalJSON decodes the wire form: dt in milliseconds, bs, es and ro in
// seconds.
func (p *IPO) UnmarshalJSON(b []byte) error { return ipoModel.unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p IPO) MarshalJSON() ([]byte, error) { return ipoModel.marshal(&p) }

// IPOPage is one page of IPOs; Page is 0-based.
type IPOPage struct {
	Records       []IPO
	Page          int
	Size          int
	TotalPages    int
	TotalElements int
	Last          bool
}

var ipoPageModel = newModel(nil, pageFields(ipoModel, func(p *IPOPage) *pageInfoFields[IPO] {
	return (*pageInfoFields[IPO])(p)
})...)

// UnmarshalJSON decodes the wire form.
func (p *IPOPage) UnmarshalJSON(b []byte) error { return ipoPageModel.unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p IPOPage) MarshalJSON() ([]byte, error) { return ipoPageModel.marshal(&p) }
