package markettest_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/markettest"
)

func BenchmarkGeneratorQuote(b *testing.B) {
	g := markettest.NewGenerator(1)
	for b.Loop() {
		g.Quote(markettest.Stock, itick.RegionUS, "AAPL", fixedNow)
	}
}

func BenchmarkGeneratorKlines1000(b *testing.B) {
	g := markettest.NewGenerator(1)
	for b.Loop() {
		g.Klines(markettest.Crypto, itick.RegionBA, "BTCUSDT", itick.OneMinute, 1000, fixedNow, fixedNow)
	}
}

// BenchmarkServerBatchQuotes is one SDK call for 500 codes, 50 requests of 10.
func BenchmarkServerBatchQuotes(b *testing.B) {
	srv := markettest.NewServer(markettest.WithFixedClock(fixedNow))
	defer srv.Close()
	client, err := srv.Client()
	if err != nil {
		b.Fatal(err)
	}
	codes := make([]string, 500)
	for i := range codes {
		codes[i] = "S" + strconv.Itoa(i)
	}
	for b.Loop() {
		if _, err := client.Stock.Quotes(b.Context(), itick.RegionUS, codes); err != nil {
			b.Fatal(err)
		}
	}
}

// benchProduct is a product as the generator is asked about it.
type benchProduct struct {
	class  markettest.Class
	region itick.Region
	code   string
}

// benchProducts returns n products of each class, over several markets,
// named by prefix: a spread as a server under load is asked about, so
// the caches see more than one product.
func benchProducts(prefix string, n int) []benchProduct {
	var out []benchProduct
	for i := range n {
		c := prefix + strconv.Itoa(i+1)
		out = append(out,
			benchProduct{markettest.Stock, itick.RegionHK, c},
			benchProduct{markettest.Stock, itick.RegionUS, "S" + c},
			benchProduct{markettest.Crypto, itick.RegionBA, "C" + c + "USDT"},
			benchProduct{markettest.Forex, itick.RegionGB, "FX" + c},
			benchProduct{markettest.Future, itick.RegionUS, "F" + c},
			benchProduct{markettest.Fund, itick.RegionUS, "U" + c},
			benchProduct{markettest.Indices, itick.RegionGB, "I" + c})
	}
	return out
}

var benchIntervals = []itick.Interval{itick.OneMinute, itick.FifteenMinutes, itick.OneHour,
	itick.FourHours, itick.OneDay, itick.OneWeek, itick.OneMonth}

// BenchmarkKlines asks for the latest 10 candles of an interval at a
// fixed instant (as the soak test does), going round 70 products: after
// the first round, every candle has been asked for before.
func BenchmarkKlines(b *testing.B) {
	products := benchProducts("", 10)
	for _, iv := range benchIntervals {
		b.Run(iv.String(), func(b *testing.B) {
			g := markettest.NewGenerator(1)
			i := 0
			for b.Loop() {
				p := products[i%len(products)]
				g.Klines(p.class, p.region, p.code, iv, 10, fixedNow, fixedNow)
				i++
			}
		})
	}
}

// BenchmarkKlinesCold is BenchmarkKlines with a product never asked about
// before in every call, so no candle is in a cache yet.
func BenchmarkKlinesCold(b *testing.B) {
	for _, iv := range benchIntervals {
		b.Run(iv.String(), func(b *testing.B) {
			g := markettest.NewGenerator(1)
			i := 0
			for b.Loop() {
				p := benchProducts("N"+strconv.Itoa(i/7)+"-", 1)[i%7]
				g.Klines(p.class, p.region, p.code, iv, 10, fixedNow, fixedNow)
				i++
			}
		})
	}
}

// BenchmarkQuote asks for the quote of one product after another of 700:
// at a fixed instant (the soak test's case), and with a clock that moves
// a second a call (a live server's, where the day's candle is still open
// and never the same twice).
func BenchmarkQuote(b *testing.B) {
	products := benchProducts("", 100)
	b.Run("fixed", func(b *testing.B) {
		g := markettest.NewGenerator(1)
		i := 0
		for b.Loop() {
			p := products[i%len(products)]
			g.Quote(p.class, p.region, p.code, fixedNow)
			i++
		}
	})
	b.Run("moving", func(b *testing.B) {
		g := markettest.NewGenerator(1)
		i := 0
		for b.Loop() {
			p := products[i%len(products)]
			g.Quote(p.class, p.region, p.code, fixedNow.Add(time.Duration(i)*time.Second))
			i++
		}
	})
}

// BenchmarkDailyHistory is two years of daily candles for 320 products,
// what a test of a backfill asks a fresh server for: every candle is
// built, none is in a cache yet. One op is all 320 series. Besides the
// time, it reports the CPU time an op takes (cpu-ms/op), which other work
// on a busy machine does not inflate.
func BenchmarkDailyHistory(b *testing.B) {
	now := time.Date(2025, 6, 2, 14, 30, 0, 0, time.UTC)
	from := now.AddDate(-2, 0, 0)
	for _, m := range []struct {
		name   string
		class  markettest.Class
		region itick.Region
	}{
		{"us-stocks", markettest.Stock, itick.RegionUS},
		{"hk-stocks", markettest.Stock, itick.RegionHK},
		{"crypto", markettest.Crypto, itick.RegionBA},
		{"forex", markettest.Forex, itick.RegionGB},
	} {
		b.Run(m.name, func(b *testing.B) {
			candles := 0
			cpu0, ok := cpuTime()
			for b.Loop() {
				g := markettest.NewGenerator(1)
				candles = 0
				for i := range 320 {
					candles += len(g.Series(m.class, m.region, "P"+strconv.Itoa(i), itick.OneDay, from, now, now))
				}
			}
			if cpu1, ok1 := cpuTime(); ok && ok1 {
				b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			}
			b.ReportMetric(float64(candles), "candles/op")
		})
	}
}
