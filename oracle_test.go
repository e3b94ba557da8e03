package itick

// The oracle: encoding/json through the wire structs, as the SDK decoded
// and encoded before its decoder was built from the models' tables. The
// equivalence tests and fuzz targets hold the decoder and MarshalJSON to
// it on every input.

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/wire"
)

var errOracle = errors.New("oracle: refused")

// refEnvCode is the envelope code as encoding/json reads it.
type refEnvCode codec.Code

// The scalar types below decode what the service is seen to send where a
// number, string, boolean or time is declared: numbers as JSON strings,
// integers where floats are declared, strings where numbers are declared,
// and null for anything. They marshal back to the plain declared form.

// num is a float64 that also arrives as a quoted number, "" or null.
type num float64

func (n *num) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	*n = num(f)
	return err
}

// MarshalJSON writes the number as encoding/json writes a float64, so whole
// numbers come out as integers (616, not 6.16e+02), as the service sends them.
func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-07 becomes e-7, as encoding/json writes it.
		if l := len(b); l >= 4 && b[l-4] == 'e' && b[l-3] == '-' && b[l-2] == '0' {
			b[l-2] = b[l-1]
			b = b[:l-1]
		}
	}
	return b, nil
}

// integer is an int that also arrives quoted or as an integral number in
// any notation (616.0, 6.16e2), whose exact value is within ±2^53: a
// literal a float64 would round, such as 9007199254740993, is refused.
type integer int

func (n *integer) UnmarshalJSON(b []byte) error {
	if _, err := parseNumber(b); err != nil {
		return err
	}
	lit := bytes.Trim(bytes.TrimSpace(b), `"`)
	if lit = bytes.TrimSpace(lit); len(lit) == 0 || string(lit) == "null" {
		*n = 0
		return nil
	}
	r, ok := new(big.Rat).SetString(string(lit))
	limit := new(big.Int).Lsh(big.NewInt(1), 53)
	if !ok || !r.IsInt() || new(big.Int).Abs(r.Num()).Cmp(limit) > 0 {
		return errOracle
	}
	*n = integer(r.Num().Int64())
	return nil
}

func (n integer) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(n), 10), nil
}

// str is a string that also arrives as a bare number (a code like 700).
type str string

func (s *str) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
		return nil
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = str(v)
		return nil
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		if _, err := parseNumber(b); err != nil {
			return err
		}
		*s = str(b)
		return nil
	}
	return errOracle
}

func (s str) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }

// boolean is a bool that also arrives as "true"/"false", 0/1 or null.
type boolean bool

func (v *boolean) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true", `"true"`, "1", `"1"`:
		*v = true
	case "false", `"false"`, "0", `"0"`, "null", `""`:
		*v = false
	default:
		return errOracle
	}
	return nil
}

func (v boolean) MarshalJSON() ([]byte, error) { return strconv.AppendBool(nil, bool(v)), nil }

// millis is a time sent as Unix milliseconds; 0 or null is the zero Time.
type millis time.Time

func (t *millis) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	tt, ok := codec.TimeFromMillis(f)
	if !ok {
		return errOracle
	}
	*t = millis(tt)
	return nil
}

func (t millis) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("0"), nil
	}
	return strconv.AppendInt(nil, tt.UnixMilli(), 10), nil
}

// seconds is a time sent as Unix seconds, as a number or a string.
type seconds time.Time

func (t *seconds) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	if math.Abs(f) > 253402300799 { // year 9999
		return errOracle
	}
	f = math.Floor(f)
	if f == 0 {
		*t = seconds{}
		return nil
	}
	*t = seconds(time.Unix(int64(f), 0).UTC())
	return nil
}

func (t seconds) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("0"), nil
	}
	return strconv.AppendInt(nil, tt.Unix(), 10), nil
}

