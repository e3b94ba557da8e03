package markettest

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick"
)

// route is one endpoint. Adding an endpoint is one line in routes and,
// when no serve function fits yet, one function that makes its data.
type route struct {
	path     string
	class    Class
	required string // comma-separated query parameters the service requires
	msgOK    bool   // the envelope's msg is "ok"; otherwise null
	serve    func(c *call) (any, error)
}

// allClasses are the asset classes, each with its own path prefix.
var allClasses = []Class{Stock, Crypto, Forex, Future, Fund, Indices}

// routes is every endpoint the simulator serves.
var routes = slices.Concat(
	// The market data every class serves, at /<class>/<name>.
	perClass("quote", "region,code", serveQuote, allClasses...),
	perClass("quotes", "region,codes", serveQuotes, allClasses...),
	perClass("depth", "region,code", serveDepth, allClasses...),
	perClass("depths", "region,codes", serveDepths, allClasses...),
	perClass("kline", "region,code,kType,limit", serveKline, allClasses...),
	perClass("klines", "region,codes,kType,limit", serveKlines, allClasses...),
	perClass("tick", "region,code", serveTick, allClasses...),
	perClass("ticks", "region,codes", serveTicks, allClasses...),
	[]route{
		{"/stock/split", Stock, "region", true, serveSplit},
		{"/stock/info", Stock, "type,region,code", false, serveStockInfo},
		{"/stock/ipo", Stock, "type,region", true, serveIPO},
		{"/news", "", "market,lang,limit", true, serveNews},
		{"/news/{id}", "", "", true, serveNewsDetail},
		{"/symbol/list", "", "type,region", false, serveSymbols},
		{"/symbol/info", "", "type,region,code", false, serveSymbolInfo},
		{"/symbol/v2/holidays", "", "", true, serveHolidays},
		{"/symbol/holidays", "", "", true, serveHolidays},
		{"/market/status", "", "code", false, serveMarketStatus},
	},
)

// perClass is the endpoint name of each class, at /<class>/<name>, with
// the envelope's msg null.
func perClass(name, required string, serve func(c *call) (any, error), classes ...Class) []route {
	out := make([]route, len(classes))
	for i, class := range classes {
		out[i] = route{"/" + string(class) + "/" + name, class, required, false, serve}
	}
	return out
}

// Paths returns the path of every endpoint the simulator serves.
func Paths() []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.path
	}
	return out
}

// findRoute returns the route serving path and the values of its {name}
// segments, so a route such as "/news/{id}" can be added as one line too.
func findRoute(table []route, path string) (*route, map[string]string) {
	path = strings.TrimSuffix(path, "/")
	for i := range table {
		if table[i].path == path {
			return &table[i], nil
		}
	}
	segs := strings.Split(path, "/")
	for i := range table {
		pat := strings.Split(table[i].path, "/")
		if len(pat) != len(segs) || !strings.Contains(table[i].path, "{") {
			continue
		}
		vars := map[string]string{}
		for j, p := range pat {
			if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") && segs[j] != "" {
				vars[p[1:len(p)-1]] = segs[j]
			} else if p != segs[j] {
				vars = nil
				break
			}
		}
		if vars != nil {
			return &table[i], vars
		}
	}
	return nil, nil
}

// call is one request as a serve function sees it: parameters already
// checked for presence, the batch size already enforced.
type call struct {
	gen   *Generator
	class Class
	query url.Values
	vars  map[string]string // {name} segments of the path
	now   time.Time
	cfg   *config
}

// pathValue returns the path segment the route names {name}.
func (c *call) pathValue(name string) string { return c.vars[name] }

func (c *call) region() itick.Region { return itick.Region(c.query.Get("region")) }

func (c *call) code() string { return strings.TrimSpace(c.query.Get("code")) }

// codes returns the requested codes in order, trimmed, without empties.
func (c *call) codes() []string { return splitCodes(c.query.Get("codes")) }

func splitCodes(s string) []string {
	var out []string
	for _, code := range strings.Split(s, ",") {
		if code = strings.TrimSpace(code); code != "" {
			out = append(out, code)
		}
	}
	return out
}

// MaxKlineLimit is the largest kline limit the service accepts (its
// published bound); a larger one is refused with CodeBadRequest.
const MaxKlineLimit = itick.MaxKlineLimit

func (c *call) interval() (itick.Interval, error) {
	n, err := strconv.Atoi(c.query.Get("kType"))
	iv := itick.Interval(n)
	if err != nil || iv.Duration() == 0 {
		return 0, paramError("kType %q is not one of 1 to 10", c.query.Get("kType"))
	}
	return iv, nil
}

// intParam reads an optional non-negative integer parameter.
func (c *call) intParam(name string, def int) (int, error) {
	v := c.query.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, paramError("%s %q is not a non-negative integer", name, v)
	}
	return n, nil
}

