package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/wire"
)

// decodeResponse is the single path from a response body to the SDK's
// types: the envelope's success rule, then the data into out.
//
// The fast path reads it all in one pass; a body it refuses takes the
// reference path (encoding/json), whose error messages users see.
func decodeResponse(path string, status int, header http.Header, body []byte, redact func(string) string, out any) error {
	refused, err := fastResponse(path, status, header, body, redact, out)
	if !refused {
		return err
	}
	data, err := parseEnvelope(path, status, header, body, redact)
	if err != nil {
		return err
	}
	if err := decodeData(data, out); err != nil {
		return &APIError{StatusCode: status, Path: path,
			Message: redact(fmt.Sprintf("cannot decode data: %v", err))}
	}
	return nil
}

// decodeData decodes a response's data into out. The SDK's own result
// types take the fast path over the wire scanner; anything else, and any
// data the fast path refuses (so that the error is encoding/json's), goes
// through encoding/json.
func decodeData(raw []byte, out any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if handled, err := decodeFast(raw, out); handled && err == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

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

func (n num) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(n), 'g', -1, 64), nil
}

// integer is an int that also arrives as a quoted or integral float number.
type integer int

func (n *integer) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	i, ok := intFromFloat(f)
	if !ok {
		return fmt.Errorf("itick: %s is not an integer", b)
	}
	*n = integer(i)
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
	return fmt.Errorf("itick: %.20s is not a string", b)
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
		return fmt.Errorf("itick: %.20s is not a boolean", b)
	}
	return nil
}

func (v boolean) MarshalJSON() ([]byte, error) { return strconv.AppendBool(nil, bool(v)), nil }

// Timestamps beyond year 9999 are refused rather than wrapped.
const (
	maxUnixSeconds = 253402300799
	maxUnixMillis  = maxUnixSeconds*1000 + 999
)

// millis is a time sent as Unix milliseconds; 0 or null is the zero Time.
type millis time.Time

func (t *millis) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	tt, ok := timeFromMillis(f)
	if !ok {
		return fmt.Errorf("itick: timestamp %s out of range", b)
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
	if math.Abs(f) > maxUnixSeconds {
		return fmt.Errorf("itick: timestamp %s out of range", b)
	}
	if f == 0 {
		*t = seconds{}
		return nil
	}
	*t = seconds(time.Unix(int64(math.Floor(f)), 0).UTC())
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
			return 0, fmt.Errorf("itick: %.20s is not a number", b)
		}
		b = bytes.TrimSpace(b[1 : len(b)-1])
		if len(b) == 0 {
			return 0, nil
		}
	}
	if !isNumberLiteral(b) {
		return 0, fmt.Errorf("itick: %.20q is not a number", b)
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Errorf("itick: %.20q is not a finite number", b)
	}
	return f, nil
}

// isNumberLiteral accepts the characters of a JSON number, so that strconv's
// extras (NaN, Inf, hex, underscores) are not taken as numbers.
func isNumberLiteral(b []byte) bool {
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
		case c == '-' || c == '+':
			if i != 0 && b[i-1] != 'e' && b[i-1] != 'E' {
				return false
			}
		case c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return len(b) > 0
}

