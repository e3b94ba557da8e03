package main

import (
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

// benchCandles are two years of minute candles of 20 US stocks, as the
// simulator has them: about 3.9 million, made once per test binary.
var benchCandles = sync.OnceValues(func() ([]itick.Product, map[itick.Product][]itick.Kline) {
	gen := markettest.NewGenerator(1)
	to := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	from := to.AddDate(-2, 0, 0)
	var products []itick.Product
	candles := map[itick.Product][]itick.Kline{}
	for i := range 20 {
		p := itick.Product{Class: itick.AssetStock, Region: itick.RegionUS, Code: "S" + strconv.Itoa(100+i)}
		products = append(products, p)
		candles[p] = gen.Series(markettest.Stock, p.Region, p.Code, itick.OneMinute, from, to, to)
	}
	return products, candles
})

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkWriteCandles writes two years of minute candles of 20 codes in
// one run, as klines does: CSV through the token's redactor (what stdout
// gets), CSV alone, and Parquet (zstd). It reports candles a second and
// bytes a candle.
//
//	cd cmd/itick && go test -run '^$' -bench WriteCandles -benchtime 3x
func BenchmarkWriteCandles(b *testing.B) {
	products, candles := benchCandles()
	total := countKlines(candles)
	a := &app{sig: &interrupts{}}
	for _, c := range []struct {
		name string
		sink func(w io.Writer) klineSink
	}{
		{"csv", func(w io.Writer) klineSink {
			r := newLineRedactor(w, "a-token-of-thirty-two-characters")
			return flushing{newKlineSink(r, formatCSV, itick.OneMinute, ""), r}
		}},
		{"csv-unredacted", func(w io.Writer) klineSink { return newKlineSink(w, formatCSV, itick.OneMinute, "") }},
		{"parquet", func(w io.Writer) klineSink { return newKlineSink(w, formatParquet, itick.OneMinute, "") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var out countingWriter
			for b.Loop() {
				out.n = 0
				n, err := a.writeCandles(c.sink(&out), products, candles, false)
				if err != nil || n != total {
					b.Fatalf("wrote %d of %d candles: %v", n, total, err)
				}
			}
			b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "candles/s")
			b.ReportMetric(float64(out.n)/float64(total), "B/candle")
			b.ReportMetric(float64(total), "candles")
		})
	}
}

// flushing closes a sink, then flushes the redactor under it.
type flushing struct {
	klineSink
	r *lineRedactor
}

func (f flushing) Close() error {
	err := f.klineSink.Close()
	f.r.Flush()
	return err
}
