package itick_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
)

// Tests that every method checks its arguments before it sends anything.

type validationCase struct {
	name string
	call func(ctx context.Context, c *itick.Client) error
	want string // the error names the bad value or the argument
}

// batchMethods are every public method that takes a region and a list of
// codes, with valid values for their other arguments.
var batchMethods = []struct {
	name string
	call func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error
}{
	{"Stock.Depths", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Stock.Depths(ctx, r, codes)
		return err
	}},
	{"Stock.Quotes", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Stock.Quotes(ctx, r, codes)
		return err
	}},
	{"Stock.Klines", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Stock.Klines(ctx, r, codes, itick.OneDay, 10)
		return err
	}},
	{"Crypto.Depths", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Crypto.Depths(ctx, r, codes)
		return err
	}},
	{"Crypto.Quotes", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Crypto.Quotes(ctx, r, codes)
		return err
	}},
	{"Crypto.Klines", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Crypto.Klines(ctx, r, codes, itick.OneMinute, 1)
		return err
	}},
	{"Forex.Depths", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Forex.Depths(ctx, r, codes)
		return err
	}},
	{"Forex.Quotes", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Forex.Quotes(ctx, r, codes)
		return err
	}},
	{"Forex.Klines", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Forex.Klines(ctx, r, codes, itick.OneHour, 100)
		return err
	}},
	{"Future.Depths", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Future.Depths(ctx, r, codes)
		return err
	}},
	{"Future.Quotes", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Future.Quotes(ctx, r, codes)
		return err
	}},
	{"Future.Klines", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Future.Klines(ctx, r, codes, itick.OneWeek, 5)
		return err
	}},
	{"Indices.Depths", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Indices.Depths(ctx, r, codes)
		return err
	}},
	{"Indices.Quotes", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Indices.Quotes(ctx, r, codes)
		return err
	}},
	{"Indices.Klines", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Indices.Klines(ctx, r, codes, itick.OneMonth, 3, itick.WithEnd(time.UnixMilli(1700000000000)))
		return err
	}},
	{"Fund.Depths", func(ctx context.Context, c *itick.Client, r itick.Region, codes []string) error {
		_, err := c.Fund.Depths(ctx, r, codes)
		return err
	}},
}

// klineMethods are the methods that take an interval and a limit.
var klineMethods = []struct {
	name string
	call func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error
}{
	{"Stock.Klines", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Stock.Klines(ctx, itick.RegionHK, []string{"700"}, iv, limit, itick.WithExchange("HKEX"))
		return err
	}},
	{"Crypto.Klines", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Crypto.Klines(ctx, itick.RegionBA, []string{"BTCUSDT"}, iv, limit)
		return err
	}},
	{"Forex.Klines", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Forex.Klines(ctx, itick.RegionGB, []string{"EURUSD"}, iv, limit)
		return err
	}},
	{"Future.Klines", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Future.Klines(ctx, itick.RegionUS, []string{"CL"}, iv, limit)
		return err
	}},
	{"Indices.Klines", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Indices.Klines(ctx, itick.RegionGB, []string{"SPX"}, iv, limit)
		return err
	}},
	{"Fund.Klines", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Fund.Klines(ctx, itick.RegionUS, []string{"QQQ"}, iv, limit)
		return err
	}},
}

// singleKlineMethods are the single-code forms, whose arguments are checked
// the same way.
var singleKlineMethods = []struct {
	name string
	call func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error
}{
	{"Stock.Kline", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Stock.Kline(ctx, itick.RegionHK, "700", iv, limit)
		return err
	}},
	{"Crypto.Kline", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", iv, limit)
		return err
	}},
	{"Forex.Kline", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Forex.Kline(ctx, itick.RegionGB, "EURUSD", iv, limit)
		return err
	}},
	{"Future.Kline", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Future.Kline(ctx, itick.RegionUS, "CL", iv, limit)
		return err
	}},
	{"Fund.Kline", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Fund.Kline(ctx, itick.RegionUS, "QQQ", iv, limit)
		return err
	}},
	{"Indices.Kline", func(ctx context.Context, c *itick.Client, iv itick.Interval, limit int) error {
		_, err := c.Indices.Kline(ctx, itick.RegionGB, "SPX", iv, limit)
		return err
	}},
}