// intFromFloat is the integer type's rule: a whole number within ±2^53.
func intFromFloat(f float64) (int, bool) {
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

// timeFromMillis is the millis type's rule: 0 is the zero Time, anything
// beyond year 9999 is refused, fractions of a millisecond are dropped.
func timeFromMillis(f float64) (time.Time, bool) {
	switch {
	case math.Abs(f) > maxUnixMillis:
		return time.Time{}, false
	case f == 0:
		return time.Time{}, true
	}
	return time.UnixMilli(int64(math.Floor(f))).UTC(), true
}

// The fast path: hand-written decoders for the SDK's batch results over the
// wire scanner. Each accepts and refuses exactly what encoding/json does
// through the wire types above (decode_equiv_test.go and
// FuzzDecodeEquivalence hold them to it), writes nothing on error, and
// allocates only what the result keeps.

var errNotInteger = errors.New("itick: not an integer")
var errTimeRange = errors.New("itick: timestamp out of range")

// fastState is the scratch one decode reuses: the scanner, and buffers
// that results are built in before being copied out at their final size.
type fastState struct {
	d      wire.Decoder
	levels []DepthLevel
	klines []Kline
	quotes []keyed[Quote]
	books  []keyed[DepthBook]
	series []keyed[[]Kline]
	book   DepthBook
}

type keyed[T any] struct {
	k string
	v T
}

var statePool = sync.Pool{New: func() any { return new(fastState) }}

// maxScratch bounds the buffers a pooled state keeps between decodes.
const maxScratch = 1 << 16

func getState(b []byte) *fastState {
	st := statePool.Get().(*fastState)
	st.d.Reset(b)
	return st
}

func putState(st *fastState) {
	st.d.Reset(nil)
	clear(st.quotes)
	clear(st.books)
	clear(st.series)
	st.quotes, st.books, st.series, st.book = st.quotes[:0], st.books[:0], st.series[:0], DepthBook{}
	if cap(st.levels) > maxScratch || cap(st.klines) > maxScratch || cap(st.quotes) > maxScratch ||
		cap(st.books) > maxScratch || cap(st.series) > maxScratch {
		return
	}
	statePool.Put(st)
}

// fastKind names the result types with a fast path.
type fastKind uint8

const (
	kindNone   fastKind = iota
	kindQuotes          // *map[string]Quote
	kindBooks           // *map[string]DepthBook
	kindSeries          // *map[string][]Kline
	kindBook            // **DepthBook
)

// fastKindOf names out's fast path; a nil pointer has none, so that
// encoding/json reports it.
func fastKindOf(out any) fastKind {
	switch p := out.(type) {
	case *map[string]Quote:
		if p != nil {
			return kindQuotes
		}
	case *map[string]DepthBook:
		if p != nil {
			return kindBooks
		}
	case *map[string][]Kline:
		if p != nil {
			return kindSeries
		}
	case **DepthBook:
		if p != nil {
			return kindBook
		}
	}
	return kindNone
}

// parse decodes the (non-null) value at the scanner into the scratch of
// kind; commit then writes it to out. Nothing reaches out before commit,
// so a refused document leaves out as it was.
func (st *fastState) parse(kind fastKind) error {
	var err error
	switch kind {
	case kindQuotes:
		st.quotes, err = parsePairs(st, st.quotes[:0], fastQuote)
	case kindBooks:
		st.books, err = parsePairs(st, st.books[:0], fastBook)
	case kindSeries:
		st.series, err = parsePairs(st, st.series[:0], fastSeries)
	case kindBook:
		st.book, err = fastBook(st, "")
	}
	return err
}

func (st *fastState) commit(kind fastKind, out any) {
	switch kind {
	case kindQuotes:
		buildMap(out.(*map[string]Quote), st.quotes)
	case kindBooks:
		buildMap(out.(*map[string]DepthBook), st.books)
	case kindSeries:
		buildMap(out.(*map[string][]Kline), st.series)
	case kindBook:
		p := out.(**DepthBook)
		if *p == nil {
			*p = new(DepthBook)
		}
		**p = st.book
	}
}

// commitNull is what encoding/json does with a null document.
func commitNull(kind fastKind, out any) {
	switch kind {
	case kindQuotes:
		*out.(*map[string]Quote) = nil
	case kindBooks:
		*out.(*map[string]DepthBook) = nil
	case kindSeries:
		*out.(*map[string][]Kline) = nil
	case kindBook:
		*out.(**DepthBook) = nil
	}
}

// decodeFast decodes raw into out if out is one of the types with a fast
// path; handled is false for any other type.
func decodeFast(raw []byte, out any) (handled bool, err error) {
	kind := fastKindOf(out)
	if kind == kindNone {
		return false, nil
	}
	st := getState(raw)
	defer putState(st)
	if st.d.Null() {
		if err := st.d.End(); err != nil {
			return true, err
		}
		commitNull(kind, out)
		return true, nil
	}
	if err := st.parse(kind); err != nil {
		return true, err
	}
	if err := st.d.End(); err != nil {
		return true, err
	}
	st.commit(kind, out)
	return true, nil
}

// fastResponse is decodeResponse over the wire scanner, reading the
// envelope and decoding its data in one pass. refused reports a body the
// scanner could not take as it is; err is then why.
func fastResponse(path string, status int, header http.Header, body []byte, redact func(string) string, out any) (refused bool, err error) {
	kind := fastKindOf(out)
	if status < 200 || status > 299 {
		kind = kindNone // failing anyway: only the envelope matters
	}
	st := getState(body)
	defer putState(st)
	var (
		env          envelope
		code         integer
		msg, message str
		parsed       bool
	)
	if err := scanEnvelope(st, kind, &env, &code, &msg, &message, &parsed); err != nil {
		return true, err
	}
	data, err := checkEnvelope(path, status, header, body, redact, &env, nil)
	if err != nil {
		return false, err
	}
	if parsed {
		st.commit(kind, out)
		return false, nil
	}
	if err := decodeData(data, out); err != nil {
		return false, &APIError{StatusCode: status, Path: path,
			Message: redact(fmt.Sprintf("cannot decode data: %v", err))}
	}
	return false, nil
}

// parsePairs decodes an object keyed by code into pairs, so that the map
// can be made at its final size.
func parsePairs[T any](st *fastState, pairs []keyed[T], value func(*fastState, string) (T, error)) ([]keyed[T], error) {
	d := &st.d
	empty, err := d.Enter('{')
	if err != nil {
		return pairs, err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return pairs, err
		}
		key := string(k)
		v, err := value(st, key)
		if err != nil {
			return pairs, err
		}
		pairs = append(pairs, keyed[T]{key, v})
		if more, err = d.Next('}'); err != nil {
			return pairs, err
		}
	}
	return pairs, nil
}