// parseNumber reads a JSON number, a quoted number, "" or null (both 0).
// NaN and infinities are refused: they cannot be encoded back.
func parseNumber(b []byte) (float64, error) {

	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return 0, nil
	}
	if b[0] == '"' {
		if len(b) < 2 || b[len(b)-1] != '"' {
			return 0, errOracle
		}
		b = bytes.TrimSpace(b[1 : len(b)-1])
		if len(b) == 0 {
			return 0, nil
		}
	}
	if !wire.IsNumberLiteral(b) {
		return 0, errOracle
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, errOracle
	}
	return f, nil
}

type quoteWire struct {
	S   str     `json:"s"`
	Ld  num     `json:"ld"`
	O   num     `json:"o"`
	P   num     `json:"p"`
	H   num     `json:"h"`
	L   num     `json:"l"`
	T   millis  `json:"t"`
	V   num     `json:"v"`
	Tu  num     `json:"tu"`
	TS  integer `json:"ts"`
	Ch  num     `json:"ch"`
	Chp num     `json:"chp"`
}

type depthBookWire struct {
	S str          `json:"s"`
	A []DepthLevel `json:"a"`
	B []DepthLevel `json:"b"`
}

type depthLevelWire struct {
	Po integer `json:"po"`
	P  num     `json:"p"`
	V  num     `json:"v"`
	O  num     `json:"o"`
}

type klineWire struct {
	T  millis `json:"t"`
	O  num    `json:"o"`
	H  num    `json:"h"`
	L  num    `json:"l"`
	C  num    `json:"c"`
	V  num    `json:"v"`
	Tu num    `json:"tu"`
}

type splitRecordWire struct {
	D millis `json:"d"`
	R str    `json:"r"`
	N str    `json:"n"`
	C str    `json:"c"`
	V str    `json:"v"`
}

type newsItemWire struct {
	ID str     `json:"id"`
	Te str     `json:"te"`
	Pt seconds `json:"pt"`
	Mt str     `json:"mt"`
	Lg str     `json:"lg"`
	Lk str     `json:"lk"`
	Pv str     `json:"pv"`
}

type newsPageWire struct {
	Data       []NewsItem `json:"data"`
	Pagination struct {
		NextCursor str     `json:"nextCursor"`
		HasMore    boolean `json:"hasMore"`
		Count      integer `json:"count"`
	} `json:"pagination"`
}

type tickWire struct {
	S  str     `json:"s"`
	Ld num     `json:"ld"`
	T  millis  `json:"t"`
	V  num     `json:"v"`
	Te integer `json:"te"`
	Tu num     `json:"tu"`
	TS integer `json:"ts"`
	D  integer `json:"d"`
}

type stockInfoWire struct {
	C   str `json:"c"`
	N   str `json:"n"`
	T   str `json:"t"`
	E   str `json:"e"`
	S   str `json:"s"`
	I   str `json:"i"`
	L   str `json:"l"`
	R   str `json:"r"`
	Bd  str `json:"bd"`
	Wu  str `json:"wu"`
	Mcb num `json:"mcb"`
	Tso num `json:"tso"`
	Pet num `json:"pet"`
	Fcc str `json:"fcc"`
}

type ipoWire struct {
	Dt millis  `json:"dt"`
	Cn str     `json:"cn"`
	Sc str     `json:"sc"`
	Ex str     `json:"ex"`
	Ct str     `json:"ct"`
	Mc str     `json:"mc"`
	Pr str     `json:"pr"`
	Bs seconds `json:"bs"`
	Es seconds `json:"es"`
	Ro seconds `json:"ro"`
}

type newsArticleWire struct {
	ID  str     `json:"id"`
	Te  str     `json:"te"`
	Pt  seconds `json:"pt"`
	Lg  str     `json:"lg"`
	Lk  str     `json:"lk"`
	Sd  str     `json:"sd"`
	Cd  str     `json:"cd"`
	Tg  strList `json:"tg"`
	Mts strList `json:"mts"`
	Mt  str     `json:"mt"`
}

