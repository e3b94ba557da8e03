package itick

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
)

// pageInfo is what the iterator needs from one page.
type pageInfo[T any] struct {
	items      []T
	last       bool
	totalPages int
}

// pages iterates over the items of 0-based pages, fetching each as the loop
// needs it. It stops after a page marked last or the last of totalPages, at
// an empty page, or at a page that repeats any page before it (a server
// that ignores the paging parameter answers that way, and one that cycles
// through a few pages would otherwise never end); an error is yielded once
// and ends the sequence.
func pages[T any](fetch func(page int) (pageInfo[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		seen := map[[sha256.Size]byte]struct{}{}
		for page := 0; ; page++ {
			p, err := fetch(page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			if len(p.items) == 0 {
				return
			}
			sum := pageSum(p.items)
			if _, dup := seen[sum]; dup {
				return
			}
			seen[sum] = struct{}{}
			for _, it := range p.items {
				if !yield(it, nil) {
					return
				}
			}
			if p.last || (p.totalPages > 0 && page+1 >= p.totalPages) {
				return
			}
		}
	}
}

// pageSum fingerprints a page's items by their wire form, so every page
// seen can be remembered in a few bytes rather than kept whole.
func pageSum[T any](items []T) [sha256.Size]byte {
	b, err := json.Marshal(items)
	if err != nil {
		b = fmt.Appendf(nil, "%#v", items)
	}
	return sha256.Sum256(b)
}

// samePage reports whether a page holds the same items as the one before
// it: a server that ignores the paging parameter answers that way.
func samePage[T any](prev, cur []T, eq func(a, b T) bool) bool {
	return len(prev) > 0 && slices.EqualFunc(prev, cur, eq)
}
