package itick

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/codec"
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
	Code      string    `itick:"c,code"`
	Name      string    `itick:"n"`
	Type      AssetType `itick:"t,code"`
	Exchange  string    `itick:"e,code"` // the value WithExchange and WithQuoteExchange take
	Sector    string    `itick:"s"`      // null in the examples
	ShortName string    `itick:"l"`
}

var symbolModel = codec.Describe[Symbol]()

// UnmarshalJSON decodes the wire form.
func (s *Symbol) UnmarshalJSON(b []byte) error { return symbolModel.Unmarshal(b, s) }

// MarshalJSON encodes the service's wire form.
func (s Symbol) MarshalJSON() ([]byte, error) { return symbolModel.Marshal(&s) }

// Holiday is the holiday calendar of one market for one year.
type Holiday struct {
	Market       string  `itick:"c,code"` // market code, such as "US"
	Country      string  `itick:"r"`
	UTCOffset    float64 `itick:"tz"` // hours east of UTC
	TradingHours string  `itick:"et"` // such as "09:30 - 16:00"
	// Dates are the days the market is closed, each at 00:00 UTC of that
	// calendar date; the service sends them as a JSON list inside a string.
	Dates []time.Time `itick:"v,dates"`
	Year  int         `itick:"ey,year"` // sent as text
}

var holidayModel = codec.Describe[Holiday]()

// UnmarshalJSON decodes the wire form, whose v is a JSON-encoded list of
// dates inside a string.
func (h *Holiday) UnmarshalJSON(b []byte) error { return holidayModel.Unmarshal(b, h) }

// MarshalJSON encodes the service's wire form.
func (h Holiday) MarshalJSON() ([]byte, error) { return holidayModel.Marshal(&h) }

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
	Code      string      `itick:"c,code"` // market code, such as "HK"
	Region    string      `itick:"r"`      // the market's name
	Open      bool        `itick:"o"`      // a trading day's sessions are under way; true in a lunch break too (see State)
	State     MarketState `itick:"s,code"`
	Holiday   string      `itick:"h"`        // the holiday's name, if today is one
	Sessions  []string    `itick:"t,commas"` // trading sessions in local time, such as "09:30-12:00"
	Zone      string      `itick:"z,code"`   // IANA time zone
	LocalTime string      `itick:"l"`        // the market's local time, "2006-01-02 15:04:05"
}

var marketStatusModel = codec.Describe[MarketStatus]()

// UnmarshalJSON decodes the wire form; o may be a boolean or a string.
func (m *MarketStatus) UnmarshalJSON(b []byte) error { return marketStatusModel.Unmarshal(b, m) }

// MarshalJSON encodes the service's wire form.
func (m MarketStatus) MarshalJSON() ([]byte, error) { return marketStatusModel.Marshal(&m) }

// readStatusList reads the market status data: an array, or one object.
func readStatusList(st *codec.State) ([]MarketStatus, error) {
	if st.D.Peek() == '{' {
		var one MarketStatus
		err := marketStatusModel.Into(st, &one, "")
		return []MarketStatus{one}, err
	}
	return marketStatusModel.List(st)
}
