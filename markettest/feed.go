package markettest

import (
	"fmt"
	"time"

	"github.com/d19c4e34/itick"
)

var companyNames = []string{"Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Tyrell",
	"Cyberdyne", "Soylent", "Hooli", "Vandelay", "Wonka", "Oscorp", "Aperture", "Massive Dynamic"}

var newsTopics = []string{"shares rise after earnings beat", "sets new buyback programme",
	"falls as guidance disappoints", "announces dividend increase", "wins regulatory approval",
	"names new chief executive", "expands into Southeast Asia", "trims workforce in restructuring",
	"reports record quarterly revenue", "faces antitrust probe"}

var newsProviders = []string{"MarketWire", "Finance Daily", "Asia Markets Desk", "Street Insider", "Ticker Times"}

// News timing: one article per slot, at a moment inside the slot, over a
// feed that reaches back newsDepth slots from now.
const (
	newsSlot  = 7 * time.Minute
	newsDepth = 150
)

// News returns up to limit articles of a market and language published
// strictly before before (now when zero), newest first, and whether older
// ones remain in the feed. Articles sit on a fixed timeline, so paging by
// time is stable while the clock moves on.
func (g *Generator) News(market, lang string, before time.Time, limit int, now time.Time) ([]itick.NewsItem, bool) {
	if before.IsZero() || before.After(now) {
		before = now.Add(time.Nanosecond)
	}
	horizon := now.Add(-newsDepth * newsSlot)
	slotNs := int64(newsSlot)
	key := g.hash("news", market, lang)
	var out []itick.NewsItem
	for slot := floorDiv(before.UnixNano(), slotNs); ; slot-- {
		start := time.Unix(0, slot*slotNs)
		if start.Add(newsSlot).Before(horizon) {
			return out, false
		}
		h := mix(key ^ uint64(slot))
		at := start.Add(time.Duration(unit(h) * float64(newsSlot))).UTC()
		if !at.Before(before) || at.After(now) || at.Before(horizon) {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, g.newsItem(market, lang, at, h))
	}
}

func (g *Generator) newsItem(market, lang string, at time.Time, h uint64) itick.NewsItem {
	id := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", uint32(h), uint16(h>>32), 0x4000|uint16(h>>48)&0x0fff,
		0x8000|uint16(mix(h))&0x3fff, mix(h^1)&0xffffffffffff)
	company := companyNames[mix(h^2)%uint64(len(companyNames))]
	return itick.NewsItem{
		ID:        id,
		Title:     company + " " + newsTopics[mix(h^3)%uint64(len(newsTopics))],
		Published: at,
		Market:    market,
		Lang:      lang,
		Link:      "https://news.example.com/" + market + "/" + id,
		Provider:  newsProviders[mix(h^4)%uint64(len(newsProviders))],
	}
}
