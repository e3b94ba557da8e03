package itick

import (
	"context"
	"iter"
	"strconv"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
)

// SplitRecord is one stock split or reverse split.
type SplitRecord struct {
	ExDate time.Time `itick:"d,unixms"` // UTC
	Region Region    `itick:"r,code"`
	Name   string    `itick:"n"`
	Code   string    `itick:"c,code"`
	Ratio  string    `itick:"v"` // "<number>:<number>"
}

var splitModel = codec.Describe[SplitRecord]()

// UnmarshalJSON decodes the wire form.
func (s *SplitRecord) UnmarshalJSON(b []byte) error { return splitModel.Unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s SplitRecord) MarshalJSON() ([]byte, error) { return splitModel.Marshal(&s) }

// SplitPage is one page of split records.
type SplitPage struct {
	Records       []SplitRecord `itick:"content"`       // the page's records
	Page          int           `itick:"page"`          // this page's index, from 0
	Size          int           `itick:"size"`          // records a full page holds
	TotalPages    int           `itick:"totalPages"`    // as the service counts them
	TotalElements int           `itick:"totalElements"` // unreliable in the service's own examples
	Last          bool          `itick:"last"`          // no page follows this one
}

var splitPageModel = codec.Describe[SplitPage](splitModel)

// UnmarshalJSON decodes the wire form.
func (p *SplitPage) UnmarshalJSON(b []byte) error { return splitPageModel.Unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p SplitPage) MarshalJSON() ([]byte, error) { return splitPageModel.Marshal(&p) }

// SplitPage returns one page (0-based) of the stock splits and reverse
// splits of a region.
func (s *StockService) SplitPage(ctx context.Context, region Region, page int) (*SplitPage, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	if page < 0 {
		return nil, invalidArg("split page %d is negative", page)
	}
	p, err := get(ctx, s.m.c, "/stock/split", query(region, "page", strconv.Itoa(page)), splitPageModel.Ptr)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = new(SplitPage)
	}
	return p, nil
}

// Splits iterates over every split record of a region, fetching pages as
// the loop needs them. It stops after the page marked last, at an empty
// page, or at a page that repeats an earlier one; an error is yielded once
// and ends the sequence. Breaking out of the loop stops fetching.
func (s *StockService) Splits(ctx context.Context, region Region) iter.Seq2[SplitRecord, error] {
	return pages(func(page int) (pageInfo[SplitRecord], error) {
		p, err := s.SplitPage(ctx, region, page)
		if err != nil {
			return pageInfo[SplitRecord]{}, err
		}
		return pageInfo[SplitRecord]{items: p.Records, last: p.Last, totalPages: p.TotalPages}, nil
	})
}
