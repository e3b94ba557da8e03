package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sync"

	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// The decode path: one reader per result type over the wire scanner, built
// from the models' field tables (codec.go). Each accepts and refuses
// exactly what encoding/json does through the wire structs the tests keep
// (decode_equiv_test.go and FuzzDecodeEquivalence hold them to it), writes
// nothing on error, and allocates only what the result keeps.

var (
	errNotInteger = errors.New("itick: not an integer")
	errTimeRange  = errors.New("itick: timestamp out of range")
	errNotBool    = errors.New("itick: not a boolean")
	errNotYear    = errors.New("itick: not a year")
	errNotDates   = errors.New("itick: not a list of dates")
)

// fastState is the scratch one decode reuses: the scanner, the hot models'
// values, and buffers that results are built in before being copied out
// at their final size.
type fastState struct {
	d      wire.Decoder
	levels []DepthLevel
	klines []Kline
	quotes []keyed[Quote]
	ticks  []keyed[Tick]
	books  []keyed[DepthBook]
	series []keyed[[]Kline]

	quote      Quote
	tick       Tick
	level      DepthLevel
	kline      Kline
	book       DepthBook
	asks, bids levelSpan

	names interner // nil: no interning (a pooled state)
}

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
	clear(st.ticks)
	clear(st.books)
	clear(st.series)
	st.quotes, st.ticks, st.books, st.series = st.quotes[:0], st.ticks[:0], st.books[:0], st.series[:0]
	st.quote, st.tick, st.book = Quote{}, Tick{}, DepthBook{}
	if cap(st.levels) > maxScratch || cap(st.klines) > maxScratch || cap(st.quotes) > maxScratch ||
		cap(st.ticks) > maxScratch || cap(st.books) > maxScratch || cap(st.series) > maxScratch {
		return
	}
	statePool.Put(st)
}

// decodeInput is one HTTP answer to decode, and where it came from.
type decodeInput struct {
	path   string
	status int
	header http.Header
	body   *bodyBlocks
	red    *redact.Redactor
	bare   bool // body is the data alone, with no envelope
}

// bodyBlocks is a body as the transport read it: in blocks, which the
// decoder reads as they are. Only a failure's evidence needs the body in
// one slice, so only a failure pays for joining them.
type bodyBlocks struct {
	blocks [][]byte
	joined []byte
}

func oneBlock(b []byte) *bodyBlocks { return &bodyBlocks{blocks: [][]byte{b}, joined: b} }

// bytes returns the body in one slice, joining its blocks the first time.
func (b *bodyBlocks) bytes() []byte {
	if b.joined == nil {
		b.joined = bytes.Join(b.blocks, nil)
	}
	return b.joined
}

// decodeBlocks is the single path from a response body, in the blocks it
// was read in, to the SDK's types: the envelope's success rule, then the
// data into out, read in one pass. A body the decoder refuses is an
// *APIError saying where and why.
func decodeBlocks(path string, status int, header http.Header, blocks [][]byte, red *redact.Redactor, out any) error {
	return decodeTo(decodeInput{path: path, status: status, header: header, body: &bodyBlocks{blocks: blocks}, red: red}, out)
}

// decodeTo picks out's reader. Every result type the SDK asks for has one.
func decodeTo(in decodeInput, out any) error {
	switch p := out.(type) {
	case *map[string]Quote:
		return run(in, p, readQuotes)
	case *map[string]Tick:
		return run(in, p, readTicks)
	case *map[string]DepthBook:
		return run(in, p, readBooks)
	case *map[string][]Kline:
		return run(in, p, readSeriesMap)
	case **Quote:
		return run(in, p, readQuotePtr)
	case **Tick:
		return run(in, p, readTickPtr)
	case **DepthBook:
		return run(in, p, readBookPtr)
	case **StockInfo:
		return run(in, p, readStockInfoPtr)
	case **NewsArticle:
		return run(in, p, readArticlePtr)
	case *klineData:
		return run(in, p, readKlineData)
	case *[]Symbol:
		return run(in, p, readSymbols)
	case *[]Holiday:
		return run(in, p, readHolidays)
	case *statusList:
		return run(in, p, readStatusList)
	case *SplitPage:
		return run(in, p, readSplitPage)
	case *IPOPage:
		return run(in, p, readIPOPage)
	case *NewsPage:
		return run(in, p, readNewsPage)
	}
	return &json.InvalidUnmarshalError{Type: reflect.TypeOf(out)}
}

func run[T any](in decodeInput, out *T, read func(*fastState) (T, error)) error {
	if out == nil {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(out)}
	}
	if in.bare {
		return decodeBare(in.body.bytes(), out, read)
	}
	return respond(in, out, read)
}

// respond reads the envelope, decoding its data on the way, applies the
// success rule and only then stores the data in out.
func respond[T any](in decodeInput, out *T, read func(*fastState) (T, error)) error {
	if in.status < 200 || in.status > 299 {
		read = nil // failing anyway: only the envelope matters
	}
	st := getState(nil)
	st.d.ResetBlocks(in.body.blocks)
	defer putState(st)
	var e scannedEnvelope
	v, err := scanEnvelope(st, &e, read)
	if err := checkEnvelope(in.path, in.status, in.header, in.body, in.red, &e, err); err != nil {
		return err
	}
	if e.dataErr != nil {
		return dataError(in.path, in.status, in.header, in.body.bytes(), nil, e.dataErr, in.red)
	}
	if e.parsed {
		*out = v
	}
	return nil
}

// decodeBare decodes data with no envelope around it.
func decodeBare[T any](data []byte, out *T, read func(*fastState) (T, error)) error {
	st := getState(data)
	defer putState(st)
	if len(data) == 0 {
		return nil
	}
	if st.d.Null() {
		return st.d.End()
	}
	v, err := read(st)
	if err == nil {
		err = st.d.End()
	}
	if err != nil {
		return err
	}
	*out = v
	return nil
}

// unmarshalWith is a model's UnmarshalJSON over a reader of its own.
func unmarshalWith[T any](b []byte, v *T, read func(*fastState, string) (T, error)) error {
	st := getState(b)
	defer putState(st)
	got, err := read(st, "")
	if err == nil {
		err = st.d.End()
	}
	if err != nil {
		return withBuffer(b, err)
	}
	*v = got
	return nil
}
