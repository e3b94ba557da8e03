package itick

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The large bodies under testdata/bench that the decoding benchmarks read,
// generated with -update.

var update = flag.Bool("update", false, "rewrite the generated fixtures under testdata/bench")

// TestGenerateBenchFixtures writes the benchmark bodies under testdata/bench
// when run with -update. They are whole envelopes shaped like the service's
// answers: whole prices as JSON integers, fractional volumes, short keys.
func TestGenerateBenchFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/bench")
	}
	dir := filepath.Join("testdata", "bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"quotes_50.json":     genQuotes(50),
		"depths_50.json":     genDepths(50, 10),
		"klines_10x500.json": genKlines(10, 500),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// benchCodes are stock-like codes: numeric Hong Kong codes and tickers.
func benchCodes(n int) []string {
	tickers := []string{"AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOGL", "META", "BRK.B", "JPM", "V"}
	codes := make([]string, 0, n)
	for i := 0; len(codes) < n; i++ {
		if i%3 == 2 && i/3 < len(tickers) {
			codes = append(codes, tickers[i/3])
			continue
		}
		codes = append(codes, strconv.Itoa(700+i*37))
	}
	return codes
}

// price rounds to a tick of 0.01, 0.05 or 0.5 so that many prices are whole
// numbers and travel as JSON integers.
func price(r *rand.Rand, base float64) float64 {
	ticks := []float64{0.01, 0.05, 0.5, 1}
	tick := ticks[r.IntN(len(ticks))]
	return math.Round(base/tick) * tick
}

func appendRounded(b []byte, f float64, prec int) []byte {
	f = math.Round(f*math.Pow10(prec)) / math.Pow10(prec)
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

func appendField(b []byte, key string, f float64, prec int) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendRounded(b, f, prec)
}

func envelopeStart() []byte { return []byte(`{"code":0,"msg":null,"data":{`) }

func genQuotes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 50))
	b := envelopeStart()
	for i, code := range benchCodes(n) {
		if i > 0 {
			b = append(b, ',')
		}
		last := price(r, 5+r.Float64()*600)
		prev := price(r, last*(0.95+r.Float64()*0.1))
		b = strconv.AppendQuote(b, code)
		b = append(b, `:{"s":`...)
		b = strconv.AppendQuote(b, code)
		b = appendField(b, "ld", last, 3)
		b = appendField(b, "o", price(r, prev*(0.99+r.Float64()*0.02)), 3)
		b = appendField(b, "p", prev, 3)
		b = appendField(b, "h", price(r, math.Max(last, prev)*1.01), 3)
		b = appendField(b, "l", price(r, math.Min(last, prev)*0.99), 3)
		b = appendField(b, "t", float64(1765526889000+int64(i)*1371), 0)
		vol := float64(r.IntN(30_000_000))
		if i%4 == 3 {
			vol += float64(r.IntN(1000)) / 1000
		}
		b = appendField(b, "v", vol, 3)
		b = appendField(b, "tu", vol*last, 2)
		b = appendField(b, "ts", 0, 0)
		b = appendField(b, "ch", last-prev, 3)
		b = appendField(b, "chp", (last-prev)/prev*100, 2)
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func genDepths(n, levels int) []byte {
	r := rand.New(rand.NewPCG(2, 50))
	b := envelopeStart()
	for i, code := range benchCodes(n) {
		if i > 0 {
			b = append(b, ',')
		}
		mid := price(r, 5+r.Float64()*600)
		step := 0.05
		if mid > 100 {
			step = 0.5
		}
		b = strconv.AppendQuote(b, code)
		b = append(b, `:{"s":`...)
		b = strconv.AppendQuote(b, code)
		for side, key := range []string{"a", "b"} {
			b = append(b, `,"`...)
			b = append(b, key...)
			b = append(b, `":[`...)
			for lv := 1; lv <= levels; lv++ {
				if lv > 1 {
					b = append(b, ',')
				}
				p := mid + float64(lv)*step
				if side == 1 {
					p = mid - float64(lv-1)*step
				}
				vol := float64(100 * (1 + r.IntN(500)))
				orders := float64(1 + r.IntN(40))
				if i%5 == 4 { // crypto-like: fractional volumes and order counts
					vol = float64(r.IntN(200000)) / 10000
					orders = vol
				}
				b = append(b, `{"po":`...)
				b = strconv.AppendInt(b, int64(lv), 10)
				b = appendField(b, "p", p, 3)
				b = appendField(b, "v", vol, 4)
				b = appendField(b, "o", orders, 4)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

func genKlines(n, bars int) []byte {
	r := rand.New(rand.NewPCG(3, 50))
	b := envelopeStart()
	for i, code := range benchCodes(n) {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, code)
		b = append(b, `:[`...)
		c := price(r, 5+r.Float64()*600)
		t0 := int64(1765526880000) - int64(bars)*60000
		for k := 0; k < bars; k++ {
			if k > 0 {
				b = append(b, ',')
			}
			o := c
			c = price(r, o*(0.995+r.Float64()*0.01))
			h := price(r, math.Max(o, c)*(1+r.Float64()*0.002))
			l := price(r, math.Min(o, c)*(1-r.Float64()*0.002))
			vol := float64(r.IntN(500000)) + float64(r.IntN(100))/100
			b = append(b, `{"t":`...)
			b = strconv.AppendInt(b, t0+int64(k)*60000, 10)
			b = appendField(b, "o", o, 3)
			b = appendField(b, "h", h, 3)
			b = appendField(b, "l", l, 3)
			b = appendField(b, "c", c, 3)
			b = appendField(b, "v", vol, 2)
			b = appendField(b, "tu", vol*(o+c)/2, 2)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}}"...)
}
