package markettest

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // market hours need the zones even where the system has none
)

// sessionKind is what a stretch of the trading day is.
type sessionKind int

const (
	preMarket sessionKind = iota
	regular
	postMarket
)

// session is a stretch of the local trading day, in minutes after midnight.
type session struct {
	from, to int
	kind     sessionKind
}

// exchangeMarket is a stock market: its name, zone, hours and holidays.
type exchangeMarket struct {
	code     string
	name     string
	zone     string
	tz       float64 // standard UTC offset in hours, as the holiday list sends it
	sessions []session
	halfDay  int // on a half day, regular trading ends at this minute; 0: no half days
	holidays func(year int) []holiday
	memo     windowMemo // trading windows of the days asked about
}

// holiday is one day a market closes, or closes early when half is set.
type holiday struct {
	date time.Time // 00:00 UTC of the calendar date
	name string
	half bool
}

func hm(s string) int {
	h, _ := strconv.Atoi(s[:2])
	m, _ := strconv.Atoi(s[3:])
	return h*60 + m
}

// sessions parses "09:00-09:30 pre, 09:30-12:00, 16:00-16:10 post".
func sessions(spec string) []session {
	var out []session
	for _, part := range strings.Split(spec, ",") {
		f := strings.Fields(part)
		s := session{from: hm(f[0][:5]), to: hm(f[0][6:]), kind: regular}
		if len(f) > 1 {
			s.kind = map[string]sessionKind{"pre": preMarket, "post": postMarket}[f[1]]
		}
		out = append(out, s)
	}
	return out
}

// exchangeMarkets are the markets of /market/status and the holiday list.
var exchangeMarkets = []*exchangeMarket{
	{code: "US", name: "United States", zone: "America/New_York", tz: -5,
		sessions: sessions("04:00-09:30 pre, 09:30-16:00, 16:00-20:00 post"), halfDay: hm("13:00"), holidays: usHolidays},
	{code: "HK", name: "Hong Kong", zone: "Asia/Hong_Kong", tz: 8,
		sessions: sessions("09:00-09:30 pre, 09:30-12:00, 13:00-16:00, 16:00-16:10 post"), holidays: hkHolidays},
	{code: "SH", name: "Shanghai", zone: "Asia/Shanghai", tz: 8,
		sessions: sessions("09:15-09:30 pre, 09:30-11:30, 13:00-15:00"), holidays: cnHolidays},
	{code: "SZ", name: "Shenzhen", zone: "Asia/Shanghai", tz: 8,
		sessions: sessions("09:15-09:30 pre, 09:30-11:30, 13:00-15:00"), holidays: cnHolidays},
	{code: "JP", name: "Japan", zone: "Asia/Tokyo", tz: 9,
		sessions: sessions("08:00-09:00 pre, 09:00-11:30, 12:30-15:30"), holidays: jpHolidays},
	{code: "SG", name: "Singapore", zone: "Asia/Singapore", tz: 8,
		sessions: sessions("08:30-09:00 pre, 09:00-12:00, 13:00-17:00, 17:00-17:06 post"), holidays: sgHolidays},
	{code: "IN", name: "India", zone: "Asia/Kolkata", tz: 5.5,
		sessions: sessions("09:00-09:15 pre, 09:15-15:30, 15:40-16:00 post"), holidays: inHolidays},
	{code: "GB", name: "United Kingdom", zone: "Europe/London", tz: 0,
		sessions: sessions("07:50-08:00 pre, 08:00-16:30, 16:30-16:35 post"), holidays: gbHolidays},
	{code: "DE", name: "Germany", zone: "Europe/Berlin", tz: 1,
		sessions: sessions("08:00-09:00 pre, 09:00-17:30"), holidays: deHolidays},
}

func findMarket(code string) *exchangeMarket {
	for _, m := range exchangeMarkets {
		if strings.EqualFold(m.code, code) {
			return m
		}
	}
	return nil
}

// locations caches the markets' zones: loading one is slow, and the
// calendar asks for it on every candle.
var locations sync.Map // zone name -> *time.Location

