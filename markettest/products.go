package markettest

import (
	"net/url"
	"slices"
	"strings"

	"github.com/d19c4e34/itick"
)

// The products the simulator serves. Each asset class trades in the
// regions the service's documentation shows for it (SERVICE.md,
// SERVICE-EXTRA.md), and each market writes its codes in its own form.
// A product of a region its class does not have, or whose code is not
// of its market's form, does not exist: a request for it is refused with
// E001 (a batch leaves it out), and the stream refuses to subscribe to it,
// as the service answers a product it does not know. Any code of the
// right form exists, with made-up but consistent data, so tests may use
// codes of their own such as "S042" in US.

// regionInfo is what the simulator knows of one region.
type regionInfo struct {
	region   itick.Region
	classes  []Class
	exchange string   // its main stock exchange; "": the region's code stands in
	currency string   // its stocks' currency; "": USD
	stocks   codeForm // the form of its stock codes, when it has stocks
}

// regions is the one table of the regions the simulator serves.
var regions = []regionInfo{
	{"HK", []Class{Stock, Future}, "HKEX", "HKD", stockCodes},
	{"SH", []Class{Stock}, "SSE", "CNY", stockCodes},
	{"SZ", []Class{Stock}, "SZSE", "CNY", stockCodes},
	{"US", []Class{Stock, Future, Fund}, "NASDAQ", "USD", usCodes},
	{"SG", []Class{Stock}, "SGX", "SGD", stockCodes},
	{"JP", []Class{Stock}, "TSE", "JPY", stockCodes},
	{"TW", []Class{Stock}, "TWSE", "TWD", stockCodes},
	{"IN", []Class{Stock}, "NSE", "INR", codeForm{max: 10, inner: ".-&"}}, // "BAJAJ-AUTO", "M&M"
	{"TH", []Class{Stock}, "", "", stockCodes},
	{"DE", []Class{Stock}, "XETRA", "EUR", stockCodes},
	{"MX", []Class{Stock}, "", "", stockCodes},
	{"MY", []Class{Stock}, "", "", stockCodes},
	{"TR", []Class{Stock}, "", "", stockCodes},
	{"ES", []Class{Stock}, "", "EUR", stockCodes},
	{"NL", []Class{Stock}, "", "EUR", stockCodes},
	{"GB", []Class{Stock, Forex, Indices}, "LSE", "GBP", stockCodes},
	{"ID", []Class{Stock}, "", "", stockCodes},
	{"VN", []Class{Stock}, "", "", stockCodes},
	{"IT", []Class{Stock}, "", "", stockCodes},
	{"CN", []Class{Future}, "", "", codeForm{}},
	{"BA", []Class{Crypto}, "", "", codeForm{}},
	{"BT", []Class{Crypto}, "", "", codeForm{}},
	{"PB", []Class{Crypto}, "", "", codeForm{}},
}

// The code forms: of US stocks and funds, of the other stock markets, and
// of the classes whose codes look alike in every region.
var (
	usCodes    = codeForm{max: 5, shareClass: true} // "AAPL", "BRK.B"
	stockCodes = codeForm{max: 8, inner: ".-"}      // "700", "600519", "BT.A"
	classCodes = map[Class]codeForm{
		Crypto:  {max: 16, quotes: []string{"USDT", "USDC", "FDUSD", "BUSD", "USD", "BTC", "ETH", "BNB", "EUR"}},
		Forex:   {max: 6}, // two currencies: "EURUSD", "XAUUSD"
		Indices: {max: 8}, // "HSI", "N225", "000300"
		Future:  {max: 8}, // a root and maybe a month: "GC", "HSI2512"
		Fund:    usCodes,
	}
)

// codeForm is the form of a market's codes, in upper case: one letter or
// digit, then up to max-1 letters, digits and the inner characters it
// allows; a US share class (".B", "-A") does not count, and a crypto pair
// ends in a quote asset after its base.
type codeForm struct {
	max        int
	inner      string
	shareClass bool
	quotes     []string
}

