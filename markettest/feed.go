package markettest

import (
	"fmt"
	"strconv"
	"time"

	"github.com/d19c4e34/itick"
)

// Splits returns the split and reverse-split records of a region as the
// service lists them, newest ex-date first. The list is fixed for a seed
// and a UTC day of now: between 30 and 69 records before now, each on a
// trading day of the region's market (a weekday, where the simulator does
// not know the market). A ratio is shares after the split to shares before
// it, in lowest terms: "10:1" multiplies the shares by ten, "1:3" is a
// reverse split that divides them by three.
func (g *Generator) Splits(region itick.Region, now time.Time) []itick.SplitRecord {
	key := g.hash("split", string(region))
	n := 30 + int(key%40)
	day := now.UTC().Truncate(24 * time.Hour)
	out := make([]itick.SplitRecord, 0, n)
	back := 0
	for i := range n {
		h := mix(key ^ uint64(i+1)*0x9e3779b97f4a7c15)
		back += 1 + int(h%12)
		for !tradingDay(region, day.AddDate(0, 0, -back)) {
			back++
		}
		code := splitCode(region, h)
		r := splitRatios[mix(h)%uint64(len(splitRatios))]
		out = append(out, itick.SplitRecord{
			ExDate: day.AddDate(0, 0, -back),
			Region: region,
			Name:   companyNames[h%uint64(len(companyNames))] + " " + code,
			Code:   code,
			Ratio:  strconv.Itoa(r[0]) + ":" + strconv.Itoa(r[1]),
		})
	}
	return out
}

// splitRatios are the ratios companies split and reverse-split by, shares
// after to shares before, in lowest terms; forward splits are the commoner.
var splitRatios = [][2]int{
	{2, 1}, {3, 1}, {4, 1}, {5, 1}, {10, 1}, {20, 1}, {50, 1}, {3, 2}, {5, 4}, {2, 1}, {3, 1}, {10, 1},
	{1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 8}, {1, 10}, {1, 15}, {1, 20}, {1, 25}, {1, 50}, {2, 3},
}

// splitCode makes a code shaped like the region's: numbers in Asia,
// letters elsewhere.
func splitCode(region itick.Region, h uint64) string {
	switch region {
	case itick.RegionHK, itick.RegionSH, itick.RegionSZ, itick.RegionJP, itick.RegionTW:
		return strconv.Itoa(1 + int(h>>8%9000))
	}
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	n := 2 + int(h>>4%3)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[(h>>(8+5*i))%26]
	}
	return string(b)
}

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
