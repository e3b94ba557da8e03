package itick

import (
	"context"
	"iter"
	"net/url"
	"strconv"
)

// NewsService serves the news feed.
type NewsService struct{ c *Client }

// DefaultNewsLimit is the page size News.List and News.All ask for when
// NewsQuery.Limit is 0: the service requires limit on every news request.
const DefaultNewsLimit = 20

func (q NewsQuery) values() (url.Values, error) {
	switch {
	case q.Market == "":
		return nil, invalidArg("NewsQuery.Market is empty (the service requires it, e.g. \"stock\")")
	case q.Lang == "":
		return nil, invalidArg("NewsQuery.Lang is empty (the service requires it, e.g. \"en\")")
	case q.Limit < 0:
		return nil, invalidArg("NewsQuery.Limit %d is negative", q.Limit)
	}
	v := url.Values{}
	v.Set("market", q.Market)
	v.Set("lang", q.Lang)
	limit := q.Limit
	if limit == 0 {
		limit = DefaultNewsLimit
	}
	v.Set("limit", strconv.Itoa(limit))
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	return v, nil
}

// List returns one page of news. Pass the page's NextCursor back in
// q.Cursor for the next one, or use All.
func (s *NewsService) List(ctx context.Context, q NewsQuery) (*NewsPage, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	v, err := q.values()
	if err != nil {
		return nil, err
	}
	var p NewsPage
	if err := s.c.get(ctx, "/news", v, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// All iterates over news from q onwards, passing each page's NextCursor
// back as the cursor. It stops when HasMore is false, at an empty page, or
// when a cursor repeats; an error is yielded once and ends the sequence.
// Breaking out of the loop stops fetching.
func (s *NewsService) All(ctx context.Context, q NewsQuery) iter.Seq2[NewsItem, error] {
	return func(yield func(NewsItem, error) bool) {
		seen := map[string]bool{}
		if q.Cursor != "" {
			seen[q.Cursor] = true
		}
		var prev []NewsItem
		for {
			p, err := s.List(ctx, q)
			if err != nil {
				yield(NewsItem{}, err)
				return
			}
			if len(p.Items) == 0 || samePage(prev, p.Items, func(a, b NewsItem) bool { return a.ID == b.ID }) {
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if !p.HasMore || p.NextCursor == "" || seen[p.NextCursor] {
				return
			}
			seen[p.NextCursor] = true
			q.Cursor = p.NextCursor
			prev = p.Items
		}
	}
}