// fits reports whether code, in upper case, is of the form.
func (f codeForm) fits(code string) bool {
	if i := strings.LastIndexAny(code, ".-"); f.shareClass && i > 0 && len(code)-i-1 <= 2 && onlyLetters(code[i+1:]) {
		code = code[:i]
	}
	if code == "" || len(code) > f.max {
		return false
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') && (i == 0 || strings.IndexByte(f.inner, c) < 0) {
			return false
		}
	}
	if f.quotes == nil {
		return true
	}
	for _, q := range f.quotes {
		if base, ok := strings.CutSuffix(code, q); ok && base != "" {
			return true
		}
	}
	return false
}

func onlyLetters(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// regionOf returns what the simulator knows of region, in any case.
func regionOf(region itick.Region) (*regionInfo, bool) {
	r := itick.Region(strings.ToUpper(strings.TrimSpace(string(region))))
	for i := range regions {
		if regions[i].region == r {
			return &regions[i], true
		}
	}
	return nil, false
}

// Regions returns the regions of an asset class the simulator serves, as
// the service's documentation lists them: stocks in HK, SH, SZ, US and
// fifteen more markets, crypto in BA, BT and PB, futures in US, HK and CN,
// funds in US, forex and indices in GB. A request for any other region of
// the class is refused with E001.
func Regions(class Class) []itick.Region {
	var out []itick.Region
	for _, r := range regions {
		if slices.Contains(r.classes, class) {
			out = append(out, r.region)
		}
	}
	return out
}

// hasRegion reports whether class trades in region.
func hasRegion(class Class, region itick.Region) bool {
	r, ok := regionOf(region)
	return ok && slices.Contains(r.classes, class)
}

// Exists reports whether the simulator serves a product: its region is
// one of the class's (Regions) and its code, in any case, has the form of
// that market's codes, such as up to five letters or digits in US ("AAPL",
// "C042", "BRK.B") or a pair ending in a quote asset for crypto
// ("BTCUSDT"); the package doc lists the forms. For any other product REST
// answers E001, a batch leaves it out and the stream refuses it.
func Exists(class Class, region itick.Region, code string) bool {
	r, ok := regionOf(region)
	if !ok || !slices.Contains(r.classes, class) {
		return false
	}
	code = strings.ToUpper(strings.TrimSpace(code))
	if class == Stock {
		return r.stocks.fits(code)
	}
	return classCodes[class].fits(code)
}

// exchangeOf names a region's main stock exchange, for synthetic listings.
func exchangeOf(region itick.Region) string {
	if r, ok := regionOf(region); ok && r.exchange != "" {
		return r.exchange
	}
	return string(region)
}

// currencyOf is the currency of a region's stocks.
func currencyOf(region itick.Region) string {
	if r, ok := regionOf(region); ok && r.currency != "" {
		return r.currency
	}
	return "USD"
}

// classes are the asset classes, in the order of the service's paths.
var classes = []Class{Stock, Forex, Indices, Crypto, Future, Fund}

// requestClass is the asset class a request asks about: its route's, or
// for the symbol endpoints the class its type names; "" for none.
func requestClass(rt *route, q url.Values) Class {
	if rt.class != "" {
		return rt.class
	}
	if c := Class(q.Get("type")); (rt.path == "/symbol/list" || rt.path == "/symbol/info") && slices.Contains(classes, c) {
		return c
	}
	return ""
}

// unknown reports a request for a region its class does not have, or for
// one product (a code) that does not exist: the service answers both with
// E001. A batch's unknown codes are left out of its data instead.
func unknown(rt *route, q url.Values) bool {
	class := requestClass(rt, q)
	if class == "" || !q.Has("region") {
		return false
	}
	region := itick.Region(q.Get("region"))
	if !hasRegion(class, region) {
		return true
	}
	return rt.class != "" && q.Has("code") && !Exists(class, region, q.Get("code"))
}
