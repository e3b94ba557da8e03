package itick

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/batch"
	"github.com/d19c4e34/itick/internal/transport"
)

// Region is a market code. The set is open-ended: Region("XX") is valid.
type Region string

// Regions seen in the service's documentation.
const (
	RegionHK Region = "HK"
	RegionSH Region = "SH"
	RegionSZ Region = "SZ"
	RegionUS Region = "US"
	RegionSG Region = "SG"
	RegionJP Region = "JP"
	RegionTW Region = "TW"
	RegionIN Region = "IN"
	RegionTH Region = "TH"
	RegionDE Region = "DE"
	RegionMX Region = "MX"
	RegionMY Region = "MY"
	RegionTR Region = "TR"
	RegionES Region = "ES"
	RegionNL Region = "NL"
	RegionGB Region = "GB"
	RegionCN Region = "CN"
	RegionBA Region = "BA"
	RegionBT Region = "BT"
	RegionPB Region = "PB"
)

func (r Region) validate() error {
	if r == "" {
		return invalidArg("region is empty")
	}
	for _, c := range r {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return invalidArg("region %q has a character other than letters, digits, '_' and '-'", string(r))
		}
	}
	return nil
}

// Interval is a K-line period, sent as the service's kType.
type Interval int

// The intervals the service serves.
const (
	OneMinute   Interval = 1
	FiveMinutes Interval = 2
	// FifteenMinutes is kType 3, 15 minutes in the service's 2026 docs;
	// older official docs and demos call kType 3 "10 minutes". The SDK
	// follows the current docs.
	FifteenMinutes Interval = 3
	ThirtyMinutes  Interval = 4
	OneHour        Interval = 5
	// TwoHours and FourHours are crypto only by the newest official SDK's
	// types. The SDK does not refuse them for other classes: nothing
	// confirms the restriction for REST, so the service decides.
	TwoHours  Interval = 6
	FourHours Interval = 7
	OneDay    Interval = 8
	OneWeek   Interval = 9
	OneMonth  Interval = 10
)

var intervalNames = [...]string{"", "1m", "5m", "15m", "30m", "1h", "2h", "4h", "1d", "1w", "1M"}

// String returns a short name such as "5m" or "1d".
func (i Interval) String() string {
	if i.valid() {
		return intervalNames[i]
	}
	return "Interval(" + strconv.Itoa(int(i)) + ")"
}

// Duration is the interval's length; a month counts as 30 days.
func (i Interval) Duration() time.Duration {
	switch i {
	case OneMinute:
		return time.Minute
	case FiveMinutes:
		return 5 * time.Minute
	case FifteenMinutes:
		return 15 * time.Minute
	case ThirtyMinutes:
		return 30 * time.Minute
	case OneHour:
		return time.Hour
	case TwoHours:
		return 2 * time.Hour
	case FourHours:
		return 4 * time.Hour
	case OneDay:
		return 24 * time.Hour
	case OneWeek:
		return 7 * 24 * time.Hour
	case OneMonth:
		return 30 * 24 * time.Hour
	}
	return 0
}

func (i Interval) valid() bool { return i >= OneMinute && i <= OneMonth }

// MaxKlineLimit is the most candles per code one K-line request may ask
// for: the service's published bound. A larger limit is ErrInvalidArgument
// rather than a silent split into several requests, so one call stays one
// request of the quota; KlineRange and KlinesRange page through longer
// histories.
const MaxKlineLimit = 500

// KlineOption refines a K-line request.
type KlineOption func(*klineOptions)

type klineOptions struct {
	exchange string
	end      time.Time
	endSet   bool

	// Range calls only.
	pageSize    int
	pageSizeSet bool
	progress    func(RangeProgress)
}

// WithExchange selects the exchange among stocks of one market (the e of
// the symbol list); without it the service answers for the primary one.
func WithExchange(exchange string) KlineOption {
	return func(o *klineOptions) { o.exchange = exchange }
}

// WithEnd asks for candles up to t (sent as et, Unix ms) instead of now.
func WithEnd(t time.Time) KlineOption {
	return func(o *klineOptions) { o.end, o.endSet = t, true }
}

// market is the plumbing every asset class shares; a service is a thin
// typed front over it.
type market struct {
	c     *Client
	class string // path segment: "stock", "crypto", ...
}

func (m market) path(endpoint string) string { return "/" + m.class + "/" + endpoint }

