package markettest

import (
	"strconv"
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
//   - Stocks, funds and indices trade in the regular hours (lunch break
//     included, as Market.Status counts it) of their market's trading
//     days: no weekends, no holiday of /symbol/v2/holidays, and half days
//     end early. A market the simulator does not know trades on weekdays.
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
func (c calendar) windows(from, to int64) []tradingSpan {
	if from >= to {
		return nil
	}
	if c.always {
		return []tradingSpan{{from, to}}
	}
	var out []tradingSpan
	for day := floorDiv(from, dayMs) * dayMs; day < to; day += dayMs {
		for _, w := range c.dayWindows(day) {
			w.from, w.to = max(w.from, from), min(w.to, to)
			if w.from < w.to {
				out = append(out, w)
			}
		}
	}
	return out
}

// dayWindows returns the windows of the UTC day starting at day (ms).
func (c calendar) dayWindows(day int64) []tradingSpan {
	d := time.UnixMilli(day).UTC()
	if c.market == nil {
		if weekend(d) {
			return nil
		}
		return []tradingSpan{{day, day + dayMs}}
	}
	w, ok := c.market.tradingWindow(d)
	if !ok {
		return nil
	}
	return []tradingSpan{w}
}

// lastMoment returns the latest trading instant at or before t (ms): t when
// the market is open, else the end of the last window before it. It looks
// back at most 40 days, more than any closure lasts.
func (c calendar) lastMoment(t int64) (int64, bool) {
	if c.always {
		return t, true
	}
	for day := floorDiv(t, dayMs) * dayMs; day > t-40*dayMs; day -= dayMs {
		ws := c.dayWindows(day)
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

// effective is the instant whose price holds at t: t itself while the
// market trades, the last trading instant before it while it is closed.
func (c calendar) effective(t int64) int64 {
	e, _ := c.lastMoment(t)
	return e
}

// tradingWindow returns the regular trading of the market on the local
// calendar date of d (a UTC midnight), if that date is a trading day.
func (m *exchangeMarket) tradingWindow(d time.Time) (tradingSpan, bool) {
	if weekend(d) {
		return tradingSpan{}, false
	}
	h, isHoliday := m.holidayOn(d)
	if isHoliday && !h.half {
		return tradingSpan{}, false
	}
	first, last := -1, 0
	for _, s := range m.sessions {
		if s.kind == regular {
			if first < 0 {
				first = s.from
			}
			last = s.to
		}
	}
	if isHoliday && m.halfDay > 0 {
		last = m.halfDay
	}
	loc := m.location()
	midnight := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
	return tradingSpan{midnight.Add(time.Duration(first) * time.Minute).UnixMilli(),
		midnight.Add(time.Duration(last) * time.Minute).UnixMilli()}, true
}

// holidayCache keeps each market's holidays of a year, which the calendar
// asks for on every candle.
var holidayCache sync.Map // "US/2025" -> map[time.Time]holiday

func (m *exchangeMarket) holidayIndex(year int) map[time.Time]holiday {
	key := m.code + "/" + strconv.Itoa(year)
	if v, ok := holidayCache.Load(key); ok {
		return v.(map[time.Time]holiday)
	}
	idx := map[time.Time]holiday{}
	for _, h := range m.holidaysOf(year) {
		idx[h.date] = h
	}
	v, _ := holidayCache.LoadOrStore(key, idx)
	return v.(map[time.Time]holiday)
}

// hourCache keeps hourly candles that closed, which every longer candle
// and every quote is built from and which never change, so a server
// answering the same days again does not recompute them. It is a fixed
// table: an entry evicts whatever hashed to its slot.
type hourCache struct {
	once    sync.Once
	locks   [64]sync.Mutex
	entries []hourEntry
}

type hourEntry struct {
	key   uint64
	start int64
	k     itick.Kline
	ok    bool
	valid bool
}

const hourCacheSize = 1 << 14

func (c *hourCache) slot(key uint64, start int64) (int, *sync.Mutex) {
	c.once.Do(func() { c.entries = make([]hourEntry, hourCacheSize) })
	i := int(mix(key^uint64(start)) % hourCacheSize)
	return i, &c.locks[i%len(c.locks)]
}

func (c *hourCache) get(key uint64, start int64) (itick.Kline, bool, bool) {
	i, mu := c.slot(key, start)
	mu.Lock()
	defer mu.Unlock()
	e := c.entries[i]
	if e.valid && e.key == key && e.start == start {
		return e.k, e.ok, true
	}
	return itick.Kline{}, false, false
}

func (c *hourCache) put(key uint64, start int64, k itick.Kline, ok bool) {
	i, mu := c.slot(key, start)
	mu.Lock()
	defer mu.Unlock()
	c.entries[i] = hourEntry{key: key, start: start, k: k, ok: ok, valid: true}
}