// depthMethods are the single-code depth methods.
var depthMethods = []struct {
	name string
	call func(ctx context.Context, c *itick.Client, r itick.Region, code string) error
}{
	{"Stock.Depth", func(ctx context.Context, c *itick.Client, r itick.Region, code string) error {
		_, err := c.Stock.Depth(ctx, r, code)
		return err
	}},
	{"Crypto.Depth", func(ctx context.Context, c *itick.Client, r itick.Region, code string) error {
		_, err := c.Crypto.Depth(ctx, r, code)
		return err
	}},
}

// firstErr runs an iterator and returns the error it yields, failing the
// test if it yields anything else or more than once.
func firstErr[V any](t *testing.T, seq func(func(V, error) bool)) error {
	t.Helper()
	var errs []error
	for _, err := range seq {
		if err == nil {
			t.Error("the sequence yielded a value before its error")
			continue
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 {
		t.Errorf("the sequence yielded %d errors, want 1", len(errs))
	}
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

func validationCases(t *testing.T) []validationCase {
	var cases []validationCase
	badRegions := []struct {
		region itick.Region
		want   string
	}{
		{"", "region"},
		{"H K", "H K"},
		{"HK,US", "HK,US"},
		{"HK\n", `HK\n`},
		{"HK&codes=1", "HK&codes=1"},
	}
	badCodes := []struct {
		name  string
		codes []string
		want  string
	}{
		{"nil codes", nil, "codes"},
		{"no codes", []string{}, "codes"},
		{"empty code", []string{""}, "codes[0]"},
		{"blank code", []string{"700", "  "}, "codes[1]"},
		{"code with a comma", []string{"700", "5,9988"}, "5,9988"},
		{"code with a control character", []string{"A\x00B"}, `A\x00B`},
		{"code with a tab inside", []string{"A\tB"}, `A\tB`},
	}
	for _, m := range batchMethods {
		for _, r := range badRegions {
			cases = append(cases, validationCase{m.name + "/region " + string(r.region), func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, r.region, []string{"700"})
			}, r.want})
		}
		for _, bc := range badCodes {
			cases = append(cases, validationCase{m.name + "/" + bc.name, func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, itick.RegionHK, bc.codes)
			}, bc.want})
		}
	}
	for _, m := range append(slices.Clone(klineMethods), singleKlineMethods...) {
		for _, bad := range []struct {
			name     string
			interval itick.Interval
			limit    int
			want     string
		}{
			{"interval 0", 0, 10, "interval"},
			{"interval 11", 11, 10, "11"},
			{"interval -1", -1, 10, "-1"},
			{"limit 0", itick.OneDay, 0, "limit"},
			{"limit -5", itick.OneDay, -5, "-5"},
			{"limit 501", itick.OneDay, 501, "500"},
			{"limit 1000", itick.OneDay, 1000, "1000"},
		} {
			cases = append(cases, validationCase{m.name + "/" + bad.name, func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, bad.interval, bad.limit)
			}, bad.want})
		}
	}
	for _, m := range depthMethods {
		for _, r := range badRegions {
			cases = append(cases, validationCase{m.name + "/region " + string(r.region), func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, r.region, "700")
			}, r.want})
		}
		for _, bad := range []struct{ code, want string }{
			{"", "code"}, {"   ", "code"}, {"5,700", "5,700"}, {"70\x7f0", `70\x7f0`},
		} {
			cases = append(cases, validationCase{m.name + "/code " + bad.code, func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, itick.RegionHK, bad.code)
			}, bad.want})
		}
	}
	for _, r := range badRegions {
		cases = append(cases,
			validationCase{"Stock.SplitPage/region " + string(r.region), func(ctx context.Context, c *itick.Client) error {
				_, err := c.Stock.SplitPage(ctx, r.region, 0)
				return err
			}, r.want},
			validationCase{"Stock.Splits/region " + string(r.region), func(ctx context.Context, c *itick.Client) error {
				return firstErr(t, c.Stock.Splits(ctx, r.region))
			}, r.want})
	}
	cases = append(cases, validationCase{"Stock.SplitPage/page -1", func(ctx context.Context, c *itick.Client) error {
		_, err := c.Stock.SplitPage(ctx, itick.RegionUS, -1)
		return err
	}, "-1"})
	for _, bad := range []struct {
		name string
		q    itick.NewsQuery
		want string
	}{
		{"no market", itick.NewsQuery{Lang: "en"}, "Market"},
		{"no lang", itick.NewsQuery{Market: "stock"}, "Lang"},
		{"negative limit", itick.NewsQuery{Market: "stock", Lang: "en", Limit: -3}, "-3"},
	} {
		cases = append(cases,
			validationCase{"News.List/" + bad.name, func(ctx context.Context, c *itick.Client) error {
				_, err := c.News.List(ctx, bad.q)
				return err
			}, bad.want},
			validationCase{"News.All/" + bad.name, func(ctx context.Context, c *itick.Client) error {
				return firstErr(t, c.News.All(ctx, bad.q))
			}, bad.want})
	}
	return cases
}