// buildMap stores pairs in order, so a later duplicate key wins; an
// existing map is added to, as encoding/json does.
func buildMap[T any](m *map[string]T, pairs []keyed[T]) {
	out := *m
	if out == nil {
		out = make(map[string]T, len(pairs))
	}
	for _, p := range pairs {
		out[p.k] = p.v
	}
	*m = out
}

// sameString returns b as a string, reusing s when they are equal: a
// symbol is usually its map key.
func sameString(b []byte, s string) string {
	if string(b) == s {
		return s
	}
	return string(b)
}

func readInt(d *wire.Decoder) (int, error) {
	f, err := d.Num()
	if err != nil {
		return 0, err
	}
	n, ok := intFromFloat(f)
	if !ok {
		return 0, errNotInteger
	}
	return n, nil
}

func readMillis(d *wire.Decoder) (time.Time, error) {
	f, err := d.Num()
	if err != nil {
		return time.Time{}, err
	}
	t, ok := timeFromMillis(f)
	if !ok {
		return time.Time{}, errTimeRange
	}
	return t, nil
}

var quoteFields = wire.NewFields("s", "ld", "o", "p", "h", "l", "t", "v", "tu", "ts", "ch", "chp")

func quoteField(k []byte) int {
	switch string(k) {
	case "s":
		return 0
	case "ld":
		return 1
	case "o":
		return 2
	case "p":
		return 3
	case "h":
		return 4
	case "l":
		return 5
	case "t":
		return 6
	case "v":
		return 7
	case "tu":
		return 8
	case "ts":
		return 9
	case "ch":
		return 10
	case "chp":
		return 11
	}
	return quoteFields.Fold(k)
}

func fastQuote(st *fastState, key string) (Quote, error) {
	d := &st.d
	var q Quote
	if d.Null() {
		return q, nil
	}
	empty, err := d.Enter('{')
	if err != nil {
		return q, err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return Quote{}, err
		}
		switch quoteField(k) {
		case 0:
			var b []byte
			b, err = d.Str()
			q.Symbol = sameString(b, key)
		case 1:
			q.Last, err = d.Num()
		case 2:
			q.Open, err = d.Num()
		case 3:
			q.PrevClose, err = d.Num()
		case 4:
			q.High, err = d.Num()
		case 5:
			q.Low, err = d.Num()
		case 6:
			q.Time, err = readMillis(d)
		case 7:
			q.Volume, err = d.Num()
		case 8:
			q.Turnover, err = d.Num()
		case 9:
			q.Status, err = readInt(d)
		case 10:
			q.Change, err = d.Num()
		case 11:
			q.ChangePercent, err = d.Num()
		default:
			err = d.Skip()
		}
		if err != nil {
			return Quote{}, err
		}
		if more, err = d.Next('}'); err != nil {
			return Quote{}, err
		}
	}
	return q, nil
}

