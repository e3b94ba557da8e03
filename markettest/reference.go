package markettest

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// The E001 refusal the service sends for a product or article it does not know.
const (
	CodeNotFound = 1
	MsgNotFound  = "E001 not found this produce"
)

func notFound() error { return &envelopeError{code: CodeNotFound, msg: MsgNotFound} }

// listing is one entry of the symbol list.
type listing struct{ code, name, exchange, short string }

// Curated lists, so familiar markets list familiar names.
var (
	usStocks = []listing{
		{"AAPL", "Apple Inc.", "NASDAQ", "Apple"}, {"MSFT", "Microsoft Corporation", "NASDAQ", "Microsoft"},
		{"NVDA", "NVIDIA Corporation", "NASDAQ", "NVIDIA"}, {"AMZN", "Amazon.com, Inc.", "NASDAQ", "Amazon"},
		{"GOOGL", "Alphabet Inc. Class A", "NASDAQ", "Alphabet A"}, {"META", "Meta Platforms, Inc.", "NASDAQ", "Meta"},
		{"TSLA", "Tesla, Inc.", "NASDAQ", "Tesla"}, {"BRK.B", "Berkshire Hathaway Inc. Class B", "NYSE", "Berkshire B"},
		{"JPM", "JPMorgan Chase & Co.", "NYSE", "JPMorgan"}, {"KO", "The Coca-Cola Company", "NYSE", "Coca-Cola"},
	}
	hkStocks = []listing{
		{"700", "Tencent Holdings Ltd.", "HKEX", "Tencent"}, {"9988", "Alibaba Group Holding Ltd.", "HKEX", "Alibaba"},
		{"5", "HSBC Holdings plc", "HKEX", "HSBC"}, {"1810", "Xiaomi Corporation", "HKEX", "Xiaomi"},
		{"3690", "Meituan", "HKEX", "Meituan"}, {"1299", "AIA Group Ltd.", "HKEX", "AIA"},
		{"941", "China Mobile Ltd.", "HKEX", "China Mobile"}, {"388", "Hong Kong Exchanges and Clearing Ltd.", "HKEX", "HKEX"},
	}
	cryptoPairs = []listing{
		{"BTCUSDT", "Bitcoin / Tether", "", "BTC"}, {"ETHUSDT", "Ethereum / Tether", "", "ETH"},
		{"SOLUSDT", "Solana / Tether", "", "SOL"}, {"BNBUSDT", "BNB / Tether", "", "BNB"},
		{"XRPUSDT", "XRP / Tether", "", "XRP"}, {"DOGEUSDT", "Dogecoin / Tether", "", "DOGE"},
		{"ADAUSDT", "Cardano / Tether", "", "ADA"},
	}
	forexPairs = []listing{
		{"EURUSD", "Euro / US Dollar", "", "EUR/USD"}, {"GBPUSD", "British Pound / US Dollar", "", "GBP/USD"},
		{"USDJPY", "US Dollar / Japanese Yen", "", "USD/JPY"}, {"AUDUSD", "Australian Dollar / US Dollar", "", "AUD/USD"},
		{"USDCHF", "US Dollar / Swiss Franc", "", "USD/CHF"}, {"USDCAD", "US Dollar / Canadian Dollar", "", "USD/CAD"},
		{"NZDUSD", "New Zealand Dollar / US Dollar", "", "NZD/USD"}, {"EURGBP", "Euro / British Pound", "", "EUR/GBP"},
	}
	indexList = []listing{
		{"HSI", "Hang Seng Index", "", "Hang Seng"}, {"SPX", "S&P 500 Index", "", "S&P 500"},
		{"DJI", "Dow Jones Industrial Average", "", "Dow Jones"}, {"IXIC", "NASDAQ Composite Index", "", "Nasdaq"},
		{"UKX", "FTSE 100 Index", "", "FTSE 100"}, {"N225", "Nikkei 225", "", "Nikkei"}, {"DAX", "DAX 40 Index", "", "DAX"},
	}
	futureList = []listing{
		{"GC", "Gold Futures", "COMEX", "Gold"}, {"SI", "Silver Futures", "COMEX", "Silver"},
		{"CL", "Crude Oil WTI Futures", "NYMEX", "WTI"}, {"ES", "E-mini S&P 500 Futures", "CME", "E-mini S&P"},
		{"NQ", "E-mini Nasdaq-100 Futures", "CME", "E-mini Nasdaq"},
	}
	fundList = []listing{
		{"QQQ", "Invesco QQQ Trust", "NASDAQ", "QQQ"}, {"SPY", "SPDR S&P 500 ETF Trust", "NYSE ARCA", "SPDR S&P 500"},
		{"IWM", "iShares Russell 2000 ETF", "NYSE ARCA", "Russell 2000"}, {"VTI", "Vanguard Total Stock Market ETF", "NYSE ARCA", "Vanguard Total"},
		{"DIA", "SPDR Dow Jones Industrial Average ETF Trust", "NYSE ARCA", "SPDR Dow"}, {"ARKK", "ARK Innovation ETF", "NYSE ARCA", "ARK Innovation"},
	}
)