// TestInvalidArgumentsSendNothing checks every argument of every method: a
// bad value is ErrInvalidArgument, the error names it, and no request
// reaches the limiter or the transport (behaviour 1).
func TestInvalidArgumentsSendNothing(t *testing.T) {
	t.Parallel()
	cases := append(validationCases(t), inputCases()...)
	for _, b := range badCalls() {
		cases = append(cases, validationCase{b.name, b.call, b.bad})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lim := &countingLimiter{}
			c, mt := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), itick.WithLimiter(lim), itick.WithRetries(0))
			mt.RegisterNoResponder(body(http.StatusOK, `{"code":0,"msg":"ok","data":{}}`))
			ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
			defer cancel()
			err := tt.call(ctx, c)
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("error %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %q", err, tt.want)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d request(s) reached the transport", n)
			}
			if n := lim.n.Load(); n != 0 {
				t.Errorf("%d request(s) reached the limiter", n)
			}
		})
	}
}

// TestEdgeArgumentsAreSent checks the other side: values at the edges of
// what is allowed are sent, once.
func TestEdgeArgumentsAreSent(t *testing.T) {
	t.Parallel()
	var cases []validationCase
	for _, m := range batchMethods {
		cases = append(cases,
			validationCase{m.name + "/open-ended region", func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, itick.Region("XX"), []string{"700"})
			}, ""},
			validationCase{m.name + "/padded and repeated codes", func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, itick.Region("hk"), []string{" 700 ", "700", "9988\t"})
			}, ""})
	}
	for _, m := range klineMethods {
		for _, iv := range []itick.Interval{itick.OneMinute, itick.OneMonth} {
			cases = append(cases, validationCase{m.name + "/" + iv.String(), func(ctx context.Context, c *itick.Client) error {
				return m.call(ctx, c, iv, 1)
			}, ""})
		}
	}
	cases = append(cases,
		validationCase{"Stock.SplitPage/page 0", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.SplitPage(ctx, itick.RegionUS, 0)
			return err
		}, ""},
		validationCase{"News.List/limit 0", func(ctx context.Context, c *itick.Client) error {
			_, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "hk"})
			return err
		}, ""})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lim := &countingLimiter{}
			c, mt := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), itick.WithLimiter(lim), itick.WithRetries(0))
			mt.RegisterNoResponder(body(http.StatusOK, `{"code":0,"msg":"ok","data":{}}`))
			ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
			defer cancel()
			if err := tt.call(ctx, c); err != nil {
				t.Fatalf("error %v, want none", err)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("%d request(s) reached the transport, want 1", n)
			}
			if n := lim.n.Load(); n != 1 {
				t.Errorf("%d request(s) reached the limiter, want 1", n)
			}
		})
	}
}

