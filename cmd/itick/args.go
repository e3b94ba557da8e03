package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/d19c4e34/itick"
)

// market is what every asset-class service of the SDK offers, so one
// command serves all six.
type market interface {
	Quotes(ctx context.Context, region itick.Region, codes []string) (map[string]itick.Quote, error)
	Depth(ctx context.Context, region itick.Region, code string) (*itick.DepthBook, error)
	Depths(ctx context.Context, region itick.Region, codes []string) (map[string]itick.DepthBook, error)
	Klines(ctx context.Context, region itick.Region, codes []string, interval itick.Interval, limit int,
		opts ...itick.KlineOption) (map[string][]itick.Kline, error)
	KlinesRange(ctx context.Context, region itick.Region, codes []string, interval itick.Interval, from, to time.Time,
		opts ...itick.KlineOption) (map[string][]itick.Kline, error)
}

// classNames maps what a user may type to the asset class.
var classNames = map[string]itick.AssetType{
	"stock": itick.AssetStock, "stocks": itick.AssetStock,
	"crypto": itick.AssetCrypto,
	"forex":  itick.AssetForex, "fx": itick.AssetForex,
	"future": itick.AssetFuture, "futures": itick.AssetFuture,
	"fund": itick.AssetFund, "funds": itick.AssetFund,
	"indices": itick.AssetIndices, "index": itick.AssetIndices,
}

const classList = "stock, crypto, forex, future, fund or indices"

func parseClass(s string) (itick.AssetType, error) {
	if c, ok := classNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return c, nil
	}
	return "", invalidf("class %q is not %s", s, classList)
}

// marketOf returns the client's service for class.
func marketOf(c *itick.Client, class itick.AssetType) market {
	switch class {
	case itick.AssetCrypto:
		return c.Crypto
	case itick.AssetForex:
		return c.Forex
	case itick.AssetFuture:
		return c.Future
	case itick.AssetFund:
		return c.Fund
	case itick.AssetIndices:
		return c.Indices
	}
	return c.Stock
}

// parseRegion reads a market code such as HK or us. The set is open, so
// only its shape is checked here.
func parseRegion(s string) (itick.Region, error) {
	r := strings.ToUpper(strings.TrimSpace(s))
	if r == "" || strings.ContainsFunc(r, func(c rune) bool { return !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') }) {
		return "", invalidf("region %q is not a market code such as US, HK or GB", s)
	}
	return itick.Region(r), nil
}

// productsUse is how quote, klines and depth name their products.
const productsUse = "PRODUCT... | CLASS REGION CODE..."

// productsHelp says what productsUse means, for the commands' help.
const productsHelp = `Products are CLASS:REGION:CODE (stock:US:AAPL, crypto:BA:BTCUSDT), of any
class and region in one command, or CLASS REGION CODE... for codes of one
class and region (stock US AAPL MSFT). Classes: ` + classList + `.`

// productArgs checks that args can name products: one or more in the
// CLASS:REGION:CODE form, or a class, a region and one or more codes.
func productArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usageError{fmt.Sprintf("%s takes products such as stock:US:AAPL, or CLASS REGION CODE...: itick %s", cmd.Name(), cmd.Use)}
	case !strings.Contains(args[0], ":") && len(args) < 3:
		return usageError{fmt.Sprintf("%s takes a class, a region and at least one code, got %s: itick %s",
			cmd.Name(), plural(len(args), "argument"), cmd.Use)}
	}
	return nil
}

// parseProducts reads the products of quote, depth and klines, in the
// order given, each once: CLASS:REGION:CODE arguments, or CLASS REGION
// CODE... (told apart by the colon in the first).
func parseProducts(args []string) ([]itick.Product, error) {
	var out []itick.Product
	seen := map[itick.Product]bool{}
	add := func(p itick.Product) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if !strings.Contains(args[0], ":") {
		class, err := parseClass(args[0])
		if err != nil {
			return nil, err
		}
		region, err := parseRegion(args[1])
		if err != nil {
			return nil, err
		}
		codes, err := parseCodes(args[2:])
		if err != nil {
			return nil, err
		}
		for _, c := range codes {
			add(itick.Product{Class: class, Region: region, Code: c})
		}
		return out, nil
	}
	for _, a := range args {
		p, err := parseProduct(a)
		if err != nil {
			return nil, err
		}
		add(p)
	}
	return out, nil
}

