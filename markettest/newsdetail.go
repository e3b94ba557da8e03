package markettest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// News ids are made from the hash of the article's slot in the feed, and
// that hash from the feed's key and the slot by an invertible mix. So an id
// leads back to its slot once the feed (market and language) is guessed,
// and an article can be served without remembering what the list gave out.

// newsMarkets and newsLangs are the feeds an id is looked for in, after
// the language the request names.
var (
	newsMarkets = []string{"stock", "crypto", "forex", "indices", "future", "fund"}
	newsLangs   = []string{"en", "zh", "hk", "cn", "tw", "ja", "ko"}
)

// newsReach is how far back an id is still found: a year of slots.
const newsReach = int64(365 * 24 * time.Hour / newsSlot)

// NewsArticle returns the article with id as of now, as /news/{id} serves
// it: the id must be one the news list gives out, in a feed of a usual
// market (stock, crypto, forex, indices, future, fund), for lang or a usual
// language, published at most a year before now. The article's title,
// link, market and language are those of the list's item; Published is
// to the second, as pt is sent.
func (g *Generator) NewsArticle(id, lang string, now time.Time) (itick.NewsArticle, bool) {
	hs, ok := newsHashes(id)
	if !ok {
		return itick.NewsArticle{}, false
	}
	langs := newsLangs
	if lang != "" {
		langs = append([]string{lang}, newsLangs...)
	}
	slotNs := int64(newsSlot)
	nowSlot := floorDiv(now.UnixNano(), slotNs)
	for _, market := range newsMarkets {
		for _, lg := range langs {
			key := g.hash("news", market, lg)
			for _, h := range hs {
				slot := int64(unmix(h) ^ key)
				if slot > nowSlot || slot < nowSlot-newsReach {
					continue
				}
				at := time.Unix(0, slot*slotNs).Add(time.Duration(unit(h) * float64(newsSlot))).UTC()
				item := g.newsItem(market, lg, at, h)
				if item.ID != id || at.After(now) {
					continue
				}
				return g.article(item, h), true
			}
		}
	}
	return itick.NewsArticle{}, false
}

// newsHashes returns the hashes an id can come from: newsItem keeps all
// but four bits of the hash in the id's first three groups.
func newsHashes(id string) ([]uint64, bool) {
	parts := strings.Split(id, "-")
	if len(parts) != 5 || len(parts[0]) != 8 || len(parts[1]) != 4 || len(parts[2]) != 4 {
		return nil, false
	}
	var v [3]uint64
	for i := range v {
		n, err := strconv.ParseUint(parts[i], 16, 64)
		if err != nil {
			return nil, false
		}
		v[i] = n
	}
	base := v[0] | v[1]<<32 | (v[2]&0x0fff)<<48
	out := make([]uint64, 16)
	for top := range out {
		out[top] = base | uint64(top)<<60
	}
	return out, true
}

// unmix inverts mix.
func unmix(x uint64) uint64 {
	x = unshift(x, 31)
	x *= inverse(0x94d049bb133111eb)
	x = unshift(x, 27)
	x *= inverse(0xbf58476d1ce4e5b9)
	return unshift(x, 30)
}

// unshift inverts x ^= x >> s.
func unshift(y uint64, s uint) uint64 {
	x := y
	for range 64 / s {
		x = y ^ x>>s
	}
	return x
}

// inverse is the multiplicative inverse of an odd c modulo 2^64.
func inverse(c uint64) uint64 {
	x := c
	for range 5 {
		x *= 2 - c*x
	}
	return x
}

var newsRegions = []string{"HK", "US", "CN", "GB", "JP", "SG"}

func (g *Generator) article(item itick.NewsItem, h uint64) itick.NewsArticle {
	company := strings.Fields(item.Title)[0]
	topic := strings.TrimPrefix(item.Title, company+" ")
	r := mix(h ^ 5)
	markets := []string{newsRegions[r%uint64(len(newsRegions))]}
	if second := newsRegions[(r>>8)%uint64(len(newsRegions))]; second != markets[0] {
		markets = append(markets, second)
	}
	return itick.NewsArticle{
		ID:        item.ID,
		Title:     item.Title,
		Published: item.Published.Truncate(time.Second),
		Lang:      item.Lang,
		Link:      item.Link,
		Summary:   fmt.Sprintf("%s %s, %s reports.", company, topic, item.Provider),
		Body: fmt.Sprintf("%s %s, according to %s. Analysts said the news was broadly in line with "+
			"expectations, and trading in the shares was active after the announcement. %s did not comment further.",
			company, topic, item.Provider, company),
		Tags:    []string{company, strings.Fields(topic)[0], item.Market},
		Markets: markets,
		Market:  item.Market,
	}
}

func serveNewsDetail(c *call) (any, error) {
	a, ok := c.gen.NewsArticle(c.pathValue("id"), c.query.Get("lang"), c.now)
	if !ok {
		return nil, notFound()
	}
	return a, nil
}
