package itick

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
)

// MarketService serves reference data: the symbol list, exchange holidays
// and whether a market is open.
type MarketService struct{ c *Client }

// AssetType is a class of product, the type parameter of the symbol list.
type AssetType string

// The asset types the service lists.
const (
	AssetStock   AssetType = "stock"
	AssetForex   AssetType = "forex"
	AssetIndices AssetType = "indices"
	AssetCrypto  AssetType = "crypto"
	AssetFuture  AssetType = "future"
	AssetFund    AssetType = "fund"
)

// String returns the wire name, such as "stock".
func (a AssetType) String() string { return string(a) }

func (a AssetType) validate() error {
	switch a {
	case AssetStock, AssetForex, AssetIndices, AssetCrypto, AssetFuture, AssetFund:
		return nil
	}
	return invalidArg("unknown asset type %q (want stock, forex, indices, crypto, future or fund)", string(a))
}

// Symbols lists the products of one asset type in a region. A non-empty
// code narrows the list to that product.
func (s *MarketService) Symbols(ctx context.Context, assetType AssetType, region Region, code string) ([]Symbol, error) {
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
	var out []Symbol
	if err := s.c.get(ctx, "/symbol/list", q, &out); err != nil {
		return nil, err
	}
	return out, nil
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
	var out []Holiday
	if err := s.c.get(ctx, "/symbol/v2/holidays", q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Status reports whether the market of a region is open, in which session,
// and its local time. The service usually answers with one entry; an
// answer with none, or with an empty one, is ErrNotFound.
func (s *MarketService) Status(ctx context.Context, region Region) ([]MarketStatus, error) {
	if err := region.validate(); err != nil {
		return nil, err
	}
	const path = "/market/status"
	var out statusList
	if err := s.c.get(ctx, path, url.Values{"code": {string(region)}}, &out); err != nil {
		return nil, err
	}
	// An entry with nothing in it ({}, sent for a market outside the plan)
	// is no status at all.
	out = slices.DeleteFunc(out, func(m MarketStatus) bool { return isEmpty(&m) })
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no status for %s", ErrNotFound, path, region)
	}
	return []MarketStatus(out), nil
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

type symbolWire struct {
	C str `json:"c"`
	N str `json:"n"`
	T str `json:"t"`
	E str `json:"e"`
	S str `json:"s"`
	L str `json:"l"`
}

// UnmarshalJSON decodes the wire form.
func (s *Symbol) UnmarshalJSON(b []byte) error {
	var w symbolWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*s = Symbol{Code: string(w.C), Name: string(w.N), Type: AssetType(w.T), Exchange: string(w.E),
		Sector: string(w.S), ShortName: string(w.L)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (s Symbol) MarshalJSON() ([]byte, error) {
	return json.Marshal(symbolWire{C: str(s.Code), N: str(s.Name), T: str(s.Type), E: str(s.Exchange),
		S: str(s.Sector), L: str(s.ShortName)})
}

// Holiday is the holiday calendar of one market for one year.
type Holiday struct {
	Market       string      // c: market code, such as "US"
	Country      string      // r
	UTCOffset    float64     // tz: hours east of UTC
	TradingHours string      // et: such as "09:30 - 16:00"
	Dates        []time.Time // v: the days the market is closed, each at 00:00 UTC of that calendar date
	Year         int         // ey
}

type holidayWire struct {
	C  str      `json:"c"`
	R  str      `json:"r"`
	Tz num      `json:"tz"`
	Et str      `json:"et"`
	V  dateList `json:"v"`
	Ey year     `json:"ey"`
}

// year is the holiday year, sent as text ("2025") or a number; empty is 0.
type year int

func (y *year) UnmarshalJSON(b []byte) error {
	var s str
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	t := strings.TrimSpace(string(s))
	if t == "" {
		*y = 0
		return nil
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return badValue(b, "a year")
	}
	*y = year(n)
	return nil
}

// MarshalJSON writes the year as text, as the service sends it; 0 is "".
func (y year) MarshalJSON() ([]byte, error) {
	if y == 0 {
		return []byte(`""`), nil
	}
	return strconv.AppendQuote(nil, strconv.Itoa(int(y))), nil
}

// UnmarshalJSON decodes the wire form, whose v is a JSON-encoded list of
// dates inside a string.
func (h *Holiday) UnmarshalJSON(b []byte) error {
	var w holidayWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*h = Holiday{Market: string(w.C), Country: string(w.R), UTCOffset: float64(w.Tz),
		TradingHours: string(w.Et), Dates: w.V, Year: int(w.Ey)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (h Holiday) MarshalJSON() ([]byte, error) {
	w := holidayWire{C: str(h.Market), R: str(h.Country), Tz: num(h.UTCOffset), Et: str(h.TradingHours), V: h.Dates,
		Ey: year(h.Year)}
	return json.Marshal(w)
}

// dateList is a list of calendar dates sent as a string holding a JSON
// array ("[\"2025-01-01\"]"); a plain array is accepted too.
type dateList []time.Time

var dateLayouts = []string{time.DateOnly, "2006/01/02", "20060102"}

func (d *dateList) UnmarshalJSON(b []byte) error {
	if err := d.unmarshal(b); err != nil {
		return &valueError{raw: b, want: "a list of dates"}
	}
	return nil
}

func (d *dateList) unmarshal(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var inner string
		if err := unmarshalNested(b, &inner); err != nil {
			return err
		}
		b = bytes.TrimSpace([]byte(inner))
	}
	if len(b) == 0 || string(b) == "null" {
		*d = nil
		return nil
	}
	var raw []str
	if err := unmarshalNested(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*d = nil
		return nil
	}
	out := make([]time.Time, 0, len(raw))
	for _, r := range raw {
		t, err := parseDate(strings.TrimSpace(string(r)))
		if err != nil {
			return err
		}
		out = append(out, t)
	}
	*d = out
	return nil
}

func (d dateList) MarshalJSON() ([]byte, error) {
	days := make([]string, len(d))
	for i, t := range d {
		days[i] = t.Format(time.DateOnly)
	}
	inner, err := json.Marshal(days)
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(inner))
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("itick: not a date")
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
	Open      bool        // o
	State     MarketState // s
	Holiday   string      // h: the holiday's name, if today is one
	Sessions  []string    // t: trading sessions in local time, such as "09:30-12:00"
	Zone      string      // z: IANA time zone
	LocalTime string      // l: the market's local time, "2006-01-02 15:04:05"
}

type marketStatusWire struct {
	C str       `json:"c"`
	R str       `json:"r"`
	O boolean   `json:"o"`
	S str       `json:"s"`
	H str       `json:"h"`
	T commaList `json:"t"`
	Z str       `json:"z"`
	L str       `json:"l"`
}

// UnmarshalJSON decodes the wire form; o may be a boolean or a string.
func (m *MarketStatus) UnmarshalJSON(b []byte) error {
	var w marketStatusWire
	if err := unmarshalNested(b, &w); err != nil {
		return err
	}
	*m = MarketStatus{Code: string(w.C), Region: string(w.R), Open: bool(w.O), State: MarketState(w.S),
		Holiday: string(w.H), Sessions: w.T, Zone: string(w.Z), LocalTime: string(w.L)}
	return nil
}

// MarshalJSON encodes the service's wire form.
func (m MarketStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(marketStatusWire{C: str(m.Code), R: str(m.Region), O: boolean(m.Open), S: str(m.State),
		H: str(m.Holiday), T: m.Sessions, Z: str(m.Zone), L: str(m.LocalTime)})
}

// commaList is a comma-separated string such as "08:00-09:00,09:00-17:30,";
// empty items are dropped and a JSON array is accepted too.
type commaList []string

func (c *commaList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	var items []str
	if len(b) > 0 && b[0] == '[' {
		if err := unmarshalNested(b, &items); err != nil {
			return err
		}
	} else {
		var s str
		if err := unmarshalNested(b, &s); err != nil {
			return err
		}
		for _, it := range strings.Split(string(s), ",") {
			items = append(items, str(it))
		}
	}
	var out []string
	for _, it := range items {
		if v := strings.TrimSpace(string(it)); v != "" {
			out = append(out, v)
		}
	}
	*c = out
	return nil
}

func (c commaList) MarshalJSON() ([]byte, error) { return json.Marshal(strings.Join(c, ",")) }

// statusList is the market status data: an array, or one object.
type statusList []MarketStatus

func (l *statusList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var one MarketStatus
		if err := unmarshalNested(b, &one); err != nil {
			return err
		}
		*l = statusList{one}
		return nil
	}
	var many []MarketStatus
	if err := unmarshalNested(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}
