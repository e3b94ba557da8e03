package itick

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/wire"
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

var articleModel = newModel(nil,
	strField("id", func(a *NewsArticle) *string { return &a.ID }),
	strField("te", func(a *NewsArticle) *string { return &a.Title }),
	secondsField("pt", func(a *NewsArticle) *time.Time { return &a.Published }),
	strField("lg", func(a *NewsArticle) *string { return &a.Lang }),
	strField("lk", func(a *NewsArticle) *string { return &a.Link }),
	strField("sd", func(a *NewsArticle) *string { return &a.Summary }),
	strField("cd", func(a *NewsArticle) *string { return &a.Body }),
	strListField("tg", func(a *NewsArticle) *[]string { return &a.Tags }),
	strListField("mts", func(a *NewsArticle) *[]string { return &a.Markets }),
	strField("mt", func(a *NewsArticle) *string { return &a.Market }),
)

// UnmarshalJSON decodes the wire form; pt may be a number or a string.
func (a *NewsArticle) UnmarshalJSON(b []byte) error { return articleModel.unmarshal(b, a) }

// MarshalJSON encodes the service's wire form.
func (a NewsArticle) MarshalJSON() ([]byte, error) { return articleModel.marshal(&a) }

// strListField is a list of strings whose items may arrive as bare
// numbers; null and [] are a nil list, written as [].
func strListField[T any](name string, p func(*T) *[]string) field[T] {
	return field[T]{name: name, want: "an array of strings",
		dec: func(st *fastState, v *T, _ string) (err error) { *p(v), err = readStrings(&st.d, nil); return err },
		enc: func(b []byte, v *T) ([]byte, error) {
			if *p(v) == nil {
				return append(b, "[]"...), nil
			}
			q, err := json.Marshal(*p(v))
			return append(b, q...), err
		}}
}

// readStrings reads an array of strings (each as strField reads one) or
// null, appending them to out; an empty list is nil.
func readStrings(d *wire.Decoder, out []string) ([]string, error) {
	empty, err := enter(d, '[')
	if err != nil || empty {
		return out, err
	}
	for more := true; more; {
		b, err := d.Str()
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
		if more, err = d.Next(']'); err != nil {
			return nil, err
		}
	}
	return out, nil
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
