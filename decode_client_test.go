package itick

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/google/go-cmp/cmp"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "bench", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestModelsRoundTrip marshals every decoded model of the fixtures and
// decodes it back, through json.Unmarshal and the fast path alike.
func TestModelsRoundTrip(t *testing.T) {
	t.Parallel()
	var quotes map[string]Quote
	var books map[string]DepthBook
	var klines map[string][]Kline
	for name, out := range map[string]any{"quotes_50.json": &quotes, "depths_50.json": &books, "klines_10x500.json": &klines} {
		if err := decodeResponse("/test", 200, nil, readFixture(t, name), noRedact, out); err != nil {
			t.Fatal(err)
		}
	}
	roundTrip := func(name string, v any, back any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: marshal: %v", name, err)
		}
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatalf("%s: unmarshal %s: %v", name, b, err)
		}
	}
	var q2 map[string]Quote
	roundTrip("quotes", quotes, &q2)
	if diff := cmp.Diff(quotes, q2, bitsEqual); diff != "" {
		t.Errorf("quotes round trip (-before +after):\n%s", diff)
	}
	var b2 map[string]DepthBook
	roundTrip("depths", books, &b2)
	if diff := cmp.Diff(books, b2, bitsEqual); diff != "" {
		t.Errorf("depths round trip (-before +after):\n%s", diff)
	}
	var k2 map[string][]Kline
	roundTrip("klines", klines, &k2)
	if diff := cmp.Diff(klines, k2, bitsEqual); diff != "" {
		t.Errorf("klines round trip (-before +after):\n%s", diff)
	}
	// A marshalled model is a valid body for the fast path too.
	b, err := json.Marshal(map[string]any{"code": 0, "data": quotes})
	if err != nil {
		t.Fatal(err)
	}
	var q3 map[string]Quote
	if err := decodeResponse("/test", 200, nil, b, noRedact, &q3); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(quotes, q3, bitsEqual); diff != "" {
		t.Errorf("quotes through the fast path (-before +after):\n%s", diff)
	}
}

func TestDecodeDataNilTarget(t *testing.T) {
	t.Parallel()
	var nilMap *map[string]Quote
	err := decodeData([]byte(`{"a":{}}`), nilMap)
	var invalid *json.InvalidUnmarshalError
	if !errors.As(err, &invalid) {
		t.Errorf("got %v, want encoding/json's InvalidUnmarshalError", err)
	}
}

// decodeResponse is decodeBlocks over a body in one slice.
func decodeResponse(path string, status int, header http.Header, body []byte, red *redact.Redactor, out any) error {
	return decodeBlocks(path, status, header, [][]byte{body}, red, out)
}

// decodeBlocks decodes a response held in blocks into out, which points to
// one of the result types the SDK reads, with that type's reader, through
// the library's decode.
func decodeBlocks(path string, status int, header http.Header, blocks [][]byte, red *redact.Redactor, out any) error {
	return withReader(out, func(read any) error {
		return read.(func(decodeInput) error)(decodeInput{path: path, status: status, header: header, blocks: blocks, red: red})
	})
}

// decodeData decodes a response's data alone into out; null or nothing
// leaves out as it is.
func decodeData(raw []byte, out any) error {
	return withReader(out, func(read any) error {
		return read.(func(decodeInput) error)(decodeInput{blocks: [][]byte{raw}, bare: true})
	})
}

// decodeInput is one answer to decode, and where it came from; bare is data
// with no envelope around it.
type decodeInput struct {
	path   string
	status int
	header http.Header
	blocks [][]byte
	red    *redact.Redactor
	bare   bool
}

// withReader calls run with the decoder of out's type.
func withReader(out any, run func(read any) error) error {
	var read func(decodeInput) error
	switch p := out.(type) {
	case *map[string]Quote:
		read = into(p, quotesReader.Read)
	case *map[string]Tick:
		read = into(p, ticksReader.Read)
	case *map[string]DepthBook:
		read = into(p, booksReader.Read)
	case *map[string][]Kline:
		read = into(p, seriesReader.Read)
	case **Quote:
		read = into(p, quoteModel.Ptr)
	case **Tick:
		read = into(p, tickModel.Ptr)
	case **DepthBook:
		read = into(p, bookPtr)
	case **StockInfo:
		read = into(p, stockInfoModel.Ptr)
	case **NewsArticle:
		read = into(p, articleModel.Ptr)
	case *klineData:
		read = into(p, readKlineData)
	case *[]Symbol:
		read = into(p, symbolModel.List)
	case *[]Holiday:
		read = into(p, holidayModel.List)
	case *[]MarketStatus:
		read = into(p, readStatusList)
	case *SplitPage:
		read = into(p, valueOf(splitPageModel.Ptr))
	case *IPOPage:
		read = into(p, valueOf(ipoPageModel.Ptr))
	case *NewsPage:
		read = into(p, valueOf(newsPageModel.Ptr))
	default:
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(out)}
	}
	return run(read)
}

// valueOf reads a value where read gives a pointer to one.
func valueOf[T any](read codec.Reader[*T]) codec.Reader[T] {
	return func(st *codec.State) (T, error) {
		var zero T
		p, err := read(st)
		if p == nil || err != nil {
			return zero, err
		}
		return *p, nil
	}
}

// into returns the decoder that stores what read gives in out.
func into[T any](out *T, read codec.Reader[T]) func(decodeInput) error {
	return func(in decodeInput) error {
		if out == nil {
			return &json.InvalidUnmarshalError{Type: reflect.TypeOf(out)}
		}
		if in.bare {
			return decodeBare(in.blocks[0], out, read)
		}
		v, err := decode(in.path, in.status, in.header, in.blocks, in.red, read)
		if err == nil {
			*out = v
		}
		return err
	}
}

// decodeBare decodes data with no envelope around it.
func decodeBare[T any](data []byte, out *T, read codec.Reader[T]) error {
	st := codec.Get(data)
	defer codec.Put(st)
	if len(data) == 0 {
		return nil
	}
	if st.D.Null() {
		return st.D.End()
	}
	v, err := read(st)
	if err == nil {
		err = st.D.End()
	}
	if err != nil {
		return err
	}
	*out = v
	return nil
}

// noRedact removes nothing but still bounds, as a client with no token.
var noRedact *redact.Redactor
