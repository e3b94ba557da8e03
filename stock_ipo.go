package itick

import (
	"context"
	"iter"
	"strconv"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
)

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
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := kind.validate(); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	if page < 0 {
		return nil, invalidArg("IPO page %d is negative", page)
	}
	q := query(region, "type", string(kind), "page", strconv.Itoa(page))
	p, err := get(ctx, s.m.c, "/stock/ipo", q, ipoPageModel.Ptr)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = new(IPOPage)
	}
	return p, nil
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

// IPO is one initial public offering. MarketCap and Price are the
// service's text, such as "19.1M" and "3.50-4.50".
type IPO struct {
	ListingDate       time.Time `itick:"dt,unixms"` // UTC
	Company           string    `itick:"cn"`
	Code              string    `itick:"sc,code"`
	Exchange          string    `itick:"ex,code"`
	Country           string    `itick:"ct"`
	MarketCap         string    `itick:"mc"`
	Price             string    `itick:"pr"`      // a price or a range
	SubscriptionStart time.Time `itick:"bs,unix"` // UTC
	SubscriptionEnd   time.Time `itick:"es,unix"` // UTC
	ResultDate        time.Time `itick:"ro,unix"` // allotment results, UTC
}

var ipoModel = codec.Describe[IPO]()

// UnmarshalJSON decodes the wire form: dt in milliseconds, bs, es and ro in
// seconds.
func (p *IPO) UnmarshalJSON(b []byte) error { return ipoModel.Unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p IPO) MarshalJSON() ([]byte, error) { return ipoModel.Marshal(&p) }

// IPOPage is one page of IPOs; Page is 0-based.
type IPOPage struct {
	Records       []IPO `itick:"content"`       // the page's listings
	Page          int   `itick:"page"`          // this page's index, from 0
	Size          int   `itick:"size"`          // listings a full page holds
	TotalPages    int   `itick:"totalPages"`    // as the service counts them
	TotalElements int   `itick:"totalElements"` // as the service counts them
	Last          bool  `itick:"last"`          // no page follows this one
}

var ipoPageModel = codec.Describe[IPOPage](ipoModel)

// UnmarshalJSON decodes the wire form.
func (p *IPOPage) UnmarshalJSON(b []byte) error { return ipoPageModel.Unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p IPOPage) MarshalJSON() ([]byte, error) { return ipoPageModel.Marshal(&p) }