var companySuffixes = []string{"Holdings", "Group", "Industries", "Technologies", "Corporation", "Limited"}

// Listings returns the symbol list of an asset class in a region, fixed
// for a seed: curated lists for familiar markets, 20 made-up stocks for
// other stock markets. Products without an exchange list the region.
func (g *Generator) Listings(class Class, region itick.Region) []itick.Symbol {
	var ls []listing
	switch class {
	case Stock:
		switch region {
		case itick.RegionUS:
			ls = usStocks
		case itick.RegionHK:
			ls = hkStocks
		default:
			ls = g.madeUpStocks(region)
		}
	case Crypto:
		ls = cryptoPairs
	case Forex:
		ls = forexPairs
	case Indices:
		ls = indexList
	case Future:
		ls = futureList
	case Fund:
		ls = fundList
	}
	out := make([]itick.Symbol, len(ls))
	for i, l := range ls {
		e := l.exchange
		if e == "" {
			e = string(region)
		}
		out[i] = itick.Symbol{Code: l.code, Name: l.name, Type: itick.AssetType(class), Exchange: e, ShortName: l.short}
	}
	return out
}

func (g *Generator) madeUpStocks(region itick.Region) []listing {
	key := g.hash("symbols", string(region))
	seen := map[string]bool{}
	var out []listing
	for i := 0; len(out) < 20 && i < 200; i++ {
		h := mix(key ^ uint64(i+1)*0x9e3779b97f4a7c15)
		code := splitCode(region, h)
		if seen[code] {
			continue
		}
		seen[code] = true
		short := companyNames[h%uint64(len(companyNames))]
		name := short + " " + companySuffixes[mix(h)%uint64(len(companySuffixes))]
		out = append(out, listing{code, name, exchangeOf(region), short})
	}
	return out
}

// symbolWire is an entry of /symbol/list; s is null as in the service's example.
type symbolWire struct {
	C string  `json:"c"`
	N string  `json:"n"`
	T string  `json:"t"`
	E string  `json:"e"`
	S *string `json:"s"`
	L string  `json:"l"`
}

func serveSymbols(c *call) (any, error) {
	class := Class(c.query.Get("type"))
	switch class {
	case Stock, Crypto, Forex, Indices, Future, Fund:
	default:
		return nil, paramError("type %q is not one of stock, forex, indices, crypto, future, fund", class)
	}
	code := c.code()
	out := []symbolWire{}
	for _, s := range c.gen.Listings(class, c.region()) {
		if code == "" || strings.EqualFold(code, s.Code) {
			out = append(out, symbolWire{C: s.Code, N: s.Name, T: string(s.Type), E: s.Exchange, L: s.ShortName})
		}
	}
	return out, nil
}

// serveSymbolInfo answers /symbol/info, which one official demo calls and
// no page documents: the SDK does not model it. Its data is taken to be the
// symbol's /symbol/list entry (inferred); an unlisted code is not found.
func serveSymbolInfo(c *call) (any, error) {
	data, err := serveSymbols(c)
	if err != nil {
		return nil, err
	}
	if list := data.([]symbolWire); len(list) > 0 {
		return list[0], nil
	}
	return nil, notFound()
}

