package itick

import (
	"context"
	"iter"
	"slices"
	"strconv"
)

// SplitPage returns one page (0-based) of the stock splits and reverse
// splits of a region.
func (s *StockService) SplitPage(ctx context.Context, region Region, page int) (*SplitPage, error) {
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
	return func(yield func(SplitRecord, error) bool) {
		var prev []SplitRecord
		for page := 0; ; page++ {
			p, err := s.SplitPage(ctx, region, page)
			if err != nil {
				yield(SplitRecord{}, err)
				return
			}
			if len(p.Records) == 0 || (page > 0 && samePage(prev, p.Records, splitEqual)) {
				return
			}
			for _, r := range p.Records {
				if !yield(r, nil) {
					return
				}
			}
			if p.Last || (p.TotalPages > 0 && page+1 >= p.TotalPages) {
				return
			}
			prev = p.Records
		}
	}
}

func splitEqual(a, b SplitRecord) bool {
	return a.ExDate.Equal(b.ExDate) && a.Region == b.Region && a.Name == b.Name && a.Code == b.Code && a.Ratio == b.Ratio
}

// samePage reports whether a page holds the same items as the one before
// it: a server that ignores the paging parameter answers that way.
func samePage[T any](prev, cur []T, eq func(a, b T) bool) bool {
	return len(prev) > 0 && slices.EqualFunc(prev, cur, eq)
}
