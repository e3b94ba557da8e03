package itick

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/wire"
)

// MarketService serves reference data: the symbol list, exchange holidays
// and whether a market is open.
type MarketService struct{ c *Client }

// Symbols lists the products of one asset type in a region. A non-empty
// code narrows the list to that product.
func (s *MarketService) Symbols(ctx context.Context, assetType AssetType, region Region, code string) ([]Symbol, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := assetType.validate(); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	q := query(region, "type", string(assetType))
	if code != "" {
		c, err := batch.Code(code)
		if err != nil {
			return nil, invalidArg("%v", err)
		}
		q.Set("code", c)
	}
	return get(ctx, s.c, "/symbol/list", q, symbolModel.List)
}

// Holidays returns the holiday calendars of the markets the service covers.
func (s *MarketService) Holidays(ctx context.Context) ([]Holiday, error) {
	return s.holidays(ctx, url.Values{})
}

// HolidaysOf returns the holiday calendars of one region's markets, such as
// RegionUS, as the service's code parameter selects them.
func (s *MarketService) HolidaysOf(ctx context.Context, region Region) ([]Holiday, error) {
	if err := region.validate(); err != nil {
		return nil, err
	}
	return s.holidays(ctx, url.Values{"code": {string(region)}})
}

func (s *MarketService) holidays(ctx context.Context, q url.Values) ([]Holiday, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return get(ctx, s.c, "/symbol/v2/holidays", q, holidayModel.List)
}

// Status reports whether the market of a region is open, in which session,
// and its local time. The service usually answers with one entry; an
// answer with none, or with an empty one, is ErrNotFound.
func (s *MarketService) Status(ctx context.Context, region Region) ([]MarketStatus, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	const path = "/market/status"
	out, err := get(ctx, s.c, path, url.Values{"code": {string(region)}}, readStatusList)
	if err != nil {
		return nil, err
	}
	// An entry with nothing in it ({}, sent for a market outside the plan)
	// is no status at all.
	out = slices.DeleteFunc(out, func(m MarketStatus) bool { return isEmpty(&m) })
	if len(out) == 0 {
		return nil, s.c.notFound("%s: no status for %s", path, region)
	}
	return out, nil
}

// Symbol is one product of the symbol list.
type Symbol struct {
	Code      string    // c
	Name      string    // n
	Type      AssetType // t
	Exchange  string    // e: the value WithExchange and WithQuoteExchange take
	Sector    string    // s (null in the examples)
	ShortName string    // l
}

var symbolModel = codec.NewModel(
	codec.Symbol("c", func(s *Symbol) *string { return &s.Code }),
	codec.Str("n", func(s *Symbol) *string { return &s.Name }),
	codec.Symbol("t", func(s *Symbol) *AssetType { return &s.Type }),
	codec.Symbol("e", func(s *Symbol) *string { return &s.Exchange }),
	codec.Str("s", func(s *Symbol) *string { return &s.Sector }),
	codec.Str("l", func(s *Symbol) *string { return &s.ShortName }),
)

// UnmarshalJSON decodes the wire form.
func (s *Symbol) UnmarshalJSON(b []byte) error { return symbolModel.Unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s Symbol) MarshalJSON() ([]byte, error) { return symbolModel.Marshal(&s) }

// Holiday is the holiday calendar of one market for one year.
type Holiday struct {
	Market       string      // c: market code, such as "US"
	Country      string      // r
	UTCOffset    float64     // tz: hours east of UTC
	TradingHours string      // et: such as "09:30 - 16:00"
	Dates        []time.Time // v: the days the market is closed, each at 00:00 UTC of that calendar date
	Year         int         // ey
}

var holidayModel = codec.NewModel(
	codec.Symbol("c", func(h *Holiday) *string { return &h.Market }),
	codec.Str("r", func(h *Holiday) *string { return &h.Country }),
	codec.Num("tz", func(h *Holiday) *float64 { return &h.UTCOffset }),
	codec.Str("et", func(h *Holiday) *string { return &h.TradingHours }),
	codec.Field[Holiday]{Name: "v", Want: "a list of dates",
		Dec: func(st *codec.State, h *Holiday, _ string) (err error) { h.Dates, err = readDates(&st.D); return err },
		Enc: func(b []byte, h *Holiday) ([]byte, error) { return appendDates(b, h.Dates), nil }},
	codec.Field[Holiday]{Name: "ey", Want: "a year",
		Dec: func(st *codec.State, h *Holiday, _ string) (err error) { h.Year, err = readYear(&st.D); return err },
		Enc: func(b []byte, h *Holiday) ([]byte, error) { return appendYear(b, h.Year), nil }},
)

// UnmarshalJSON decodes the wire form, whose v is a JSON-encoded list of
// dates inside a string.
func (h *Holiday) UnmarshalJSON(b []byte) error { return holidayModel.Unmarshal(b, h) }

// MarshalJSON encodes the service's wire form.
func (h Holiday) MarshalJSON() ([]byte, error) { return holidayModel.Marshal(&h) }

// Refusals of the holiday readers; the field's Want says what was wanted.
var (
	errNotYear  = errors.New("itick: not a year")
	errNotDates = errors.New("itick: not a list of dates")
)

// readYear reads the holiday year, sent as text ("2025") or a number;
// empty is 0.
func readYear(d *wire.Decoder) (int, error) {
	b, err := d.Str()
	if err != nil {
		return 0, err
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return 0, errNotYear
	}
	return n, nil
}

// appendYear writes the year as text, as the service sends it; 0 is "".
func appendYear(b []byte, y int) []byte {
	if y == 0 {
		return append(b, `""`...)
	}
	return strconv.AppendQuote(b, strconv.Itoa(y))
}