var industries = [][2]string{
	{"Technology", "Consumer Electronics"}, {"Technology", "Software - Infrastructure"},
	{"Communication Services", "Internet Content & Information"}, {"Consumer Cyclical", "Internet Retail"},
	{"Financial Services", "Banks - Diversified"}, {"Healthcare", "Drug Manufacturers"},
	{"Energy", "Oil & Gas Integrated"}, {"Industrials", "Aerospace & Defense"},
	{"Consumer Defensive", "Beverages - Non-Alcoholic"}, {"Utilities", "Utilities - Regulated Electric"},
}

// StockInfo returns the company profile of a stock at now. A listed stock
// keeps its list name and exchange; any other code gets a made-up
// company. The market capitalisation is the shares times the price at now.
func (g *Generator) StockInfo(region itick.Region, code string, now time.Time) itick.StockInfo {
	ur, uc := canonical(region, code)
	h := g.hash("info", string(ur), uc)
	l := listing{code: code, exchange: exchangeOf(region)}
	found := false
	for _, s := range g.Listings(Stock, region) {
		if strings.EqualFold(s.Code, code) {
			l, found = listing{s.Code, s.Name, s.Exchange, s.ShortName}, true
		}
	}
	if !found {
		l.short = companyNames[h%uint64(len(companyNames))]
		l.name = l.short + " " + companySuffixes[mix(h)%uint64(len(companySuffixes))]
	}
	ind := industries[mix(h^1)%uint64(len(industries))]
	shares := math.Round(1e8 * math.Exp(unit(mix(h^2))*math.Log(200)))
	cur := currencyOf(region)
	slug := strings.ToLower(strings.Fields(l.short)[0])
	return itick.StockInfo{
		Code: l.code, Name: l.name, Type: "stock", Exchange: l.exchange, Sector: ind[0], Industry: ind[1],
		Logo:   "https://static.example.com/logo/" + string(region) + "/" + l.code + ".png",
		Region: region,
		Description: fmt.Sprintf("%s is a %s company in the %s sector, listed on %s.",
			l.name, strings.ToLower(ind[1]), strings.ToLower(ind[0]), l.exchange),
		Website:   "https://www." + slug + ".example.com",
		MarketCap: math.Round(shares * g.Price(Stock, region, code, now)),
		Shares:    shares,
		PE:        roundDec(8+52*unit(mix(h^3)), 2),
		Currency:  cur,
	}
}

func serveStockInfo(c *call) (any, error) {
	if t := c.query.Get("type"); t != "stock" {
		return nil, paramError("type %q is not stock", t)
	}
	return c.gen.StockInfo(c.region(), c.code(), c.now), nil
}

// IPOPageSize is the number of IPOs on a page of /stock/ipo.
const IPOPageSize = 10