func (m *exchangeMarket) location() *time.Location {
	if loc, ok := locations.Load(m.zone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(m.zone)
	if err != nil { // cannot happen with time/tzdata linked in
		loc = time.FixedZone(m.zone, int(m.tz*3600))
	}
	locations.Store(m.zone, loc)
	return loc
}

func clock(minute int) string { return time.Date(0, 1, 1, 0, minute, 0, 0, time.UTC).Format("15:04") }

// tradingHours is the et of the holiday list: from the first regular
// session's start to the last one's end, "09:30 - 16:00".
func (m *exchangeMarket) tradingHours() string {
	from, to := -1, 0
	for _, s := range m.sessions {
		if s.kind == regular {
			if from < 0 {
				from = s.from
			}
			to = s.to
		}
	}
	return clock(from) + " - " + clock(to)
}

// sessionList is the t of the market status: "09:00-09:30,09:30-12:00,".
func (m *exchangeMarket) sessionList() string {
	var b strings.Builder
	for _, s := range m.sessions {
		b.WriteString(clock(s.from) + "-" + clock(s.to) + ",")
	}
	return b.String()
}

// holidayOn returns the market's holiday on the calendar date of local.
func (m *exchangeMarket) holidayOn(local time.Time) (holiday, bool) {
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
	h, ok := m.holidayIndex(local.Year())[day]
	return h, ok
}

// holidaysOf returns the market's holidays of year in date order, weekend
// days left out (the market is closed then anyway).
func (m *exchangeMarket) holidaysOf(year int) []holiday {
	var out []holiday
	for _, h := range m.holidays(year) {
		if h.date.Year() == year && !weekend(h.date) {
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].date.Before(out[j].date) })
	return out
}

func weekend(t time.Time) bool { return t.Weekday() == time.Saturday || t.Weekday() == time.Sunday }

// marketState is a market's state at one instant.
type marketState struct {
	state   string
	open    bool
	holiday string
	local   time.Time
}

// The states of /market/status.
const (
	statePreMarket  = "PRE_MARKET"
	stateOpen       = "OPEN"
	stateLunchBreak = "LUNCH_BREAK"
	statePostMarket = "POST_MARKET"
	stateClosed     = "CLOSED"
	stateWeekend    = "CLOSED_WEEKEND"
	stateHoliday    = "CLOSED_HOLIDAY"
	stateHalfDay    = "HOLIDAY_HALF_DAY"
)

// stateAt computes the market's state at now from its hours in its zone.
// The market counts as open during regular trading and its lunch break,
// as the service's example shows.
func (m *exchangeMarket) stateAt(now time.Time) marketState {
	local := now.In(m.location())
	st := marketState{state: stateClosed, local: local}
	if weekend(local) {
		st.state = stateWeekend
		return st
	}
	h, isHoliday := m.holidayOn(local)
	if isHoliday && !h.half {
		st.state, st.holiday = stateHoliday, h.name
		return st
	}
	minute := local.Hour()*60 + local.Minute()
	first, last := -1, 0
	for _, s := range m.sessions {
		if s.kind == regular {
			if first < 0 {
				first = s.from
			}
			last = s.to
		}
	}
	if isHoliday {
		st.holiday = h.name
		last = m.halfDay
	}
	for _, s := range m.sessions {
		if minute < s.from || minute >= s.to {
			continue
		}
		switch {
		case s.kind == preMarket:
			st.state = statePreMarket
		case s.kind == postMarket && !isHoliday:
			st.state = statePostMarket
		case s.kind == regular && minute < last:
			st.state, st.open = stateOpen, true
		}
		break
	}
	if st.state == stateClosed && minute >= first && minute < last {
		st.state, st.open = stateLunchBreak, true
	}
	if isHoliday && st.state == stateOpen {
		st.state = stateHalfDay
	}
	return st
}

// tradeSession returns the tick session of a stock trade at now in region:
// pre-market, after-hours, or regular (also outside any session).
func tradeSession(region string, now time.Time) int {
	m := findMarket(region)
	if m == nil {
		return 0
	}
	switch m.stateAt(now).state {
	case statePreMarket:
		return 1
	case statePostMarket:
		return 2
	}
	return 0
}

// marketStatusWire is the data of /market/status.
type marketStatusWire struct {
	C string  `json:"c"`
	R string  `json:"r"`
	O bool    `json:"o"`
	S string  `json:"s"`
	H *string `json:"h"`
	T string  `json:"t"`
	Z string  `json:"z"`
	L string  `json:"l"`
}

func serveMarketStatus(c *call) (any, error) {
	m := findMarket(c.code())
	if m == nil {
		return nil, notFound()
	}
	st := m.stateAt(c.now)
	w := marketStatusWire{C: m.code, R: m.name, O: st.open, S: st.state, T: m.sessionList(), Z: m.zone,
		L: st.local.Format(time.DateTime)}
	if st.holiday != "" {
		w.H = &st.holiday
	}
	return w, nil
}

