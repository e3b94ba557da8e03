package itick

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Get returns one article with its summary and body. lang ("en", "hk",
// ...) picks the translation; "" leaves it to the service. An answer with
// no article in it (data null or {}) is ErrNotFound.
func (s *NewsService) Get(ctx context.Context, id, lang string) (*NewsArticle, error) {
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
	var a *NewsArticle
	if err := s.c.get(ctx, path, q, &a); err != nil {
		return nil, err
	}
	if isEmpty(a) {
		return nil, fmt.Errorf("%w: %s: no article", ErrNotFound, path)
	}
	return a, nil
}

// NewsArticle is one news article in full.
type NewsArticle struct {
	ID        string    // id
	Title     string    // te
	Published time.Time // pt, Unix seconds, UTC
	Lang      string    // lg
	Link      string    // lk: the original article
	Summary   string    // sd
	Body      string    // cd
	Tags      []string  // tg
	Markets   []string  // mts: the markets the article concerns
	Market    string    // mt
}

type newsArticleWire struct {
	ID  str     `json:"id"`
	Te  str     `json:"te"`
	Pt  seconds `json:"pt"`
	Lg  str     `json:"lg"`
	Lk  str     `json:"lk"`
	Sd  str     `json:"sd"`
	Cd  str     `json:"cd"`
	Tg  strList `json:"tg"`
	Mts strList `json:"mts"`
	Mt  str     `json:"mt"`
}

// UnmarshalJSON decodes the wire form; pt may be a number or a string.
func (a *NewsArticle) UnmarshalJSON(b []byte) error {
	var w newsArticleWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*a = NewsArticle{ID: string(w.ID), Title: string(w.Te), Published: time.Time(w.Pt), Lang: string(w.Lg),
		Link: string(w.Lk), Summary: string(w.Sd), Body: string(w.Cd), Tags: w.Tg, Markets: w.Mts, Market: string(w.Mt)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (a NewsArticle) MarshalJSON() ([]byte, error) {
	return json.Marshal(newsArticleWire{ID: str(a.ID), Te: str(a.Title), Pt: seconds(a.Published), Lg: str(a.Lang),
		Lk: str(a.Link), Sd: str(a.Summary), Cd: str(a.Body), Tg: a.Tags, Mts: a.Markets, Mt: str(a.Market)})
}

// strList is a list of strings whose items may arrive as bare numbers; null
// is an empty list.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	var raw []str
	if err := unmarshalNested(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*l = nil
		return nil
	}
	out := make([]string, len(raw))
	for i, s := range raw {
		out[i] = string(s)
	}
	*l = out
	return nil
}

func (l strList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(l))
}

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