func (m market) depth(ctx context.Context, region Region, code string) (*DepthBook, error) {
	return fetchOne[DepthBook](ctx, m.c, m.path("depth"), region, code, nil)
}

func (m market) quote(ctx context.Context, region Region, code string, opts []QuoteOption) (*Quote, error) {
	return fetchOne[Quote](ctx, m.c, m.path("quote"), region, code, quoteQuery(opts))
}

func (m market) tick(ctx context.Context, region Region, code string, opts []QuoteOption) (*Tick, error) {
	return fetchOne[Tick](ctx, m.c, m.path("tick"), region, code, quoteQuery(opts))
}

func (m market) ticks(ctx context.Context, region Region, codes []string) (map[string]Tick, error) {
	return fetchBatch[Tick](ctx, m.c, m.path("ticks"), region, codes, nil, nil)
}

// kline is the single-code form of klines. A product with no candles (data
// null or []) gives an empty slice, not an error; data {}, what the service
// is reported to send for a market outside the plan, is ErrNotFound.
func (m market) kline(ctx context.Context, region Region, code string, interval Interval, limit int, opts []KlineOption) ([]Kline, error) {
	extra, err := klineQuery(interval, limit, opts)
	if err != nil {
		return nil, err
	}
	q, err := codeQuery(region, code, extra)
	if err != nil {
		return nil, err
	}
	var data klineData
	if err := m.c.get(ctx, m.path("kline"), q, &data); err != nil {
		return nil, err
	}
	if data.emptyObject {
		return nil, fmt.Errorf("%w: %s: no data for %s in %s", ErrNotFound, m.path("kline"), q.Get("code"), region)
	}
	ks := data.klines
	if !slices.IsSortedFunc(ks, cmpKline) {
		slices.SortStableFunc(ks, cmpKline)
	}
	return ks, nil
}

// klineData is the data of a single-code kline answer: an array of
// candles, or an empty object that says there are none to give.
type klineData struct {
	klines      []Kline
	emptyObject bool
}

func (m market) depths(ctx context.Context, region Region, codes []string) (map[string]DepthBook, error) {
	return fetchBatch[DepthBook](ctx, m.c, m.path("depths"), region, codes, nil, nil)
}

func (m market) quotes(ctx context.Context, region Region, codes []string) (map[string]Quote, error) {
	return fetchBatch[Quote](ctx, m.c, m.path("quotes"), region, codes, nil, nil)
}

func (m market) klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts []KlineOption) (map[string][]Kline, error) {
	extra, err := klineQuery(interval, limit, opts)
	if err != nil {
		return nil, err
	}
	return fetchBatch[[]Kline](ctx, m.c, m.path("klines"), region, codes, extra, sortKlines)
}

// QuoteOption refines a single stock quote or tick request.
type QuoteOption func(*quoteOptions)

type quoteOptions struct {
	exchange string
}

// WithQuoteExchange selects the exchange among stocks of one market (the e
// of the symbol list) for Stock.Quote, Stock.Tick, Stock.DepthWith and the
// batch Stock.QuotesWith, Stock.TicksWith and Stock.DepthsWith; without it
// the service answers for the primary one.
func WithQuoteExchange(exchange string) QuoteOption {
	return func(o *quoteOptions) { o.exchange = exchange }
}

func quoteQuery(opts []QuoteOption) url.Values {
	var o quoteOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.exchange = strings.TrimSpace(o.exchange); o.exchange == "" {
		return nil
	}
	return url.Values{"exchange": {o.exchange}}
}

func klineQuery(interval Interval, limit int, opts []KlineOption) (url.Values, error) {
	if !interval.valid() {
		return nil, invalidArg("unknown interval %d (want 1 to 10)", int(interval))
	}
	if limit < 1 {
		return nil, invalidArg("kline limit %d is below 1", limit)
	}
	if limit > MaxKlineLimit {
		return nil, invalidArg("kline limit %d is over the service's bound of %d candles a request", limit, MaxKlineLimit)
	}
	var o klineOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.pageSizeSet || o.progress != nil {
		return nil, invalidArg("WithPageSize and WithProgress apply to KlineRange and KlinesRange only")
	}
	q := url.Values{}
	q.Set("kType", strconv.Itoa(int(interval)))
	q.Set("limit", strconv.Itoa(limit))
	if o.exchange != "" {
		q.Set("exchange", o.exchange)
	}
	if !o.end.IsZero() {
		q.Set("et", strconv.FormatInt(o.end.UnixMilli(), 10))
	}
	return q, nil
}