// parseProduct reads CLASS:REGION:CODE, the class as parseClass reads it
// (stocks, fx, ... too), the rest as itick.ParseProduct does.
func parseProduct(s string) (itick.Product, error) {
	class, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return itick.Product{}, invalidf("product %q is not CLASS:REGION:CODE such as stock:US:AAPL; "+
			"give every product so, or use the CLASS REGION CODE... form", s)
	}
	if c, known := classNames[strings.ToLower(class)]; known {
		class = string(c)
	}
	return itick.ParseProduct(class + ":" + rest)
}

// group is the products of one class and region, which one batch call
// serves.
type group struct {
	class  itick.AssetType
	region itick.Region
	codes  []string
}

// groupsOf gathers products by class and region, in the order each class
// and region first appears, and each group's codes in order.
func groupsOf(products []itick.Product) []group {
	var out []group
	at := map[[2]string]int{}
	for _, p := range products {
		k := [2]string{string(p.Class), string(p.Region)}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, group{class: p.Class, region: p.Region})
		}
		out[i].codes = append(out[i].codes, p.Code)
	}
	return out
}

// products lists the group's products.
func (g group) products() []itick.Product {
	out := make([]itick.Product, len(g.codes))
	for i, c := range g.codes {
		out[i] = itick.Product{Class: g.class, Region: g.region, Code: c}
	}
	return out
}

// plural is n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// parseCodes trims the codes and drops repeats, keeping the first of each
// in its order, so rows come out in the order asked for. A code in the
// stream's code$REGION form gets a clear refusal rather than a puzzling
// answer.
func parseCodes(args []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, a := range args {
		c := strings.TrimSpace(a)
		switch {
		case c == "":
			return nil, invalidf("an empty code")
		case strings.Contains(c, "$"):
			return nil, invalidf("code %q: give the region as its own argument, as in \"stock HK 700\"", a)
		case strings.Contains(c, ","):
			return nil, invalidf("code %q: give codes as separate arguments, not joined by commas", a)
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// intervals are the candle intervals by their short name ("1m", "1d").
var intervals = func() map[string]itick.Interval {
	m := map[string]itick.Interval{}
	for i := itick.OneMinute; i <= itick.OneMonth; i++ {
		m[i.String()] = i
	}
	return m
}()

const intervalList = "1m, 5m, 15m, 30m, 1h, 2h, 4h, 1d, 1w or 1M"

func parseInterval(s string) (itick.Interval, error) {
	if i, ok := intervals[strings.TrimSpace(s)]; ok {
		return i, nil
	}
	return 0, invalidf("interval %q is not %s", s, intervalList)
}

// earliest is the first instant a date flag may name. The service's
// times are Unix milliseconds and it has no data before them; a date
// before it is a mistake (0001-01-01 would otherwise read as no date).
var earliest = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// parseTime reads a date (2024-01-31, midnight UTC) or an RFC 3339 time,
// from earliest on.
func parseTime(flag, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		if t, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return time.Time{}, invalidf("--%s %q is not a date (2024-01-31) or an RFC 3339 time (2024-01-31T09:30:00Z)", flag, s)
		}
	}
	if t.Before(earliest) {
		return time.Time{}, invalidf("--%s %s is before %s: the service has no data that old", flag, s, earliest.Format(time.DateOnly))
	}
	return t.UTC(), nil
}

// lookup finds code's entry in a result map, whose keys are as the service
// sent them: the same code, maybe in another case.
func lookup[V any](m map[string]V, code string) (V, bool) {
	if v, ok := m[code]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, code) {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// exactArgs, minArgs and rangeArgs check the number of arguments; a wrong
// number is a usage error, with the command's use line.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Sprintf("%s takes %s, got %d: itick %s", cmd.Name(), plural(n, "argument"), len(args), cmd.Use)}
		}
		return nil
	}
}

func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{fmt.Sprintf("%s takes at least %s, got %d: itick %s", cmd.Name(), plural(n, "argument"), len(args), cmd.Use)}
		}
		return nil
	}
}
