package itick

import (
	"time"

	"github.com/d19c4e34/itick/internal/wire"
)

// str returns b as a string, reusing s when they are equal (a symbol is
// usually its map key), else the interned copy when the state interns.
func (st *fastState) str(b []byte, s string) string {
	if string(b) == s {
		return s
	}
	if st.names != nil {
		return st.names.get(b)
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
		switch quoteFields.Index(k) {
		case 0:
			var b []byte
			b, err = d.Str()
			q.Symbol = st.str(b, key)
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

var tickFields = wire.NewFields("s", "ld", "t", "v", "te", "tu", "ts", "d")

func fastTick(st *fastState, key string) (Tick, error) {
	d := &st.d
	var t Tick
	if d.Null() {
		return t, nil
	}
	empty, err := d.Enter('{')
	if err != nil {
		return t, err
	}
	for more := !empty; more; {
		k, err := d.Key()
		if err != nil {
			return Tick{}, err
		}
		var n int
		switch tickFields.Index(k) {
		case 0:
			var b []byte
			b, err = d.Str()
			t.Symbol = st.str(b, key)
		case 1:
			t.Last, err = d.Num()
		case 2:
			t.Time, err = readMillis(d)
		case 3:
			t.Volume, err = d.Num()
		case 4:
			n, err = readInt(d)
			t.Session = TickSession(n)
		case 5:
			t.Turnover, err = d.Num()
		case 6:
			n, err = readInt(d)
			t.Status = TradingStatus(n)
		case 7:
			n, err = readInt(d)
			t.Direction = TradeDirection(n)
		default:
			err = d.Skip()
		}
		if err != nil {
			return Tick{}, err
		}
		if more, err = d.Next('}'); err != nil {
			return Tick{}, err
		}
	}
	return t, nil
}

var bookFields = wire.NewFields("s", "a", "b")

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
		switch bookFields.Index(k) {
		case 0:
			var b []byte
			b, err = d.Str()
			book.Symbol = st.str(b, key)
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
		switch levelFields.Index(k) {
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
		switch klineFields.Index(key) {
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

func unmarshalTick(b []byte, t *Tick) error {
	st := getState(b)
	v, err := fastTick(st, "")
	if err == nil {
		err = st.d.End()
	}
	putState(st)
	if err != nil {
		if v, err = tickFromWire(b); err != nil {
			return err
		}
	}
	*t = v
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
	if err := unmarshalNested(b, &w); err != nil {
		return Quote{}, err
	}
	return Quote{Symbol: string(w.S), Last: float64(w.Ld), Open: float64(w.O), PrevClose: float64(w.P),
		High: float64(w.H), Low: float64(w.L), Time: time.Time(w.T), Volume: float64(w.V),
		Turnover: float64(w.Tu), Status: int(w.TS), Change: float64(w.Ch), ChangePercent: float64(w.Chp)}, nil
}

func tickFromWire(b []byte) (Tick, error) {
	var w tickWire
	if err := unmarshalNested(b, &w); err != nil {
		return Tick{}, err
	}
	return Tick{Symbol: string(w.S), Last: float64(w.Ld), Time: time.Time(w.T), Volume: float64(w.V),
		Session: TickSession(w.Te), Turnover: float64(w.Tu), Status: TradingStatus(w.TS), Direction: TradeDirection(w.D)}, nil
}

func depthBookFromWire(b []byte) (DepthBook, error) {
	var w depthBookWire
	if err := unmarshalNested(b, &w); err != nil {
		return DepthBook{}, err
	}
	return DepthBook{Symbol: string(w.S), Asks: w.A, Bids: w.B}, nil
}

func depthLevelFromWire(b []byte) (DepthLevel, error) {
	var w depthLevelWire
	if err := unmarshalNested(b, &w); err != nil {
		return DepthLevel{}, err
	}
	return DepthLevel{Level: int(w.Po), Price: float64(w.P), Volume: float64(w.V), Orders: float64(w.O)}, nil
}

func klineFromWire(b []byte) (Kline, error) {
	var w klineWire
	if err := unmarshalNested(b, &w); err != nil {
		return Kline{}, err
	}
	return Kline{Time: time.Time(w.T), Open: float64(w.O), High: float64(w.H), Low: float64(w.L),
		Close: float64(w.C), Volume: float64(w.V), Turnover: float64(w.Tu)}, nil
}
