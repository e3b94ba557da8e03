package markettest_test

import (
	"strconv"
	"testing"

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