var dateLayouts = []string{time.DateOnly, "2006/01/02", "20060102"}

// readDates reads a list of calendar dates sent as a string holding a
// JSON array ("[\"2025-01-01\"]"); a plain array is accepted too, and
// null, "" or an empty list is nil.
func readDates(d *wire.Decoder) ([]time.Time, error) {
	var inner wire.Decoder
	if d.Peek() == '"' {
		s, err := d.Str()
		if err != nil {
			return nil, err
		}
		s = bytes.TrimSpace(s)
		if len(s) == 0 || string(s) == "null" {
			return nil, nil
		}
		inner.Reset(s)
		d = &inner
	}
	var arr [8]string
	days, err := codec.ReadStrings(d, arr[:0])
	if err == nil && d == &inner {
		err = d.End()
	}
	if err != nil {
		return nil, errNotDates // an error inside the string has no place in the body
	}
	if len(days) == 0 {
		return nil, nil
	}
	out := make([]time.Time, 0, len(days))
	for _, day := range days {
		t, err := parseDate(strings.TrimSpace(day))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// appendDates writes dates as the service does: a string holding a JSON
// array of dates; nil is "[]".
func appendDates(b []byte, dates []time.Time) []byte {
	days := make([]string, len(dates))
	for i, t := range dates {
		days[i] = t.Format(time.DateOnly)
	}
	inner, _ := json.Marshal(days) // strings always encode
	return codec.AppendString(b, string(inner))
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errNotDates
}

// MarketState is a market's trading session, the s field of the market
// status.
type MarketState string

// The states the service documents.
const (
	MarketPreMarket      MarketState = "PRE_MARKET"
	MarketOpen           MarketState = "OPEN"
	MarketLunchBreak     MarketState = "LUNCH_BREAK"
	MarketPostMarket     MarketState = "POST_MARKET"
	MarketClosed         MarketState = "CLOSED"
	MarketClosedWeekend  MarketState = "CLOSED_WEEKEND"
	MarketClosedHoliday  MarketState = "CLOSED_HOLIDAY"
	MarketHolidayHalfDay MarketState = "HOLIDAY_HALF_DAY"
)

// String returns the state's name, such as "lunch break".
func (s MarketState) String() string {
	switch s {
	case MarketPreMarket:
		return "pre-market"
	case MarketOpen:
		return "open"
	case MarketLunchBreak:
		return "lunch break"
	case MarketPostMarket:
		return "post-market"
	case MarketClosed:
		return "closed"
	case MarketClosedWeekend:
		return "closed for the weekend"
	case MarketClosedHoliday:
		return "closed for a holiday"
	case MarketHolidayHalfDay:
		return "holiday half day"
	}
	return "MarketState(" + string(s) + ")"
}

// MarketStatus is the state of one market at the time of the request.
type MarketStatus struct {
	Code      string      // c: market code, such as "HK"
	Region    string      // r: the market's name
	Open      bool        // o: a trading day's sessions are under way; true in a lunch break too (see State)
	State     MarketState // s
	Holiday   string      // h: the holiday's name, if today is one
	Sessions  []string    // t: trading sessions in local time, such as "09:30-12:00"
	Zone      string      // z: IANA time zone
	LocalTime string      // l: the market's local time, "2006-01-02 15:04:05"
}

var marketStatusModel = codec.NewModel(
	codec.Symbol("c", func(m *MarketStatus) *string { return &m.Code }),
	codec.Str("r", func(m *MarketStatus) *string { return &m.Region }),
	codec.Bool("o", func(m *MarketStatus) *bool { return &m.Open }),
	codec.Symbol("s", func(m *MarketStatus) *MarketState { return &m.State }),
	codec.Str("h", func(m *MarketStatus) *string { return &m.Holiday }),
	codec.Field[MarketStatus]{Name: "t", Want: "a string or an array",
		Dec: func(st *codec.State, m *MarketStatus, _ string) (err error) {
			m.Sessions, err = readCommaList(&st.D)
			return err
		},
		Enc: func(b []byte, m *MarketStatus) ([]byte, error) {
			return codec.AppendString(b, strings.Join(m.Sessions, ",")), nil
		}},
	codec.Symbol("z", func(m *MarketStatus) *string { return &m.Zone }),
	codec.Str("l", func(m *MarketStatus) *string { return &m.LocalTime }),
)

// UnmarshalJSON decodes the wire form; o may be a boolean or a string.
func (m *MarketStatus) UnmarshalJSON(b []byte) error { return marketStatusModel.Unmarshal(b, m) }

// MarshalJSON encodes the service's wire form.
func (m MarketStatus) MarshalJSON() ([]byte, error) { return marketStatusModel.Marshal(&m) }

// readCommaList reads a comma-separated string such as
// "08:00-09:00,09:00-17:30,"; empty items are dropped and a JSON array is
// accepted too.
func readCommaList(d *wire.Decoder) ([]string, error) {
	var items []string
	if d.Peek() == '[' {
		var err error
		if items, err = codec.ReadStrings(d, nil); err != nil {
			return nil, err
		}
	} else {
		s, err := d.Str()
		if err != nil {
			return nil, err
		}
		items = strings.Split(string(s), ",")
	}
	var out []string
	for _, it := range items {
		if v := strings.TrimSpace(it); v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}

// readStatusList reads the market status data: an array, or one object.
func readStatusList(st *codec.State) ([]MarketStatus, error) {
	if st.D.Peek() == '{' {
		var one MarketStatus
		err := marketStatusModel.Into(st, &one, "")
		return []MarketStatus{one}, err
	}
	return marketStatusModel.List(st)
}
