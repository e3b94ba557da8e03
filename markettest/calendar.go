package markettest

import (
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick"
)

// A calendar says when a product trades. Prices move only inside its
// windows and stand still between them, so quotes and ticks do not move
// while a market is closed, and candles exist only where a window is.
//
//   - Crypto trades all the time.
//   - Forex and futures trade on weekdays (UTC days).
//   - Stocks, funds and indices trade in the regular sessions of their
//     market's trading days: no weekends, no holiday of
//     /symbol/v2/holidays, and half days end early. Nothing trades in a
//     lunch break, though Market.Status, as the service does, counts the
//     market open then. A market the simulator does not know trades on
//     weekdays.
//
// Every market's regular hours fall inside one UTC day, so a daily candle,
// which covers a UTC day, is one trading day.
type calendar struct {
	always bool
	market *exchangeMarket // nil: weekdays
}

// tradingSpan is a stretch of trading, Unix ms, from inclusive, to exclusive.
type tradingSpan struct{ from, to int64 }

const dayMs = 24 * 60 * 60 * 1000

// indexMarkets is the home market of the indices the simulator knows.
var indexMarkets = map[string]string{
	"HSI": "HK", "SPX": "US", "DJI": "US", "IXIC": "US", "UKX": "GB", "N225": "JP", "DAX": "DE",
}

func calendarOf(class Class, region itick.Region, code string) calendar {
	switch class {
	case Crypto:
		return calendar{always: true}
	case Forex, Future:
		return calendar{}
	case Indices:
		if m, ok := indexMarkets[strings.ToUpper(code)]; ok {
			return calendar{market: findMarket(m)}
		}
	}
	return calendar{market: findMarket(string(region))}
}

// windows returns the trading windows that overlap [from, to), clipped to it.
func (c calendar) windows(from, to int64) []tradingSpan { return c.appendWindows(nil, from, to) }

// appendWindows appends to buf the trading windows that overlap [from,
// to), clipped to it.
func (c calendar) appendWindows(buf []tradingSpan, from, to int64) []tradingSpan {
	if from >= to {
		return buf
	}
	if c.always {
		return append(buf, tradingSpan{from, to})
	}
	for day := floorDiv(from, dayMs) * dayMs; day < to; day += dayMs {
		n := len(buf)
		buf = c.appendDayWindows(buf, day)
		kept := buf[:n]
		for _, w := range buf[n:] {
			w.from, w.to = max(w.from, from), min(w.to, to)
			if w.from < w.to {
				kept = append(kept, w)
			}
		}
		buf = kept
	}
	return buf
}

// appendDayWindows appends the windows of the UTC day starting at day (ms).
func (c calendar) appendDayWindows(buf []tradingSpan, day int64) []tradingSpan {
	if c.market == nil {
		if weekend(time.UnixMilli(day).UTC()) {
			return buf
		}
		return append(buf, tradingSpan{day, day + dayMs})
	}
	return c.market.appendTradingWindows(buf, day)
}

// lastMoment returns the latest trading instant at or before t (ms): t when
// the market is open, else the end of the last window before it. It looks
// back at most 40 days, more than any closure lasts.
func (c calendar) lastMoment(t int64) (int64, bool) {
	if c.always {
		return t, true
	}
	var buf [maxSessions]tradingSpan
	for day := floorDiv(t, dayMs) * dayMs; day > t-40*dayMs; day -= dayMs {
		ws := c.appendDayWindows(buf[:0], day)
		for i := len(ws) - 1; i >= 0; i-- {
			switch {
			case ws[i].from <= t && t < ws[i].to:
				return t, true
			case ws[i].to <= t:
				return ws[i].to - 1, true
			}
		}
	}
	return t, false
}

// trades reports whether the market trades at t (ms).
func (c calendar) trades(t int64) bool {
	e, ok := c.lastMoment(t)
	return ok && e == t
}

// effective is the instant whose price holds at t: t itself while the
// market trades, the last trading instant before it while it is closed.
func (c calendar) effective(t int64) int64 {
	e, _ := c.lastMoment(t)
	return e
}

// maxSessions is the most regular sessions a market has in a day: a
// morning and an afternoon.
const maxSessions = 2

// windowMemo keeps a market's trading windows of the days last asked
// about, one entry a day, so that a history, which asks about each day
// once per product, works a day out from its zone and holidays once.
type windowMemo struct {
	once    sync.Once
	mu      sync.Mutex
	entries *[windowMemoDays]windowEntry
}

// windowMemoDays is how many days a windowMemo holds: more than the two
// years of daily candles a backfill asks for.
const windowMemoDays = 1024

// windowEntry is one day of a windowMemo: the day's start plus one (0 for
// an empty entry), and its windows.
type windowEntry struct {
	day1 int64
	n    int
	ws   [maxSessions]tradingSpan
}