// TestNilContextIsInvalid checks that a nil context is refused as an invalid
// argument rather than a panic.
func TestNilContextIsInvalid(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context
	var cases []validationCase
	for _, m := range batchMethods {
		cases = append(cases, validationCase{m.name, func(ctx context.Context, c *itick.Client) error {
			return m.call(ctx, c, itick.RegionHK, []string{"700"})
		}, "ctx"})
	}
	for _, m := range depthMethods {
		cases = append(cases, validationCase{m.name, func(ctx context.Context, c *itick.Client) error {
			return m.call(ctx, c, itick.RegionHK, "700")
		}, "ctx"})
	}
	news := itick.NewsQuery{Market: "stock", Lang: "en"}
	cases = append(cases,
		validationCase{"Stock.SplitPage", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.SplitPage(ctx, itick.RegionUS, 0)
			return err
		}, "ctx"},
		validationCase{"Stock.Splits", func(ctx context.Context, c *itick.Client) error {
			return firstErr(t, c.Stock.Splits(ctx, itick.RegionUS))
		}, "ctx"},
		validationCase{"News.List", func(ctx context.Context, c *itick.Client) error {
			_, err := c.News.List(ctx, news)
			return err
		}, "ctx"},
		validationCase{"News.All", func(ctx context.Context, c *itick.Client) error {
			return firstErr(t, c.News.All(ctx, news))
		}, "ctx"})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, faultToken, itick.WithBaseURL("http://127.0.0.1:1"), itick.WithLimiter(&countingLimiter{}),
				itick.WithRetries(0))
			mt.RegisterNoResponder(body(http.StatusOK, `{"code":0,"msg":"ok","data":{}}`))
			err := tt.call(nilCtx, c)
			if !errors.Is(err, itick.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrInvalidArgument naming %q", err, tt.want)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d request(s) reached the transport", n)
			}
		})
	}
}

// badCall is one call with an invalid argument.
type badCall struct {
	name string
	bad  string // the value the error must name
	call func(ctx context.Context, c *itick.Client) error
}

func errOnly[T any](_ T, err error) error { return err }