// holidayWire is one market's calendar in /symbol/v2/holidays.
type holidayWire struct {
	C  string   `json:"c"`
	R  string   `json:"r"`
	Tz float64  `json:"tz"`
	Et string   `json:"et"`
	V  string   `json:"v"` // a JSON array inside a string, as the service sends it
	Ey string   `json:"ey"`
	Vr *float64 `json:"vr"`
}

// serveHolidays lists every market's calendar, or with code (a region such
// as US, as the official MCP server sends it) that region's only.
func serveHolidays(c *call) (any, error) {
	out := make([]holidayWire, 0, len(exchangeMarkets))
	for _, m := range exchangeMarkets {
		if code := c.code(); code != "" && !strings.EqualFold(code, m.code) {
			continue
		}
		year := c.now.In(m.location()).Year()
		days := []string{}
		for _, h := range m.holidaysOf(year) {
			if !h.half {
				days = append(days, h.date.Format(time.DateOnly))
			}
		}
		v, _ := json.Marshal(days)
		out = append(out, holidayWire{C: m.code, R: m.name, Tz: m.tz, Et: m.tradingHours(), V: string(v),
			Ey: strconv.Itoa(year)})
	}
	return out, nil
}

// Calendar helpers.

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// nthWeekday is the nth (1-based; -1 the last) weekday wd of a month.
func nthWeekday(y int, m time.Month, wd time.Weekday, n int) time.Time {
	if n < 0 {
		d := date(y, m+1, 0)
		for d.Weekday() != wd {
			d = d.AddDate(0, 0, -1)
		}
		return d
	}
	d := date(y, m, 1)
	for d.Weekday() != wd {
		d = d.AddDate(0, 0, 1)
	}
	return d.AddDate(0, 0, 7*(n-1))
}

// easter is Easter Sunday of year (the anonymous Gregorian algorithm).
func easter(y int) time.Time {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return date(y, time.Month(month), day)
}

// lunarNewYear is the first day of the lunar year, for the years the
// simulator knows; zero otherwise.
func lunarNewYear(y int) time.Time {
	days := map[int]time.Time{
		2023: date(2023, 1, 22), 2024: date(2024, 2, 10), 2025: date(2025, 1, 29), 2026: date(2026, 2, 17),
		2027: date(2027, 2, 6), 2028: date(2028, 1, 26), 2029: date(2029, 2, 13), 2030: date(2030, 2, 3),
	}
	return days[y]
}

// observedUS moves a Saturday holiday to Friday and a Sunday one to Monday.
func observedUS(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDate(0, 0, -1)
	case time.Sunday:
		return d.AddDate(0, 0, 1)
	}
	return d
}

// substitute moves a weekend holiday to the next weekday not already taken.
func substitute(hs []holiday) []holiday {
	taken := map[time.Time]bool{}
	for _, h := range hs {
		if !weekend(h.date) {
			taken[h.date] = true
		}
	}
	for i, h := range hs {
		if weekend(h.date) {
			d := h.date
			for weekend(d) || taken[d] {
				d = d.AddDate(0, 0, 1)
			}
			hs[i].date, taken[d] = d, true
		}
	}
	return hs
}

func usHolidays(y int) []holiday {
	thanksgiving := nthWeekday(y, time.November, time.Thursday, 4)
	return []holiday{
		{observedUS(date(y, 1, 1)), "New Year's Day", false},
		{nthWeekday(y, time.January, time.Monday, 3), "Martin Luther King Jr. Day", false},
		{nthWeekday(y, time.February, time.Monday, 3), "Washington's Birthday", false},
		{easter(y).AddDate(0, 0, -2), "Good Friday", false},
		{nthWeekday(y, time.May, time.Monday, -1), "Memorial Day", false},
		{observedUS(date(y, 6, 19)), "Juneteenth", false},
		{observedUS(date(y, 7, 4)), "Independence Day", false},
		{nthWeekday(y, time.September, time.Monday, 1), "Labor Day", false},
		{thanksgiving, "Thanksgiving Day", false},
		{thanksgiving.AddDate(0, 0, 1), "Day after Thanksgiving", true},
		{date(y, 12, 24), "Christmas Eve", true},
		{observedUS(date(y, 12, 25)), "Christmas Day", false},
	}
}