// IPOs returns a region's upcoming listings (soonest first, in the 60 days
// after now) or recent ones (newest first, in the 90 days before now), on
// the market's trading days,
// fixed for a seed and the UTC day of now: between 12 and 35 of each. A
// recent IPO has its final price; an upcoming one a range, and some have
// no result date yet.
func (g *Generator) IPOs(kind itick.IPOKind, region itick.Region, now time.Time) []itick.IPO {
	key := g.hash("ipo", string(kind), string(region))
	n := 12 + int(key%24)
	day := now.UTC().Truncate(24 * time.Hour)
	upcoming := kind == itick.IPOUpcoming
	out := make([]itick.IPO, 0, n)
	seen := map[string]bool{}
	for i := range n {
		h := mix(key ^ uint64(i+1)*0x9e3779b97f4a7c15)
		offset := 1 + (i*60+int(h%60))/n // spread over 60 or 90 days, in order
		listed := day.AddDate(0, 0, offset)
		for !tradingDay(region, listed) {
			listed = listed.AddDate(0, 0, 1)
		}
		if !upcoming {
			offset = 1 + (i*90+int(h%90))/n
			listed = day.AddDate(0, 0, -offset)
			for !tradingDay(region, listed) {
				listed = listed.AddDate(0, 0, -1)
			}
		}
		code := splitCode(region, h)
		if seen[code] {
			code += "U"
		}
		seen[code] = true
		company := companyNames[h%uint64(len(companyNames))] + " " + companySuffixes[mix(h)%uint64(len(companySuffixes))]
		low := math.Round(4+36*unit(mix(h^1))) / 2
		ipo := itick.IPO{
			ListingDate:       listed,
			Company:           company,
			Code:              code,
			Exchange:          exchangeOf(region),
			Country:           string(region),
			MarketCap:         capText(5e6 * math.Exp(unit(mix(h^2))*math.Log(2000))),
			Price:             fmt.Sprintf("%.2f-%.2f", low, low+1),
			SubscriptionStart: listed.AddDate(0, 0, -8),
			SubscriptionEnd:   listed.AddDate(0, 0, -4),
			ResultDate:        listed.AddDate(0, 0, -2),
		}
		if !upcoming {
			ipo.Price = fmt.Sprintf("%.2f", low+roundDec(unit(mix(h^3)), 2))
		} else if mix(h^4)%5 == 0 {
			ipo.ResultDate = time.Time{}
		}
		out = append(out, ipo)
	}
	return out
}

// tradingDay reports whether the market of region trades on the calendar
// date of d: a weekday and, where the simulator knows the market, no holiday.
func tradingDay(region itick.Region, d time.Time) bool {
	if weekend(d) {
		return false
	}
	if m := findMarket(string(region)); m != nil {
		if h, ok := m.holidayOn(d); ok && !h.half {
			return false
		}
	}
	return true
}

// capText writes a market capitalisation the way the service does: "19.1M".
func capText(v float64) string {
	if v >= 1e9 {
		return fmt.Sprintf("%.1fB", v/1e9)
	}
	return fmt.Sprintf("%.1fM", v/1e6)
}

// ipoWire is an IPO as the service sends it: dt in ms, the dates of the
// subscription in seconds, ro null when not yet known.
type ipoWire struct {
	Dt int64  `json:"dt"`
	Cn string `json:"cn"`
	Sc string `json:"sc"`
	Ex string `json:"ex"`
	Ct string `json:"ct"`
	Mc string `json:"mc"`
	Pr string `json:"pr"`
	Bs int64  `json:"bs"`
	Es int64  `json:"es"`
	Ro *int64 `json:"ro"`
}

type ipoPageWire struct {
	Content       []ipoWire `json:"content"`
	Page          int       `json:"page"`
	TotalElements int       `json:"totalElements"`
	TotalPages    int       `json:"totalPages"`
	Last          bool      `json:"last"`
	Size          int       `json:"size"`
}

func serveIPO(c *call) (any, error) {
	kind := itick.IPOKind(c.query.Get("type"))
	if kind != itick.IPOUpcoming && kind != itick.IPORecent {
		return nil, paramError("type %q is not upcoming or recent", kind)
	}
	page, err := c.intParam("page", 0)
	if err != nil {
		return nil, err
	}
	all := c.gen.IPOs(kind, c.region(), c.now)
	pages := (len(all) + IPOPageSize - 1) / IPOPageSize
	from := min(page*IPOPageSize, len(all))
	to := min(from+IPOPageSize, len(all))
	p := ipoPageWire{Content: []ipoWire{}, Page: page, TotalElements: len(all), TotalPages: pages,
		Last: page >= pages-1, Size: IPOPageSize}
	for _, ipo := range all[from:to] {
		w := ipoWire{Dt: ipo.ListingDate.UnixMilli(), Cn: ipo.Company, Sc: ipo.Code, Ex: ipo.Exchange, Ct: ipo.Country,
			Mc: ipo.MarketCap, Pr: ipo.Price, Bs: ipo.SubscriptionStart.Unix(), Es: ipo.SubscriptionEnd.Unix()}
		if !ipo.ResultDate.IsZero() {
			ro := ipo.ResultDate.Unix()
			w.Ro = &ro
		}
		p.Content = append(p.Content, w)
	}
	return p, nil
}