// strList is a list of strings whose items may arrive as bare numbers; null
// is an empty list.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	var raw []str
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*l = nil
		return nil
	}
	out := make([]string, len(raw))
	for i, s := range raw {
		out[i] = string(s)
	}
	*l = out
	return nil
}

func (l strList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(l))
}

type symbolWire struct {
	C str `json:"c"`
	N str `json:"n"`
	T str `json:"t"`
	E str `json:"e"`
	S str `json:"s"`
	L str `json:"l"`
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
		return errOracle
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

// dateList is a list of calendar dates sent as a string holding a JSON
// array ("[\"2025-01-01\"]"); a plain array is accepted too.
type dateList []time.Time

func (d *dateList) UnmarshalJSON(b []byte) error {
	if err := d.unmarshal(b); err != nil {
		return errOracle
	}
	return nil
}

func (d *dateList) unmarshal(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var inner string
		if err := json.Unmarshal(b, &inner); err != nil {
			return err
		}
		b = bytes.TrimSpace([]byte(inner))
	}
	if len(b) == 0 || string(b) == "null" {
		*d = nil
		return nil
	}
	var raw []str
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*d = nil
		return nil
	}
	out := make([]time.Time, 0, len(raw))
	for _, r := range raw {
		t, err := refParseDate(strings.TrimSpace(string(r)))
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

// commaList is a comma-separated string such as "08:00-09:00,09:00-17:30,";
// empty items are dropped and a JSON array is accepted too.
type commaList []string

func (c *commaList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	var items []str
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
	} else {
		var s str
		if err := json.Unmarshal(b, &s); err != nil {
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

// pageWire is the Spring-style page the service wraps split and IPO
// records in; page is 0-based.
type pageWire[T any] struct {
	Content       []T     `json:"content"`
	Page          integer `json:"page"`
	Size          integer `json:"size"`
	TotalPages    integer `json:"totalPages"`
	TotalElements integer `json:"totalElements"`
	Last          boolean `json:"last"`
}

// The reference decoders: encoding/json through the wire structs.

func quoteFromWire(b []byte) (Quote, error) {
	var w quoteWire
	if err := json.Unmarshal(b, &w); err != nil {
		return Quote{}, err
	}
	return Quote{Symbol: string(w.S), Last: float64(w.Ld), Open: float64(w.O), PrevClose: float64(w.P),
		High: float64(w.H), Low: float64(w.L), Time: time.Time(w.T), Volume: float64(w.V),
		Turnover: float64(w.Tu), Status: int(w.TS), Change: float64(w.Ch), ChangePercent: float64(w.Chp)}, nil
}

func tickFromWire(b []byte) (Tick, error) {
	var w tickWire
	if err := json.Unmarshal(b, &w); err != nil {
		return Tick{}, err
	}
	return Tick{Symbol: string(w.S), Last: float64(w.Ld), Time: time.Time(w.T), Volume: float64(w.V),
		Session: TickSession(w.Te), Turnover: float64(w.Tu), Status: TradingStatus(w.TS), Direction: TradeDirection(w.D)}, nil
}

func depthLevelFromWire(b []byte) (DepthLevel, error) {
	var w depthLevelWire
	if err := json.Unmarshal(b, &w); err != nil {
		return DepthLevel{}, err
	}
	return DepthLevel{Level: int(w.Po), Price: float64(w.P), Volume: float64(w.V), Orders: float64(w.O)}, nil
}

func klineFromWire(b []byte) (Kline, error) {
	var w klineWire
	if err := json.Unmarshal(b, &w); err != nil {
		return Kline{}, err
	}
	return Kline{Time: time.Time(w.T), Open: float64(w.O), High: float64(w.H), Low: float64(w.L),
		Close: float64(w.C), Volume: float64(w.V), Turnover: float64(w.Tu)}, nil
}

// envelope is the {code, msg, data} wrapper of every response. message is
// what an API gateway sends instead when it refuses a request.
type refEnvelope struct {
	Code    *refEnvCode     `json:"code"`
	Msg     *str            `json:"msg"`
	Message *str            `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (c *refEnvCode) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if err := (*codec.Code)(c).SetText([]byte(s)); err != nil {
			return errOracle
		}
		return nil
	}
	var n integer
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	*c = refEnvCode{N: int(n)}
	return nil
}

func refParseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, "2006/01/02", "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errOracle
}

// parseEnvelope is the envelope as encoding/json reads it, under the same
// success rule.
func refParseEnvelope(status int, body []byte) (json.RawMessage, error) {
	var env refEnvelope
	err := json.Unmarshal(body, &env)
	var e codec.Envelope
	if err == nil {
		e = codec.Envelope{HasCode: env.Code != nil, HasMsg: env.Msg != nil, HasMessage: env.Message != nil, Data: env.Data}
		if env.Code != nil {
			e.Code = codec.Code(*env.Code)
		}
		if env.Msg != nil {
			e.Msg = string(*env.Msg)
		}
		if env.Message != nil {
			e.Message = string(*env.Message)
		}
	}
	if f := codec.Check(status, &e, err, [][]byte{body}, noRedact); f != nil {
		return nil, newAPIError("/test", status, nil, body, noRedact, f)
	}
	return env.Data, nil
}

// The oracle's decoders of the models the tables newly cover.

func refDecode[W, T any](conv func(*W) T) func([]byte) (T, error) {
	return func(b []byte) (T, error) {
		var w W
		if err := json.Unmarshal(b, &w); err != nil {
			var zero T
			return zero, err
		}
		return conv(&w), nil
	}
}

var (
	splitFromWire = refDecode(func(w *splitRecordWire) SplitRecord {
		return SplitRecord{ExDate: time.Time(w.D), Region: Region(w.R), Name: string(w.N), Code: string(w.C), Ratio: string(w.V)}
	})
	newsItemFromWire = refDecode(func(w *newsItemWire) NewsItem {
		return NewsItem{ID: string(w.ID), Title: string(w.Te), Published: time.Time(w.Pt), Market: string(w.Mt),
			Lang: string(w.Lg), Link: string(w.Lk), Provider: string(w.Pv)}
	})
	stockInfoFromWire = refDecode(func(w *stockInfoWire) StockInfo {
		return StockInfo{Code: string(w.C), Name: string(w.N), Type: string(w.T), Exchange: string(w.E),
			Sector: string(w.S), Industry: string(w.I), Logo: string(w.L), Region: Region(w.R),
			Description: string(w.Bd), Website: string(w.Wu), MarketCap: float64(w.Mcb), Shares: float64(w.Tso),
			PE: float64(w.Pet), Currency: string(w.Fcc)}
	})
	ipoFromWire = refDecode(func(w *ipoWire) IPO {
		return IPO{ListingDate: time.Time(w.Dt), Company: string(w.Cn), Code: string(w.Sc), Exchange: string(w.Ex),
			Country: string(w.Ct), MarketCap: string(w.Mc), Price: string(w.Pr),
			SubscriptionStart: time.Time(w.Bs), SubscriptionEnd: time.Time(w.Es), ResultDate: time.Time(w.Ro)}
	})
	articleFromWire = refDecode(func(w *newsArticleWire) NewsArticle {
		return NewsArticle{ID: string(w.ID), Title: string(w.Te), Published: time.Time(w.Pt), Lang: string(w.Lg),
			Link: string(w.Lk), Summary: string(w.Sd), Body: string(w.Cd), Tags: w.Tg, Markets: w.Mts, Market: string(w.Mt)}
	})
	symbolFromWire = refDecode(func(w *symbolWire) Symbol {
		return Symbol{Code: string(w.C), Name: string(w.N), Type: AssetType(w.T), Exchange: string(w.E),
			Sector: string(w.S), ShortName: string(w.L)}
	})
	holidayFromWire = refDecode(func(w *holidayWire) Holiday {
		return Holiday{Market: string(w.C), Country: string(w.R), UTCOffset: float64(w.Tz),
			TradingHours: string(w.Et), Dates: w.V, Year: int(w.Ey)}
	})
	marketStatusFromWire = refDecode(func(w *marketStatusWire) MarketStatus {
		return MarketStatus{Code: string(w.C), Region: string(w.R), Open: bool(w.O), State: MarketState(w.S),
			Holiday: string(w.H), Sessions: w.T, Zone: string(w.Z), LocalTime: string(w.L)}
	})
	splitPageFromWire = refDecode(func(w *pageWire[refItem[SplitRecord, splitRef]]) SplitPage {
		return SplitPage{Records: items(w.Content), Page: int(w.Page), Size: int(w.Size), TotalPages: int(w.TotalPages),
			TotalElements: int(w.TotalElements), Last: bool(w.Last)}
	})
	ipoPageFromWire = refDecode(func(w *pageWire[refItem[IPO, ipoRef]]) IPOPage {
		return IPOPage{Records: items(w.Content), Page: int(w.Page), Size: int(w.Size), TotalPages: int(w.TotalPages),
			TotalElements: int(w.TotalElements), Last: bool(w.Last)}
	})
	newsPageFromWire = refDecode(func(w *refNewsPageWire) NewsPage {
		return NewsPage{Items: items(w.Data), NextCursor: string(w.Pagination.NextCursor),
			HasMore: bool(w.Pagination.HasMore), Count: int(w.Pagination.Count)}
	})
)

type refNewsPageWire struct {
	Data       []refItem[NewsItem, newsItemRef] `json:"data"`
	Pagination struct {
		NextCursor str     `json:"nextCursor"`
		HasMore    boolean `json:"hasMore"`
		Count      integer `json:"count"`
	} `json:"pagination"`
}

// refItem is a list item the oracle decodes itself (D names its decoder),
// so that a list never reaches the model's own UnmarshalJSON.
type refItem[T any, D interface{ decode([]byte) (T, error) }] struct{ v T }

func (r *refItem[T, D]) UnmarshalJSON(b []byte) (err error) {
	var d D
	r.v, err = d.decode(b)
	return err
}

type (
	splitRef    struct{}
	ipoRef      struct{}
	newsItemRef struct{}
)

func (splitRef) decode(b []byte) (SplitRecord, error) { return splitFromWire(b) }
func (ipoRef) decode(b []byte) (IPO, error)           { return ipoFromWire(b) }
func (newsItemRef) decode(b []byte) (NewsItem, error) { return newsItemFromWire(b) }

func items[T any, D interface{ decode([]byte) (T, error) }](in []refItem[T, D]) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, r := range in {
		out[i] = r.v
	}
	return out
}

// The oracle's encoders: json.Marshal of the wire structs, as MarshalJSON
// was written before the tables.

func quoteToWire(q Quote) any {
	return quoteWire{S: str(q.Symbol), Ld: num(q.Last), O: num(q.Open), P: num(q.PrevClose),
		H: num(q.High), L: num(q.Low), T: millis(q.Time), V: num(q.Volume), Tu: num(q.Turnover),
		TS: integer(q.Status), Ch: num(q.Change), Chp: num(q.ChangePercent)}
}

func tickToWire(t Tick) any {
	return tickWire{S: str(t.Symbol), Ld: num(t.Last), T: millis(t.Time), V: num(t.Volume),
		Te: integer(t.Session), Tu: num(t.Turnover), TS: integer(t.Status), D: integer(t.Direction)}
}

func levelToWire(l DepthLevel) any {
	return depthLevelWire{Po: integer(l.Level), P: num(l.Price), V: num(l.Volume), O: num(l.Orders)}
}

func bookToWire(d DepthBook) any { return depthBookWire{S: str(d.Symbol), A: d.Asks, B: d.Bids} }

func klineToWire(k Kline) any {
	return klineWire{T: millis(k.Time), O: num(k.Open), H: num(k.High), L: num(k.Low),
		C: num(k.Close), V: num(k.Volume), Tu: num(k.Turnover)}
}

func splitToWire(s SplitRecord) any {
	return splitRecordWire{D: millis(s.ExDate), R: str(s.Region), N: str(s.Name), C: str(s.Code), V: str(s.Ratio)}
}

func splitPageToWire(p SplitPage) any {
	return pageWire[SplitRecord]{Content: p.Records, Page: integer(p.Page), Size: integer(p.Size),
		TotalPages: integer(p.TotalPages), TotalElements: integer(p.TotalElements), Last: boolean(p.Last)}
}

func ipoPageToWire(p IPOPage) any {
	return pageWire[IPO]{Content: p.Records, Page: integer(p.Page), Size: integer(p.Size),
		TotalPages: integer(p.TotalPages), TotalElements: integer(p.TotalElements), Last: boolean(p.Last)}
}

func newsItemToWire(n NewsItem) any {
	return newsItemWire{ID: str(n.ID), Te: str(n.Title), Pt: seconds(n.Published), Mt: str(n.Market),
		Lg: str(n.Lang), Lk: str(n.Link), Pv: str(n.Provider)}
}

func newsPageToWire(p NewsPage) any {
	var w newsPageWire
	w.Data = p.Items
	w.Pagination.NextCursor = str(p.NextCursor)
	w.Pagination.HasMore = boolean(p.HasMore)
	w.Pagination.Count = integer(p.Count)
	return w
}

func stockInfoToWire(s StockInfo) any {
	return stockInfoWire{C: str(s.Code), N: str(s.Name), T: str(s.Type), E: str(s.Exchange),
		S: str(s.Sector), I: str(s.Industry), L: str(s.Logo), R: str(s.Region), Bd: str(s.Description),
		Wu: str(s.Website), Mcb: num(s.MarketCap), Tso: num(s.Shares), Pet: num(s.PE), Fcc: str(s.Currency)}
}

func ipoToWire(p IPO) any {
	return ipoWire{Dt: millis(p.ListingDate), Cn: str(p.Company), Sc: str(p.Code), Ex: str(p.Exchange),
		Ct: str(p.Country), Mc: str(p.MarketCap), Pr: str(p.Price),
		Bs: seconds(p.SubscriptionStart), Es: seconds(p.SubscriptionEnd), Ro: seconds(p.ResultDate)}
}

func articleToWire(a NewsArticle) any {
	return newsArticleWire{ID: str(a.ID), Te: str(a.Title), Pt: seconds(a.Published), Lg: str(a.Lang),
		Lk: str(a.Link), Sd: str(a.Summary), Cd: str(a.Body), Tg: a.Tags, Mts: a.Markets, Mt: str(a.Market)}
}

func symbolToWire(s Symbol) any {
	return symbolWire{C: str(s.Code), N: str(s.Name), T: str(s.Type), E: str(s.Exchange), S: str(s.Sector), L: str(s.ShortName)}
}

func holidayToWire(h Holiday) any {
	return holidayWire{C: str(h.Market), R: str(h.Country), Tz: num(h.UTCOffset), Et: str(h.TradingHours), V: h.Dates, Ey: year(h.Year)}
}

func marketStatusToWire(m MarketStatus) any {
	return marketStatusWire{C: str(m.Code), R: str(m.Region), O: boolean(m.Open), S: str(m.State),
		H: str(m.Holiday), T: m.Sessions, Z: str(m.Zone), L: str(m.LocalTime)}
}

// The reference decoders: encoding/json through the wire structs only, as
// the SDK decoded before the fast path. The ref types never reach the
// models' UnmarshalJSON methods, which take the fast path themselves.

type refQuote Quote

func (r *refQuote) UnmarshalJSON(b []byte) error {
	q, err := quoteFromWire(b)
	if err != nil {
		return err
	}
	*r = refQuote(q)
	return nil
}

type refTick Tick

func (r *refTick) UnmarshalJSON(b []byte) error {
	t, err := tickFromWire(b)
	if err != nil {
		return err
	}
	*r = refTick(t)
	return nil
}

type refLevel DepthLevel

func (r *refLevel) UnmarshalJSON(b []byte) error {
	l, err := depthLevelFromWire(b)
	if err != nil {
		return err
	}
	*r = refLevel(l)
	return nil
}

type refBook DepthBook

func (r *refBook) UnmarshalJSON(b []byte) error {
	var w struct {
		S str        `json:"s"`
		A []refLevel `json:"a"`
		B []refLevel `json:"b"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = refBook{Symbol: string(w.S), Asks: convertSlice(w.A, toLevel), Bids: convertSlice(w.B, toLevel)}
	return nil
}

type refKline Kline

func (r *refKline) UnmarshalJSON(b []byte) error {
	k, err := klineFromWire(b)
	if err != nil {
		return err
	}
	*r = refKline(k)
	return nil
}

func toLevel(l refLevel) DepthLevel { return DepthLevel(l) }

func toKline(k refKline) Kline { return Kline(k) }

// convertSlice keeps nil apart from empty, as cmp does.
func convertSlice[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func convertMap[A, B any](in map[string]A, f func(A) B) map[string]B {
	if in == nil {
		return nil
	}
	out := make(map[string]B, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

// refDecodeData is decodeData as it was: encoding/json into the targets,
// through the oracle.
func refDecodeData(raw []byte, out any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	for _, tg := range targets {
		if reflect.TypeOf(tg.new()) == reflect.TypeOf(out) {
			return tg.ref(raw, out)
		}
	}
	return json.Unmarshal(raw, out)
}

// refInto decodes raw as R with encoding/json and stores conv of it.
func refInto[T, R any](conv func(R) T) func([]byte, any) error {
	return func(raw []byte, out any) error {
		var r R
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		*out.(*T) = conv(r)
		return nil
	}
}

func refPtr[T any](dec func([]byte) (T, error)) func([]byte, any) error {
	return func(raw []byte, out any) error {
		v, err := dec(raw)
		if err != nil {
			return err
		}
		*out.(**T) = &v
		return nil
	}
}

func (symbolRef) decode(b []byte) (Symbol, error) { return symbolFromWire(b) }

func refStatusList(raw []byte, out any) error {
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '{' {
		one, err := marketStatusFromWire(raw)
		if err == nil {
			*out.(*[]MarketStatus) = []MarketStatus{one}
		}
		return err
	}
	return refInto(func(r []refItem[MarketStatus, statusRef]) []MarketStatus { return items(r) })(raw, out)
}

func refKlineData(raw []byte, out any) error {
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err == nil && len(m) == 0 {
			*out.(*klineData) = klineData{emptyObject: true}
			return nil
		}
	}
	return refInto(func(r []refKline) klineData { return klineData{klines: convertSlice(r, toKline)} })(raw, out)
}

// refDecodeResponse is decodeResponse as it was.
func refDecodeResponse(status int, body []byte, out any) error {
	data, err := refParseEnvelope(status, body)
	if err != nil {
		return err
	}
	if err := refDecodeData(data, out); err != nil {
		return &APIError{StatusCode: status, Path: "/test", Message: "cannot decode data: " + err.Error()}
	}
	return nil
}

// bitsEqual compares floats by their bits: -0 is not 0, and the fast
// number path must give exactly strconv's result.
var bitsEqual = cmp.Options{cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }), cmp.AllowUnexported(klineData{})}

type (
	symbolRef  struct{}
	holidayRef struct{}
	statusRef  struct{}
)
