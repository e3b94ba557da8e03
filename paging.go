package itick

import (
	"iter"
	"slices"
)

// pageWire is the Spring-style page the service wraps split and IPO
// records in; page is 0-based.
type pageWire[T any] struct {
	Content       []T     `json:"content"`
	Page          integer `json:"page"`
	Size          integer `json:"size"`
	TotalPages    integer `json:"totalPages"`
	TotalElements integer `json:"totalElements"`
	Last          boolean `json:"last"`
}

// pageInfo is what the iterator needs from one page.
type pageInfo[T any] struct {
	items      []T
	last       bool
	totalPages int
}

// pages iterates over the items of 0-based pages, fetching each as the loop
// needs it. It stops after a page marked last or the last of totalPages, at
// an empty page, or at a page that repeats the one before it (a server that
// ignores the paging parameter answers that way); an error is yielded once
// and ends the sequence.
func pages[T any](fetch func(page int) (pageInfo[T], error), eq func(a, b T) bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var prev []T
		for page := 0; ; page++ {
			p, err := fetch(page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			if len(p.items) == 0 || samePage(prev, p.items, eq) {
				return
			}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			if p.last || (p.totalPages > 0 && page+1 >= p.totalPages) {
				return
			}
			prev = p.items
		}
	}
}

// samePage reports whether a page holds the same items as the one before
// it: a server that ignores the paging parameter answers that way.
func samePage[T any](prev, cur []T, eq func(a, b T) bool) bool {
	return len(prev) > 0 && slices.EqualFunc(prev, cur, eq)
}
