package itick

import (
	"context"
	"iter"
	"strconv"
)

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
	var p SplitPage
	if err := s.m.c.get(ctx, "/stock/split", query(region, "page", strconv.Itoa(page)), &p); err != nil {
		return nil, err
	}
	return &p, nil
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