// appendTradingWindows appends the market's windows on the UTC day
// starting at day (ms): its sessions on that local calendar date.
func (m *exchangeMarket) appendTradingWindows(buf []tradingSpan, day int64) []tradingSpan {
	memo := &m.memo
	memo.once.Do(func() { memo.entries = new([windowMemoDays]windowEntry) })
	i := uint64(floorDiv(day, dayMs)) % windowMemoDays
	memo.mu.Lock()
	e := memo.entries[i]
	memo.mu.Unlock()
	if e.day1 == day+1 {
		return append(buf, e.ws[:e.n]...)
	}
	ws := m.tradingWindows(time.UnixMilli(day).UTC())
	if len(ws) <= maxSessions {
		e = windowEntry{day1: day + 1, n: len(ws)}
		copy(e.ws[:], ws)
		memo.mu.Lock()
		memo.entries[i] = e
		memo.mu.Unlock()
	}
	return append(buf, ws...)
}

// tradingWindows returns the regular sessions of the market on the local
// calendar date of d (a UTC midnight), in order; none when that date is
// not a trading day. A half day ends at the market's half-day close.
func (m *exchangeMarket) tradingWindows(d time.Time) []tradingSpan {
	if weekend(d) {
		return nil
	}
	h, isHoliday := m.holidayOn(d)
	if isHoliday && !h.half {
		return nil
	}
	end := 24 * 60
	if isHoliday && m.halfDay > 0 {
		end = m.halfDay
	}
	loc := m.location()
	midnight := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
	var out []tradingSpan
	for _, s := range m.sessions {
		if s.kind != regular || s.from >= end {
			continue
		}
		out = append(out, tradingSpan{midnight.Add(time.Duration(s.from) * time.Minute).UnixMilli(),
			midnight.Add(time.Duration(min(s.to, end)) * time.Minute).UnixMilli()})
	}
	return out
}

// holidayCache keeps each market's holidays of a year, which the calendar
// asks for on every day it looks at.
var holidayCache struct {
	sync.RWMutex
	m map[holidayYear]map[time.Time]holiday
}

type holidayYear struct {
	market string
	year   int
}

func (m *exchangeMarket) holidayIndex(year int) map[time.Time]holiday {
	key := holidayYear{m.code, year}
	holidayCache.RLock()
	idx, ok := holidayCache.m[key]
	holidayCache.RUnlock()
	if ok {
		return idx
	}
	idx = map[time.Time]holiday{}
	for _, h := range m.holidaysOf(year) {
		idx[h.date] = h
	}
	holidayCache.Lock()
	defer holidayCache.Unlock()
	if prev, ok := holidayCache.m[key]; ok {
		return prev
	}
	if holidayCache.m == nil {
		holidayCache.m = map[holidayYear]map[time.Time]holiday{}
	}
	holidayCache.m[key] = idx
	return idx
}

// candleCache keeps candles of an hour or more, which longer candles and
// quotes are built from and which stay the same for as long as the trading
// in them does, so a server answering about the same days again does not
// recompute them. It is a fixed table of small sets: a new entry takes the
// place of the oldest one in its set, and the table's memory never grows
// past its first use.
type candleCache struct {
	once sync.Once
	sets []candleSet
}

// candleWays is how many candles share a set, so a few that hash alike do
// not keep evicting each other.
const candleWays = 4

// candleSet is one set of a candleCache, with a lock of its own so
// requests about different candles do not wait for each other.
type candleSet struct {
	mu      sync.Mutex
	next    uint8 // the entry the next put replaces
	entries [candleWays]candleEntry
}

// candleEntry is one candle of the product whose key it holds, starting
// at start, lasting span and traded up to end (the end of its last
// trading window, which says how much of it the candle saw). span is 0
// in an empty entry.
type candleEntry struct {
	key                    uint64
	start, span, end       int64
	open, high, low, close float64
	volume, turnover       float64
}

// Sets in the caches. The hourly one holds a day of hours for 680
// products, the longer one two weeks of days for 2300 products.
const (
	hourCacheSets   = 1 << 12
	longerCacheSets = 1 << 13
)

// set returns the set a candle belongs in. A cache holds hourly candles
// only, or longer ones only, so the first candle's span says its size.
func (c *candleCache) set(key uint64, start, span int64) *candleSet {
	c.once.Do(func() {
		n := longerCacheSets
		if span == hourMs {
			n = hourCacheSets
		}
		c.sets = make([]candleSet, n)
	})
	i := mix(key^uint64(start)^uint64(span)<<40) % uint64(len(c.sets))
	return &c.sets[i]
}

func (c *candleCache) get(key uint64, start, span, end int64) (itick.Kline, bool) {
	s := c.set(key, start, span)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.entries {
		if e := &s.entries[i]; e.key == key && e.start == start && e.span == span && e.end == end {
			return itick.Kline{Time: time.UnixMilli(start).UTC(), Open: e.open, High: e.high, Low: e.low,
				Close: e.close, Volume: e.volume, Turnover: e.turnover}, true
		}
	}
	return itick.Kline{}, false
}

func (c *candleCache) put(key uint64, start, span, end int64, k itick.Kline) {
	s := c.set(key, start, span)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[s.next] = candleEntry{key: key, start: start, span: span, end: end, open: k.Open, high: k.High,
		low: k.Low, close: k.Close, volume: k.Volume, turnover: k.Turnover}
	s.next = (s.next + 1) % candleWays
}
