package itick_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"

	"github.com/d19c4e34/itick"
)

// TestExtra_SingularNoDataIsNotFound: a quote, tick or depth answer with
// null data is ErrNotFound, never a nil value with a nil error.
func TestExtra_SingularNoDataIsNotFound(t *testing.T) {
	t.Parallel()
	calls := map[string]func(ctx context.Context, c *itick.Client) (any, error){
		"/forex/quote": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Forex.Quote(ctx, itick.RegionGB, "XXXYYY")
		},
		"/stock/tick": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Stock.Tick(ctx, itick.RegionUS, "NOPE")
		},
		"/fund/depth": func(ctx context.Context, c *itick.Client) (any, error) {
			return c.Fund.Depth(ctx, itick.RegionUS, "NOPE")
		},
	}
	for path, call := range calls {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterResponder(http.MethodGet, mockBase+path, body(http.StatusOK, `{"code":0,"msg":null,"data":null}`))
			got, err := call(t.Context(), c)
			if !errors.Is(err, itick.ErrNotFound) {
				t.Fatalf("err = %v, want ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the path", err)
			}
			if v := reflect.ValueOf(got); !v.IsNil() {
				t.Errorf("got a value %v with the error", got)
			}
		})
	}
}

// TestExtra_KlineNoData: a product without candles is an empty result.
func TestExtra_KlineNoData(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder(http.MethodGet, mockBase+"/crypto/kline", body(http.StatusOK, `{"code":0,"msg":null,"data":null}`))
	ks, err := c.Crypto.Kline(t.Context(), itick.RegionBA, "NEWUSDT", itick.OneDay, 5)
	if err != nil || len(ks) != 0 {
		t.Fatalf("Kline = %v, %v; want no candles and no error", ks, err)
	}
}

// TestExtra_ServiceErrorPassesThrough: the success rule applies to the new
// endpoints as to the old.
func TestExtra_ServiceErrorPassesThrough(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken)
	mt.RegisterResponder(http.MethodGet, mockBase+"/stock/quote", body(http.StatusOK, `{"code":0,"msg":"E001 not found this produce","data":null}`))
	_, err := c.Stock.Quote(t.Context(), itick.RegionUS, "ZZZZ")
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, itick.ErrNotFound) || apiErr.Path != "/stock/quote" {
		t.Fatalf("err = %#v, want an *APIError for /stock/quote matching ErrNotFound", err)
	}
}

// TestExtra_TicksChunked: Ticks splits its codes like every batch call and
// reports a failed chunk's codes.
func TestExtra_TicksChunked(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithBatchSize(2), itick.WithRetries(0))
	var mu sync.Mutex
	var chunks [][]string
	mt.RegisterResponder(http.MethodGet, mockBase+"/crypto/ticks", func(req *http.Request) (*http.Response, error) {
		codes := strings.Split(req.URL.Query().Get("codes"), ",")
		mu.Lock()
		chunks = append(chunks, codes)
		mu.Unlock()
		if slices.Contains(codes, "BAD") {
			return httpmock.NewStringResponse(http.StatusBadRequest, `{"code":400,"msg":"bad request","data":null}`), nil
		}
		data := map[string]any{}
		for i, code := range codes {
			data[code] = map[string]any{"s": code, "ld": i + 1, "t": 1765526889000, "v": 0.5}
		}
		b, _ := json.Marshal(map[string]any{"code": 0, "msg": nil, "data": data})
		return httpmock.NewBytesResponse(http.StatusOK, b), nil
	})

	got, err := c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "C", "A", "D", "E"})
	if err != nil {
		t.Fatalf("Ticks: %v", err)
	}
	if len(chunks) != 3 {
		t.Fatalf("sent %d chunks, want 3: %v", len(chunks), chunks)
	}
	var sent []string
	for _, ch := range chunks {
		if len(ch) > 2 {
			t.Errorf("chunk %v has more than 2 codes", ch)
		}
		sent = append(sent, ch...)
	}
	slices.Sort(sent)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, sent); diff != "" {
		t.Errorf("codes sent (-want +got):\n%s", diff)
	}
	keys := make([]string, 0, len(got))
	for k, v := range got {
		if v.Symbol != k {
			t.Errorf("got[%q].Symbol = %q", k, v.Symbol)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"A", "B", "C", "D", "E"}, keys); diff != "" {
		t.Errorf("merged keys (-want +got):\n%s", diff)
	}

	got, err = c.Crypto.Ticks(t.Context(), itick.RegionBA, []string{"A", "B", "BAD", "C"})
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BatchError", err)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"BAD", "C"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if _, ok := got["A"]; !ok || len(got) != 2 {
		t.Errorf("partial results = %v, want A and B", got)
	}
}

// xBadCall is one call with an invalid argument.
type xBadCall struct {
	name string
	bad  string // the value the error must name
	call func(ctx context.Context, c *itick.Client) error
}

func errOnly[T any](_ T, err error) error { return err }

func marketBadCalls() []xBadCall {
	ok := []string{"A"}
	return []xBadCall{
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
	}
}

// runBadCalls checks that each call fails with ErrInvalidArgument naming the
// bad value and sends nothing.
func runBadCalls(t *testing.T, cases []xBadCall) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newMockClient(t, testToken)
			mt.RegisterNoResponder(httpmock.NewStringResponder(http.StatusOK, `{"code":0,"msg":null,"data":null}`))
			err := tc.call(t.Context(), c)
			if !errors.Is(err, itick.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("error %q does not name %q", err, tc.bad)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("sent %d requests, want 0", n)
			}
		})
	}
}

func TestExtra_MarketMethodsValidate(t *testing.T) {
	t.Parallel()
	runBadCalls(t, marketBadCalls())
}