// sortKlines puts each code's candles oldest first, whatever order the
// service used.
func sortKlines(m map[string][]Kline) {
	for _, ks := range m {
		if !slices.IsSortedFunc(ks, cmpKline) {
			slices.SortStableFunc(ks, cmpKline)
		}
	}
}

func cmpKline(a, b Kline) int { return a.Time.Compare(b.Time) }

// codeQuery validates region and one code and builds their query, with
// extra's parameters added.
func codeQuery(region Region, code string, extra url.Values) (url.Values, error) {
	if err := region.validate(); err != nil {
		return nil, err
	}
	code, err := batch.Code(code)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	q := query(region, "code", code)
	for k, v := range extra {
		q[k] = v
	}
	return q, nil
}

// fetchOne fetches the single-code form of an endpoint, whose data is one
// object. An answer with no data, null or {} (what the service is reported
// to send for a market outside the plan), is ErrNotFound: never a zero
// value that looks like a product.
func fetchOne[T any](ctx context.Context, c *Client, path string, region Region, code string, extra url.Values) (*T, error) {
	q, err := codeQuery(region, code, extra)
	if err != nil {
		return nil, err
	}
	var out *T
	if err := c.get(ctx, path, q, &out); err != nil {
		return nil, err
	}
	if isEmpty(out) {
		return nil, fmt.Errorf("%w: %s: no data for %s in %s", ErrNotFound, path, q.Get("code"), region)
	}
	return out, nil
}

// isEmpty reports a decoded single object that carried nothing: nil for
// null data, the zero value for {}.
func isEmpty[T any](v *T) bool { return v == nil || reflect.ValueOf(v).Elem().IsZero() }

// fetchBatch validates and normalises codes, sends them in chunks of the
// client's batch size at its concurrency, and merges the results. One chunk's
// error is returned as it is; with several chunks, the results that arrived
// come back with a *BatchError naming the codes that did not. A failure that
// every chunk would meet stops the batch early (see batchStop).
func fetchBatch[T any](ctx context.Context, c *Client, path string, region Region, codes []string,
	extra url.Values, after func(map[string]T)) (map[string]T, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if err := region.validate(); err != nil {
		return nil, err
	}
	norm, err := batch.Normalize(codes)
	if err != nil {
		return nil, invalidArg("%v", err)
	}
	chunks := batch.Split(norm, c.batchSize)
	results := make([]map[string]T, len(chunks))
	errs := batch.RunUntil(ctx, len(chunks), c.concurrency, func(ctx context.Context, i int) error {
		q := query(region)
		for k, v := range extra {
			q[k] = v
		}
		q.Set("codes", joinCodes(chunks[i]))
		var got map[string]T
		if err := c.get(ctx, path, q, &got); err != nil {
			return err
		}
		if after != nil {
			after(got)
		}
		results[i] = got
		return nil
	}, batchStop)
	for _, err := range errs {
		if err != nil && batchStop(err) == batch.Abort {
			return nil, err
		}
	}

	merged := make(map[string]T, len(norm))
	for _, r := range results {
		for k, v := range r {
			merged[k] = v
		}
	}
	if len(chunks) == 1 {
		if errs[0] != nil {
			return nil, errs[0]
		}
		return merged, nil
	}
	var be BatchError
	for i, err := range errs {
		if err != nil {
			be.Chunks = append(be.Chunks, ChunkError{Codes: chunks[i], Err: err})
		}
	}
	if len(be.Chunks) > 0 {
		return merged, &be
	}
	return merged, nil
}

// batchStop says what one chunk's error means for the others. A refused
// token or a plan limit fails every chunk alike, so the batch is aborted and
// that error returned alone, without spending more quota. A 429 whose
// Retry-After the client does not wait for would meet every later chunk
// too, so none is sent; those in flight may still bring results.
func batchStop(err error) batch.Stop {
	if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrPlanLimit) {
		return batch.Abort
	}
	var apiErr *APIError
	if errors.Is(err, ErrRateLimited) && errors.As(err, &apiErr) && apiErr.RetryAfter > transport.MaxRetryAfter {
		return batch.Drain
	}
	return batch.Continue
}

func joinCodes(codes []string) string {
	n := len(codes) - 1
	for _, c := range codes {
		n += len(c)
	}
	b := make([]byte, 0, n)
	for i, c := range codes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	return string(b)
}
