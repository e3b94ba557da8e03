package itick

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
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
	p, err := get(ctx, s.c, "/news", v, newsPageModel.Ptr)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = new(NewsPage)
	}
	return p, nil
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

// Get returns one article with its summary and body. lang ("en", "hk",
// ...) picks the translation; "" leaves it to the service. An answer with
// no article in it (data null or {}) is ErrNotFound.
func (s *NewsService) Get(ctx context.Context, id, lang string) (*NewsArticle, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	id = strings.TrimSpace(id)
	switch {
	case id == "":
		return nil, invalidArg("news id is empty")
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return nil, invalidArg("news id %q contains a control character", id)
	case isDotSegment(id):
		return nil, invalidArg("news id %q is a dot segment, which would change the path", id)
	case strings.ContainsFunc(lang, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-' && r != '_'
	}):
		return nil, invalidArg("news lang %q has a character other than letters, digits, '-' and '_'", lang)
	}
	q := url.Values{}
	if lang != "" {
		q.Set("lang", lang)
	}
	path := "/news/" + url.PathEscape(id)
	a, err := get(ctx, s.c, path, q, articleModel.Ptr)
	if err != nil {
		return nil, err
	}
	if isEmpty(a) {
		return nil, s.c.notFound("%s: no article", path)
	}
	return a, nil
}

// NewsArticle is one news article in full.
type NewsArticle struct {
	ID        string    `itick:"id"`
	Title     string    `itick:"te"`
	Published time.Time `itick:"pt,unix"` // UTC
	Lang      string    `itick:"lg"`
	Link      string    `itick:"lk"` // the original article
	Summary   string    `itick:"sd"`
	Body      string    `itick:"cd"`
	Tags      []string  `itick:"tg"`
	Markets   []string  `itick:"mts"` // the markets the article concerns
	Market    string    `itick:"mt"`
}

var articleModel = codec.Describe[NewsArticle]()

// UnmarshalJSON decodes the wire form; pt may be a number or a string.
func (a *NewsArticle) UnmarshalJSON(b []byte) error { return articleModel.Unmarshal(b, a) }

// MarshalJSON encodes the service's wire form.
func (a NewsArticle) MarshalJSON() ([]byte, error) { return articleModel.Marshal(&a) }

// isDotSegment reports an id that is "." or "..", also percent-encoded
// ("%2e"): escaping leaves the first kind as it is, and a server or proxy
// that decodes the path once sees the second as one. Either way /news/<id>
// would resolve to another path.
func isDotSegment(id string) bool {
	if dec, err := url.PathUnescape(id); err == nil {
		id = dec
	}
	return id == "." || id == ".."
}

// NewsItem is one news article's headline.
type NewsItem struct {
	ID        string    `itick:"id"`
	Title     string    `itick:"te"`
	Published time.Time `itick:"pt,unix"` // UTC
	Market    string    `itick:"mt"`
	Lang      string    `itick:"lg"`
	Link      string    `itick:"lk"`
	Provider  string    `itick:"pv"`
}

var newsItemModel = codec.Describe[NewsItem]()

// UnmarshalJSON decodes the wire form; pt may be a number or a string.
func (n *NewsItem) UnmarshalJSON(b []byte) error { return newsItemModel.Unmarshal(b, n) }

// MarshalJSON encodes the service's wire form.
func (n NewsItem) MarshalJSON() ([]byte, error) { return newsItemModel.Marshal(&n) }

// NewsQuery selects news. Market and Lang are required by the service;
// Cursor is a previous page's NextCursor.
type NewsQuery struct {
	Market string // required, such as "stock"
	Lang   string // required, such as "en" or "hk"
	// Limit is the page size. The service requires one, so 0 sends
	// DefaultNewsLimit (20); a negative Limit is ErrInvalidArgument.
	Limit  int
	Cursor string // a previous page's NextCursor; "" for the newest
}

// NewsPage is one page of news.
type NewsPage struct {
	Items      []NewsItem `itick:"data"`                  // the page's items
	NextCursor string     `itick:"pagination.nextCursor"` // pass it back as NewsQuery.Cursor
	HasMore    bool       `itick:"pagination.hasMore"`    // more items follow
	Count      int        `itick:"pagination.count"`      // items in this page, as the service counts them
}

var newsPageModel = codec.Describe[NewsPage](newsItemModel)

// UnmarshalJSON decodes the wire form.
func (p *NewsPage) UnmarshalJSON(b []byte) error { return newsPageModel.Unmarshal(b, p) }

// MarshalJSON encodes the service's wire form.
func (p NewsPage) MarshalJSON() ([]byte, error) { return newsPageModel.Marshal(&p) }