var bookFields = wire.NewFields("s", "a", "b")

func bookField(k []byte) int {
	switch string(k) {
	case "s":
		return 0
	case "a":
		return 1
	case "b":
		return 2
	}
	return bookFields.Fold(k)
}

// levelSpan is where one side's levels sit in the scratch buffer; isSet
// tells an array (even empty) from null or absence, which leave nil.
type levelSpan struct {
	start, end int
	isSet      bool
}

func fastBook(st *fastState, key string) (DepthBook, error) {
	d := &st.d
	var book DepthBook
	if d.Null() {
		return book, nil
	}
	empty, err := d.Enter('{')
	if err != nil {
		return book, err
	}
	st.levels = st.levels[:0]
	var asks, bids levelSpan
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return DepthBook{}, err
		}
		switch bookField(k) {
		case 0:
			var b []byte
			b, err = d.Str()
			book.Symbol = sameString(b, key)
		case 1:
			asks, err = fastLevels(st)
		case 2:
			bids, err = fastLevels(st)
		default:
			err = d.Skip()
		}
		if err != nil {
			return DepthBook{}, err
		}
		if more, err = d.Next('}'); err != nil {
			return DepthBook{}, err
		}
	}
	if asks.isSet || bids.isSet {
		// Both sides share one allocation; each is capped at its length.
		na, nb := asks.end-asks.start, bids.end-bids.start
		all := make([]DepthLevel, na+nb)
		copy(all, st.levels[asks.start:asks.end])
		copy(all[na:], st.levels[bids.start:bids.end])
		if asks.isSet {
			book.Asks = all[:na:na]
		}
		if bids.isSet {
			book.Bids = all[na : na+nb : na+nb]
		}
	}
	return book, nil
}

func fastLevels(st *fastState) (levelSpan, error) {
	d := &st.d
	if d.Null() {
		return levelSpan{}, nil
	}
	empty, err := d.Enter('[')
	if err != nil {
		return levelSpan{}, err
	}
	span := levelSpan{start: len(st.levels), isSet: true}
	for more := !empty; more; {
		l, err := fastLevel(d)
		if err != nil {
			return levelSpan{}, err
		}
		st.levels = append(st.levels, l)
		if more, err = d.Next(']'); err != nil {
			return levelSpan{}, err
		}
	}
	span.end = len(st.levels)
	return span, nil
}

var levelFields = wire.NewFields("po", "p", "v", "o")

func levelField(k []byte) int {
	switch string(k) {
	case "po":
		return 0
	case "p":
		return 1
	case "v":
		return 2
	case "o":
		return 3
	}
	return levelFields.Fold(k)
}

func fastLevel(d *wire.Decoder) (DepthLevel, error) {
	var l DepthLevel
	if d.Null() {
		return l, nil
	}
	empty, err := d.Enter('{')
	if err != nil {
		return l, err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return DepthLevel{}, err
		}
		switch levelField(k) {
		case 0:
			l.Level, err = readInt(d)
		case 1:
			l.Price, err = d.Num()
		case 2:
			l.Volume, err = d.Num()
		case 3:
			l.Orders, err = d.Num()
		default:
			err = d.Skip()
		}
		if err != nil {
			return DepthLevel{}, err
		}
		if more, err = d.Next('}'); err != nil {
			return DepthLevel{}, err
		}
	}
	return l, nil
}

