package itick

import (
	"errors"
	"net/http"
	"sync"

	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// The fast path: hand-written decoders for the SDK's batch results over the
// wire scanner. Each accepts and refuses exactly what encoding/json does
// through the wire types in decode.go (decode_equiv_test.go and
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
	names  interner // nil: no interning (a pooled state)
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
func fastResponse(path string, status int, header http.Header, body []byte, red *redact.Redactor, out any) (refused bool, err error) {
	kind := fastKindOf(out)
	if status < 200 || status > 299 {
		kind = kindNone // failing anyway: only the envelope matters
	}
	st := getState(body)
	defer putState(st)
	var e scannedEnvelope
	if err := scanEnvelope(st, kind, &e); err != nil {
		return true, err
	}
	env := e.envelope()
	data, err := checkEnvelope(path, status, header, body, red, &env, nil)
	if err != nil {
		return false, err
	}
	if e.parsed {
		st.commit(kind, out)
		return false, nil
	}
	if err := decodeData(data, out); err != nil {
		return false, dataError(path, status, header, body, data, err, red)
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
