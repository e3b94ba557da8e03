package itick_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/codec"
)

// The baselines decode the same bodies with encoding/json into plain
// structs of the same fields: no tolerance of strings, nulls or stray types.
type plainQuote struct {
	S   string  `json:"s"`
	Ld  float64 `json:"ld"`
	O   float64 `json:"o"`
	P   float64 `json:"p"`
	H   float64 `json:"h"`
	L   float64 `json:"l"`
	T   int64   `json:"t"`
	V   float64 `json:"v"`
	Tu  float64 `json:"tu"`
	TS  int64   `json:"ts"`
	Ch  float64 `json:"ch"`
	Chp float64 `json:"chp"`
}

type plainDepthLevel struct {
	Po int64   `json:"po"`
	P  float64 `json:"p"`
	V  float64 `json:"v"`
	O  float64 `json:"o"`
}

type plainDepthBook struct {
	S string            `json:"s"`
	A []plainDepthLevel `json:"a"`
	B []plainDepthLevel `json:"b"`
}

type plainKline struct {
	T  int64   `json:"t"`
	O  float64 `json:"o"`
	H  float64 `json:"h"`
	L  float64 `json:"l"`
	C  float64 `json:"c"`
	V  float64 `json:"v"`
	Tu float64 `json:"tu"`
}

type plainEnvelope[T any] struct {
	Code int     `json:"code"`
	Msg  *string `json:"msg"`
	Data T       `json:"data"`
}

func benchBody(b *testing.B, name string) []byte {
	b.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "bench", name))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// benchDecode runs the SDK's decode path and the encoding/json baseline
// over the same body, each checking that it got want entries.
func benchDecode[T any, P any](b *testing.B, file, path string, want int, read codec.Reader[T], n func(T) int, pn func(P) int) {
	body := benchBody(b, file)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			// A nil redactor removes nothing but still bounds, as a client
			// with no token.
			out, err := itick.Decode(path, 200, nil, [][]byte{body}, nil, read)
			if err != nil {
				b.Fatal(err)
			}
			if n(out) != want {
				b.Fatalf("got %d entries, want %d", n(out), want)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var env plainEnvelope[P]
			if err := json.Unmarshal(body, &env); err != nil {
				b.Fatal(err)
			}
			if pn(env.Data) != want {
				b.Fatalf("got %d entries, want %d", pn(env.Data), want)
			}
		}
	})
}

func BenchmarkDecodeQuotes(b *testing.B) {
	benchDecode(b, "quotes_50.json", "/stock/quotes", 50, itick.QuotesReader,
		func(m map[string]itick.Quote) int { return len(m) },
		func(m map[string]plainQuote) int { return len(m) })
}

func BenchmarkDecodeDepths(b *testing.B) {
	benchDecode(b, "depths_50.json", "/stock/depths", 50, itick.BooksReader,
		func(m map[string]itick.DepthBook) int { return len(m) },
		func(m map[string]plainDepthBook) int { return len(m) })
}

func BenchmarkDecodeKlines(b *testing.B) {
	benchDecode(b, "klines_10x500.json", "/stock/klines", 10, itick.SeriesReader,
		func(m map[string][]itick.Kline) int { return len(m) },
		func(m map[string][]plainKline) int { return len(m) })
}