func hkHolidays(y int) []holiday {
	e := easter(y)
	hs := []holiday{
		{date(y, 1, 1), "New Year's Day", false},
		{e.AddDate(0, 0, -2), "Good Friday", false},
		{e.AddDate(0, 0, 1), "Easter Monday", false},
		{date(y, 5, 1), "Labour Day", false},
		{date(y, 7, 1), "HKSAR Establishment Day", false},
		{date(y, 10, 1), "National Day", false},
		{date(y, 12, 25), "Christmas Day", false},
		{date(y, 12, 26), "Boxing Day", false},
	}
	if lny := lunarNewYear(y); !lny.IsZero() {
		for i := range 3 {
			hs = append(hs, holiday{lny.AddDate(0, 0, i), "Lunar New Year", false})
		}
	}
	return hs
}

func cnHolidays(y int) []holiday {
	hs := []holiday{{date(y, 1, 1), "New Year's Day", false}}
	if lny := lunarNewYear(y); !lny.IsZero() {
		for i := -1; i < 7; i++ {
			hs = append(hs, holiday{lny.AddDate(0, 0, i), "Spring Festival", false})
		}
	}
	for i := range 5 {
		hs = append(hs, holiday{date(y, 5, 1+i), "Labour Day", false})
	}
	for i := range 7 {
		hs = append(hs, holiday{date(y, 10, 1+i), "National Day", false})
	}
	return hs
}

func jpHolidays(y int) []holiday {
	return substitute([]holiday{
		{date(y, 1, 1), "New Year's Day", false},
		{date(y, 1, 2), "Bank Holiday", false},
		{date(y, 1, 3), "Bank Holiday", false},
		{nthWeekday(y, time.January, time.Monday, 2), "Coming of Age Day", false},
		{date(y, 2, 11), "National Foundation Day", false},
		{date(y, 2, 23), "Emperor's Birthday", false},
		{date(y, 4, 29), "Showa Day", false},
		{date(y, 5, 3), "Constitution Memorial Day", false},
		{date(y, 5, 4), "Greenery Day", false},
		{date(y, 5, 5), "Children's Day", false},
		{nthWeekday(y, time.July, time.Monday, 3), "Marine Day", false},
		{date(y, 8, 11), "Mountain Day", false},
		{nthWeekday(y, time.September, time.Monday, 3), "Respect for the Aged Day", false},
		{nthWeekday(y, time.October, time.Monday, 2), "Sports Day", false},
		{date(y, 11, 3), "Culture Day", false},
		{date(y, 11, 23), "Labour Thanksgiving Day", false},
		{date(y, 12, 31), "Bank Holiday", false},
	})
}

func sgHolidays(y int) []holiday {
	hs := []holiday{
		{date(y, 1, 1), "New Year's Day", false},
		{easter(y).AddDate(0, 0, -2), "Good Friday", false},
		{date(y, 5, 1), "Labour Day", false},
		{date(y, 8, 9), "National Day", false},
		{date(y, 12, 25), "Christmas Day", false},
	}
	if lny := lunarNewYear(y); !lny.IsZero() {
		hs = append(hs, holiday{lny, "Chinese New Year", false}, holiday{lny.AddDate(0, 0, 1), "Chinese New Year", false})
	}
	return substitute(hs)
}

func inHolidays(y int) []holiday {
	return []holiday{
		{date(y, 1, 26), "Republic Day", false},
		{date(y, 5, 1), "Maharashtra Day", false},
		{date(y, 8, 15), "Independence Day", false},
		{date(y, 10, 2), "Gandhi Jayanti", false},
		{date(y, 12, 25), "Christmas", false},
	}
}

func gbHolidays(y int) []holiday {
	e := easter(y)
	return substitute([]holiday{
		{date(y, 1, 1), "New Year's Day", false},
		{e.AddDate(0, 0, -2), "Good Friday", false},
		{e.AddDate(0, 0, 1), "Easter Monday", false},
		{nthWeekday(y, time.May, time.Monday, 1), "Early May Bank Holiday", false},
		{nthWeekday(y, time.May, time.Monday, -1), "Spring Bank Holiday", false},
		{nthWeekday(y, time.August, time.Monday, -1), "Summer Bank Holiday", false},
		{date(y, 12, 25), "Christmas Day", false},
		{date(y, 12, 26), "Boxing Day", false},
	})
}

func deHolidays(y int) []holiday {
	e := easter(y)
	return []holiday{
		{date(y, 1, 1), "New Year's Day", false},
		{e.AddDate(0, 0, -2), "Good Friday", false},
		{e.AddDate(0, 0, 1), "Easter Monday", false},
		{date(y, 5, 1), "Labour Day", false},
		{date(y, 12, 24), "Christmas Eve", false},
		{date(y, 12, 25), "Christmas Day", false},
		{date(y, 12, 26), "Boxing Day", false},
		{date(y, 12, 31), "New Year's Eve", false},
	}
}