// end reads et, Unix milliseconds; zero when absent.
func (c *call) end() (time.Time, error) {
	v := c.query.Get("et")
	if v == "" {
		return time.Time{}, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 {
		return time.Time{}, paramError("et %q is not a Unix time in milliseconds", v)
	}
	return time.UnixMilli(ms), nil
}

// perCode makes one value per requested code that exists, leaving the
// others out as the service does.
func perCode[T any](c *call, f func(code string) T) map[string]T {
	codes := c.codes()
	out := make(map[string]T, len(codes))
	for _, code := range codes {
		if Exists(c.class, c.region(), code) {
			out[code] = f(code)
		}
	}
	return out
}

func serveDepth(c *call) (any, error) {
	return wireDepth(c.class, c.gen.Depth(c.class, c.region(), c.code(), c.now)), nil
}

func serveDepths(c *call) (any, error) {
	return perCode(c, func(code string) any {
		return wireDepth(c.class, c.gen.Depth(c.class, c.region(), code, c.now))
	}), nil
}

func serveQuotes(c *call) (any, error) {
	return perCode(c, func(code string) any {
		return wireQuote(c.class, c.gen.Quote(c.class, c.region(), code, c.now))
	}), nil
}

// klineArgs are the parameters of a K-line request, checked.
type klineArgs struct {
	interval itick.Interval
	limit    int
	end      time.Time
}

func (c *call) klineArgs() (klineArgs, error) {
	iv, err := c.interval()
	if err != nil {
		return klineArgs{}, err
	}
	limit, err := c.intParam("limit", 0)
	if err != nil {
		return klineArgs{}, err
	}
	if limit < 1 {
		return klineArgs{}, paramError("limit must be at least 1")
	}
	if limit > MaxKlineLimit {
		return klineArgs{}, paramError("limit %d is over the most allowed, %d", limit, MaxKlineLimit)
	}
	end, err := c.end()
	if err != nil {
		return klineArgs{}, err
	}
	if c.cfg != nil && c.cfg.klineCap > 0 {
		limit = min(limit, c.cfg.klineCap)
	}
	return klineArgs{iv, limit, end}, nil
}

// klines serves one code's candles from the generator's series, with no
// candle before the server's first date; none is [], not null.
func (c *call) klines(code string, a klineArgs) []itick.Kline {
	var first time.Time
	if c.cfg != nil {
		first = c.cfg.firstDate
	}
	if ks := c.gen.klines(c.class, c.region(), code, a.interval, a.limit, a.end, c.now, first); ks != nil {
		return ks
	}
	return []itick.Kline{}
}

func serveKlines(c *call) (any, error) {
	a, err := c.klineArgs()
	if err != nil {
		return nil, err
	}
	return perCode(c, func(code string) []itick.Kline { return c.klines(code, a) }), nil
}

// SplitPageSize is the number of split records on a page, as the service sends.
const SplitPageSize = 20

func serveSplit(c *call) (any, error) {
	page, err := c.intParam("page", 0)
	if err != nil {
		return nil, err
	}
	all := c.gen.Splits(c.region(), c.now)
	pages := (len(all) + SplitPageSize - 1) / SplitPageSize
	from := min(page*SplitPageSize, len(all))
	to := min(from+SplitPageSize, len(all))
	return itick.SplitPage{Records: append([]itick.SplitRecord{}, all[from:to]...), Page: page, Size: SplitPageSize,
		TotalPages: pages, TotalElements: len(all), Last: page >= pages-1}, nil
}

// News page sizes: the default when limit is 0, and the most served. The
// service requires limit (its 2026 docs): a request without it is refused
// like any request missing a required parameter, with an envelope error
// of code CodeBadRequest and msg "missing required parameter: limit".
const (
	DefaultNewsLimit = 20
	MaxNewsLimit     = 100
)

// cursorLayout is RFC 3339 with all nine fractional digits, as the service sends.
const cursorLayout = "2006-01-02T15:04:05.000000000Z07:00"

func serveNews(c *call) (any, error) {
	limit, err := c.intParam("limit", DefaultNewsLimit)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		limit = DefaultNewsLimit
	}
	limit = min(limit, MaxNewsLimit)
	var before time.Time
	if v := c.query.Get("cursor"); v != "" {
		if before, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return nil, paramError("cursor %q is not an RFC 3339 time", v)
		}
	}
	items, more := c.gen.News(c.query.Get("market"), c.query.Get("lang"), before, limit, c.now)
	page := itick.NewsPage{Items: items, HasMore: more, Count: len(items)}
	if page.Items == nil {
		page.Items = []itick.NewsItem{}
	}
	if len(items) > 0 {
		page.NextCursor = items[len(items)-1].Published.UTC().Format(cursorLayout)
	}
	return page, nil
}