// badCalls are single calls with one bad argument each, beyond the sweep
// of validationCases.
func badCalls() []badCall {
	ok := []string{"A"}
	return []badCall{
		{"Stock.Quote empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Quote(ctx, "", "700"))
		}},
		{"Stock.Quote bad region", "H K", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Quote(ctx, "H K", "700"))
		}},
		{"Crypto.Quote empty code", `" "`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Quote(ctx, itick.RegionBA, " "))
		}},
		{"Forex.Quote comma", "EURUSD,GBPUSD", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Quote(ctx, itick.RegionGB, "EURUSD,GBPUSD"))
		}},
		{"Indices.Quote control", `"SP\x01X"`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Quote(ctx, itick.RegionGB, "SP\x01X"))
		}},
		{"Future.Quote bad region", "U/S", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Quote(ctx, "U/S", "NQ"))
		}},
		{"Fund.Quote empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Quote(ctx, itick.RegionUS, ""))
		}},
		{"Fund.Quotes empty list", "codes is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Quotes(ctx, itick.RegionUS, nil))
		}},
		{"Fund.Quotes comma", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Quotes(ctx, itick.RegionUS, []string{"QQQ", "A,B"}))
		}},
		{"Stock.Kline interval", "11", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Kline(ctx, itick.RegionHK, "700", itick.Interval(11), 10))
		}},
		{"Crypto.Kline limit", "0", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Kline(ctx, itick.RegionBA, "BTCUSDT", itick.OneDay, 0))
		}},
		{"Forex.Kline empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Kline(ctx, itick.RegionGB, "", itick.OneDay, 1))
		}},
		{"Indices.Kline region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Kline(ctx, "", "SPX", itick.OneDay, 1))
		}},
		{"Future.Kline limit", "-3", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Kline(ctx, itick.RegionUS, "NQ", itick.OneDay, -3))
		}},
		{"Fund.Kline interval", "0", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Kline(ctx, itick.RegionUS, "QQQ", 0, 1))
		}},
		{"Fund.Klines limit", "0", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Klines(ctx, itick.RegionUS, ok, itick.OneDay, 0))
		}},
		{"Fund.Klines empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Klines(ctx, itick.RegionUS, []string{"QQQ", ""}, itick.OneDay, 1))
		}},
		{"Forex.Depth empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Depth(ctx, itick.RegionGB, ""))
		}},
		{"Future.Depth region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Depth(ctx, "", "NQ"))
		}},
		{"Fund.Depth comma", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Depth(ctx, itick.RegionUS, "A,B"))
		}},
		{"Indices.Depth bad region", "G?B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Depth(ctx, "G?B", "SPX"))
		}},
		{"Stock.Tick empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Tick(ctx, itick.RegionHK, "", itick.WithQuoteExchange("HKEX")))
		}},
		{"Crypto.Tick region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Tick(ctx, "", "BTCUSDT"))
		}},
		{"Forex.Tick comma", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Tick(ctx, itick.RegionGB, "A,B"))
		}},
		{"Indices.Tick empty", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Tick(ctx, itick.RegionGB, ""))
		}},
		{"Future.Tick region", "U S", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Tick(ctx, "U S", "NQ"))
		}},
		{"Fund.Tick empty", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Tick(ctx, itick.RegionUS, ""))
		}},
		{"Stock.Ticks empty list", "codes is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Ticks(ctx, itick.RegionUS, []string{}))
		}},
		{"Crypto.Ticks comma", "X,Y", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Crypto.Ticks(ctx, itick.RegionBA, []string{"X,Y"}))
		}},
		{"Forex.Ticks region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Forex.Ticks(ctx, "", ok))
		}},
		{"Indices.Ticks empty code", "codes[1]", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Indices.Ticks(ctx, itick.RegionGB, []string{"SPX", "  "}))
		}},
		{"Future.Ticks empty list", "codes is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Future.Ticks(ctx, itick.RegionUS, nil))
		}},
		{"Fund.Ticks region", "F!", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Fund.Ticks(ctx, "F!", ok))
		}},
		{"empty id", "news id is empty", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.News.Get(ctx, "  ", "en"))
		}},
		{"control id", `"a\x00b"`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.News.Get(ctx, "a\x00b", "en"))
		}},
		{"bad lang", "en&x=1", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.News.Get(ctx, "id-1", "en&x=1"))
		}},
		{"Symbols unknown type", "stocks", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, "stocks", itick.RegionUS, ""))
		}},
		{"Symbols empty type", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, "", itick.RegionUS, ""))
		}},
		{"Symbols empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, itick.AssetCrypto, "", ""))
		}},
		{"Symbols comma code", "A,B", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, itick.AssetForex, itick.RegionGB, "A,B"))
		}},
		{"Symbols blank code", `"  "`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Symbols(ctx, itick.AssetFund, itick.RegionUS, "  "))
		}},
		{"Status empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Status(ctx, ""))
		}},
		{"Status bad region", "H&K", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Market.Status(ctx, "H&K"))
		}},
		{"Info empty region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Info(ctx, "", "AAPL"))
		}},
		{"Info empty code", `""`, func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Info(ctx, itick.RegionUS, ""))
		}},
		{"Info comma", "AAPL,MSFT", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.Info(ctx, itick.RegionUS, "AAPL,MSFT"))
		}},
		{"IPOPage kind", "soon", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.IPOPage(ctx, "soon", itick.RegionUS, 0))
		}},
		{"IPOPage region", "region", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.IPOPage(ctx, itick.IPORecent, "", 0))
		}},
		{"IPOPage page", "-1", func(ctx context.Context, c *itick.Client) error {
			return errOnly(c.Stock.IPOPage(ctx, itick.IPORecent, itick.RegionUS, -1))
		}},
		{"IPOs kind", `""`, func(ctx context.Context, c *itick.Client) error {
			for _, err := range c.Stock.IPOs(ctx, "", itick.RegionUS) {
				return err
			}
			return nil
		}},
		{"IPOs region", "U.S", func(ctx context.Context, c *itick.Client) error {
			for _, err := range c.Stock.IPOs(ctx, itick.IPOUpcoming, "U.S") {
				return err
			}
			return nil
		}},
	}
}

