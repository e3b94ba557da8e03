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
	srv := markettest.NewServer()
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

// benchProducts is a spread of products as a server under load is asked
// about: every class, several markets, hundreds of codes, so the caches
// see a working set the size of a soak test's rather than one product.
func benchProducts() []struct {
	class  markettest.Class
	region itick.Region
	code   string
} {
	type prod = struct {
		class  markettest.Class
		region itick.Region
		code   string
	}
	var out []prod
	for i := range 100 {
		n := strconv.Itoa(i + 1)
		out = append(out,
			prod{markettest.Stock, itick.RegionHK, n},
			prod{markettest.Stock, itick.RegionUS, "S" + n},
			prod{markettest.Crypto, itick.RegionBA, "C" + n + "USDT"},
			prod{markettest.Forex, itick.RegionGB, "FX" + n},
			prod{markettest.Future, itick.RegionUS, "F" + n},
			prod{markettest.Fund, itick.RegionUS, "U" + n},
			prod{markettest.Indices, itick.RegionGB, "I" + n})
	}
	return out
}

// BenchmarkKlines asks for the latest 10 candles of each interval, one
// product after another from benchProducts, at a fixed instant (as the
// soak test does).
func BenchmarkKlines(b *testing.B) {
	products := benchProducts()
	for _, iv := range []itick.Interval{itick.OneMinute, itick.FifteenMinutes, itick.OneHour,
		itick.FourHours, itick.OneDay, itick.OneWeek, itick.OneMonth} {
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

// BenchmarkQuote asks for the quote of one product after another from
// benchProducts: at a fixed instant (the soak test's case), and with a
// clock that moves a second a call (a live server's, where the day's
// candle is still open and never the same twice).
func BenchmarkQuote(b *testing.B) {
	products := benchProducts()
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