// fastSeries decodes one code's candles into the scratch buffer and copies
// them out at their final size: one allocation per code.
func fastSeries(st *fastState, _ string) ([]Kline, error) {
	d := &st.d
	if d.Null() {
		return nil, nil
	}
	empty, err := d.Enter('[')
	if err != nil {
		return nil, err
	}
	ks := st.klines[:0]
	for more := !empty; more; {
		k, err := fastKline(d)
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
		if more, err = d.Next(']'); err != nil {
			return nil, err
		}
	}
	st.klines = ks
	out := make([]Kline, len(ks))
	copy(out, ks)
	return out, nil
}

var klineFields = wire.NewFields("t", "o", "h", "l", "c", "v", "tu")

func klineField(k []byte) int {
	switch string(k) {
	case "t":
		return 0
	case "o":
		return 1
	case "h":
		return 2
	case "l":
		return 3
	case "c":
		return 4
	case "v":
		return 5
	case "tu":
		return 6
	}
	return klineFields.Fold(k)
}

func fastKline(d *wire.Decoder) (Kline, error) {
	var k Kline
	if d.Null() {
		return k, nil
	}
	empty, err := d.Enter('{')
	if err != nil {
		return k, err
	}
	for more := !empty; more; {
		key, err := d.Key()
		if err != nil {
			return Kline{}, err
		}
		switch klineField(key) {
		case 0:
			k.Time, err = readMillis(d)
		case 1:
			k.Open, err = d.Num()
		case 2:
			k.High, err = d.Num()
		case 3:
			k.Low, err = d.Num()
		case 4:
			k.Close, err = d.Num()
		case 5:
			k.Volume, err = d.Num()
		case 6:
			k.Turnover, err = d.Num()
		default:
			err = d.Skip()
		}
		if err != nil {
			return Kline{}, err
		}
		if more, err = d.Next('}'); err != nil {
			return Kline{}, err
		}
	}
	return k, nil
}

// The models' UnmarshalJSON methods take the fast path too, and fall back
// to the wire structs on error so the error is encoding/json's.

func unmarshalQuote(b []byte, q *Quote) error {
	st := getState(b)
	v, err := fastQuote(st, "")
	if err == nil {
		err = st.d.End()
	}
	putState(st)
	if err != nil {
		if v, err = quoteFromWire(b); err != nil {
			return err
		}
	}
	*q = v
	return nil
}

func unmarshalDepthBook(b []byte, book *DepthBook) error {
	st := getState(b)
	v, err := fastBook(st, "")
	if err == nil {
		err = st.d.End()
	}
	putState(st)
	if err != nil {
		if v, err = depthBookFromWire(b); err != nil {
			return err
		}
	}
	*book = v
	return nil
}

func unmarshalDepthLevel(b []byte, l *DepthLevel) error {
	var d wire.Decoder
	d.Reset(b)
	v, err := fastLevel(&d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if v, err = depthLevelFromWire(b); err != nil {
			return err
		}
	}
	*l = v
	return nil
}

func unmarshalKline(b []byte, k *Kline) error {
	var d wire.Decoder
	d.Reset(b)
	v, err := fastKline(&d)
	if err == nil {
		err = d.End()
	}
	if err != nil {
		if v, err = klineFromWire(b); err != nil {
			return err
		}
	}
	*k = v
	return nil
}

// The reference decoders: encoding/json through the wire structs.

func quoteFromWire(b []byte) (Quote, error) {
	var w quoteWire
	if err := json.Unmarshal(b, &w); err != nil {
		return Quote{}, err
	}
	return Quote{Symbol: string(w.S), Last: float64(w.Ld), Open: float64(w.O), PrevClose: float64(w.P),
		High: float64(w.H), Low: float64(w.L), Time: time.Time(w.T), Volume: float64(w.V),
		Turnover: float64(w.Tu), Status: int(w.Ts), Change: float64(w.Ch), ChangePercent: float64(w.Chp)}, nil
}

func depthBookFromWire(b []byte) (DepthBook, error) {
	var w depthBookWire
	if err := json.Unmarshal(b, &w); err != nil {
		return DepthBook{}, err
	}
	return DepthBook{Symbol: string(w.S), Asks: w.A, Bids: w.B}, nil
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