// inputCases are bad codes, limits and intervals of the batch calls, and
// bad arguments of the page iterators.
func inputCases() []validationCase {
	return []validationCase{
		{"nil codes", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.Quotes(ctx, itick.RegionHK, nil)
			return err
		}, "codes"},
		{"empty codes", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{})
			return err
		}, "codes"},
		{"empty code", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700", ""})
			return err
		}, `codes[1]`},
		{"blank code", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Crypto.Depths(ctx, itick.RegionBA, []string{"BTCUSDT", "   "})
			return err
		}, `"   "`},
		{"code with comma", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Forex.Quotes(ctx, itick.RegionGB, []string{"EURUSD,GBPUSD"})
			return err
		}, `"EURUSD,GBPUSD"`},
		{"single depth empty code", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.Depth(ctx, itick.RegionHK, " ")
			return err
		}, "empty"},
		{"single depth code with comma", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Crypto.Depth(ctx, itick.RegionBA, "BTCUSDT,ETHUSDT")
			return err
		}, `"BTCUSDT,ETHUSDT"`},
		{"kline limit 0", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.Klines(ctx, itick.RegionHK, []string{"700"}, itick.OneDay, 0)
			return err
		}, "0"},
		{"kline limit negative", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Indices.Klines(ctx, itick.RegionGB, []string{"SPX"}, itick.OneDay, -5)
			return err
		}, "-5"},
		{"interval 0", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Future.Klines(ctx, itick.RegionUS, []string{"NQ"}, itick.Interval(0), 10)
			return err
		}, "interval 0"},
		{"interval 11", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Forex.Klines(ctx, itick.RegionGB, []string{"EURUSD"}, itick.Interval(11), 10)
			return err
		}, "interval 11"},
		{"empty region batch", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Fund.Depths(ctx, "", []string{"SPY"})
			return err
		}, "region"},
		{"empty region depth", func(ctx context.Context, c *itick.Client) error { _, err := c.Stock.Depth(ctx, "", "700"); return err }, "region"},
		{"empty region klines", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Crypto.Klines(ctx, "", []string{"BTCUSDT"}, itick.OneMinute, 1)
			return err
		}, "region"},
		{"empty region split", func(ctx context.Context, c *itick.Client) error { _, err := c.Stock.SplitPage(ctx, "", 0); return err }, "region"},
		{"negative split page", func(ctx context.Context, c *itick.Client) error {
			_, err := c.Stock.SplitPage(ctx, itick.RegionUS, -1)
			return err
		}, "-1"},
		{"negative news limit", func(ctx context.Context, c *itick.Client) error {
			_, err := c.News.List(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: -3})
			return err
		}, "-3"},
		{"news without market", func(ctx context.Context, c *itick.Client) error {
			_, err := c.News.List(ctx, itick.NewsQuery{Lang: "en"})
			return err
		}, "Market"},
		{"splits iterator empty region", func(ctx context.Context, c *itick.Client) error {
			for _, err := range c.Stock.Splits(ctx, "") {
				return err
			}
			return nil
		}, "region"},
		{"news iterator negative limit", func(ctx context.Context, c *itick.Client) error {
			for _, err := range c.News.All(ctx, itick.NewsQuery{Market: "stock", Lang: "en", Limit: -1}) {
				return err
			}
			return nil
		}, "-1"},
	}
}
