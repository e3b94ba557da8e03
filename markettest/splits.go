package markettest

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick"
)

// Stock splits. Each region has one fixed timeline of splits, a pure
// function of the seed: on each trading day from splitsFrom to splitsUntil
// (UTC dates) a stock of the region may split. The candles, quotes, books
// and ticks of a stock reflect its splits as a real service's raw prices
// do: a "4:1" split divides its price by four from its ex-date on, and
// multiplies its volume by four. Prices are at the generated level on
// splitAnchor, so a split before it raises the prices before it, and one
// after it lowers the prices after it.
var (
	splitsFrom  = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	splitsUntil = time.Date(2060, 1, 1, 0, 0, 0, 0, time.UTC)
	splitAnchor = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
)

// SplitListDays is how far back the split list reaches: Splits lists the
// splits of the last year, as the service is seen to list recent ones.
const SplitListDays = 366

// Splits returns the split and reverse-split records of a region as the
// service lists them: every split of the region's timeline whose ex-date
// is in the SplitListDays days up to now (ex-date at or before now),
// newest first, each on a trading day of the region's market (a weekday,
// where the simulator does not know the market). A ratio is shares after
// the split to shares before it, in lowest terms: "10:1" multiplies the
// shares by ten and divides the price by ten, "1:3" is a reverse split
// that divides the shares by three. The candles of every code listed jump
// at its ex-date as the ratio says (see the package documentation).
func (g *Generator) Splits(region itick.Region, now time.Time) []itick.SplitRecord {
	tl := g.splitTimeline(region)
	from := now.AddDate(0, 0, -SplitListDays)
	var out []itick.SplitRecord
	for i := len(tl.records) - 1; i >= 0; i-- {
		r := tl.records[i]
		if r.ExDate.After(now) {
			continue
		}
		if !r.ExDate.After(from) {
			break
		}
		out = append(out, r)
	}
	return out
}

// splitTimeline is one region's splits, oldest first, and each code's.
type splitTimeline struct {
	records []itick.SplitRecord
	byCode  map[string]*codeSplits // canonical code
}

// codeSplits are one code's splits: their ex-dates (ms) in order, and the
// price factor in force from each on.
type codeSplits struct {
	at     []int64   // ex-dates, UTC midnight, ms
	factor []float64 // factor[i]: from at[i-1] (from the start for i = 0) until at[i]; one more than at
}

// factorAt is the price factor of the code at ms: prices are the walk's
// times it, volumes the walk's divided by it. A nil *codeSplits has none.
func (s *codeSplits) factorAt(ms int64) float64 {
	if s == nil {
		return 1
	}
	i, found := slices.BinarySearch(s.at, ms)
	if found {
		i++ // the ex-date itself trades at the new price
	}
	return s.factor[i]
}

// splitsOf returns code's splits in region, nil when it has none.
func (g *Generator) splitsOf(region itick.Region, code string) *codeSplits {
	region, code = canonical(region, code)
	return g.splitTimeline(region).byCode[code]
}

// splitTimelines holds the timelines built so far, by seed and region:
// a timeline is a pure function of the two, and every server of a test
// binary with the same seed shares them.
var splitTimelines sync.Map // timelineKey -> *timelineEntry

type timelineKey struct {
	seed   uint64
	region itick.Region
}

type timelineEntry struct {
	once sync.Once
	tl   *splitTimeline
}

// splitTimeline returns region's timeline, built on first use.
func (g *Generator) splitTimeline(region itick.Region) *splitTimeline {
	region, _ = canonical(region, "")
	v, _ := splitTimelines.LoadOrStore(timelineKey{g.seed, region}, new(timelineEntry))
	e := v.(*timelineEntry)
	e.once.Do(func() { e.tl = g.buildSplits(region) })
	return e.tl
}

// buildSplits lays out region's timeline: each trading day splits one of
// its stocks with a chance of one in four to nine, by region, as often as
// the service's lists show. Familiar codes (AAPL, 700, ...) never split,
// so their prices stay at the levels the documentation's examples show.
func (g *Generator) buildSplits(region itick.Region) *splitTimeline {
	key := g.hash("split", string(region))
	every := 4 + key%6
	tl := &splitTimeline{byCode: map[string]*codeSplits{}}
	ratios := map[string][][2]int{}
	for day := splitsFrom; day.Before(splitsUntil); day = day.AddDate(0, 0, 1) {
		h := mix(key ^ uint64(day.Unix()))
		if h%every != 0 || !tradingDay(region, day) {
			continue
		}
		code := splitCode(region, h)
		for i := 0; knownSplitFree(region, code) && i < 8; i++ {
			h = mix(h)
			code = splitCode(region, h)
		}
		if knownSplitFree(region, code) {
			continue
		}
		r := splitRatios[mix(h)%uint64(len(splitRatios))]
		tl.records = append(tl.records, itick.SplitRecord{
			ExDate: day,
			Region: region,
			Name:   companyNames[h%uint64(len(companyNames))] + " " + code,
			Code:   code,
			Ratio:  strconv.Itoa(r[0]) + ":" + strconv.Itoa(r[1]),
		})
		cs := tl.byCode[code]
		if cs == nil {
			cs = new(codeSplits)
			tl.byCode[code] = cs
		}
		cs.at = append(cs.at, day.UnixMilli())
		ratios[code] = append(ratios[code], r)
	}
	anchor := splitAnchor.UnixMilli()
	for code, cs := range tl.byCode {
		// Going back from the anchor, each split multiplies the prices
		// before it by its ratio; going forward, each divides those after.
		rs := ratios[code]
		cs.factor = make([]float64, len(cs.at)+1)
		k := 0 // splits at or before the anchor
		for k < len(cs.at) && cs.at[k] <= anchor {
			k++
		}
		cs.factor[k] = 1
		for i := k - 1; i >= 0; i-- {
			cs.factor[i] = cs.factor[i+1] * float64(rs[i][0]) / float64(rs[i][1])
		}
		for i := k + 1; i <= len(cs.at); i++ {
			cs.factor[i] = cs.factor[i-1] * float64(rs[i-1][1]) / float64(rs[i-1][0])
		}
	}
	return tl
}

// knownSplitFree reports whether code is one of the familiar codes, which
// are kept free of splits.
func knownSplitFree(region itick.Region, code string) bool {
	_, ok := knownBase["stock/"+strings.ToUpper(string(region))+"/"+code]
	return ok
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
