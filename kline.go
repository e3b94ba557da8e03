package itick

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
)

// Kline is one candle.
type Kline struct {
	Time     time.Time `itick:"t,unixms"` // UTC: the start of the interval
	Open     float64   `itick:"o"`
	High     float64   `itick:"h"`
	Low      float64   `itick:"l"`
	Close    float64   `itick:"c"`
	Volume   float64   `itick:"v"`
	Turnover float64   `itick:"tu"`
}

var klineModel = codec.Describe[Kline]()

// seriesReader reads candles keyed by code, in the order the service sent
// them.
var seriesReader = codec.NewMap(func(st *codec.State, ks *[]Kline, _ string) (err error) {
	*ks, err = klineModel.List(st)
	return err
})

// UnmarshalJSON decodes the wire form.
func (k *Kline) UnmarshalJSON(b []byte) error { return klineModel.Unmarshal(b, k) }

// MarshalJSON encodes the service's wire form.
func (k Kline) MarshalJSON() ([]byte, error) { return klineModel.Marshal(&k) }

// sortKlines puts candles oldest first, whatever order the service used.
func sortKlines(ks []Kline) {
	if !slices.IsSortedFunc(ks, cmpKline) {
		slices.SortStableFunc(ks, cmpKline)
	}
}

func cmpKline(a, b Kline) int { return a.Time.Compare(b.Time) }

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

	closedOnly    bool
	splitAdjusted bool // WithSplitAdjusted: stock calls only

	// Range calls only.
	pageSize    int
	pageSizeSet bool
	progress    func(RangeProgress)
	resume      map[string][]Kline
	resumeSet   bool
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

// klineRequest is a checked K-line request: its query and, with
// WithClosedOnly, the latest start of a candle it keeps.
type klineRequest struct {
	query      url.Values
	closedOnly bool
	closedBy   time.Time
}

// klineQuery checks a K-line request; now is the client's clock, read
// only for WithClosedOnly.
func klineQuery(now func() time.Time, interval Interval, limit int, opts []KlineOption) (klineRequest, error) {
	if !interval.valid() {
		return klineRequest{}, invalidArg("unknown interval %d (want 1 to 10)", int(interval))
	}
	if limit < 1 {
		return klineRequest{}, invalidArg("kline limit %d is below 1", limit)
	}
	if limit > MaxKlineLimit {
		return klineRequest{}, invalidArg("kline limit %d is over the service's bound of %d candles a request", limit, MaxKlineLimit)
	}
	var o klineOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.pageSizeSet || o.progress != nil || o.resumeSet {
		return klineRequest{}, invalidArg("WithPageSize, WithProgress and WithResume apply to KlineRange and KlinesRange only")
	}
	r := klineRequest{query: url.Values{}, closedOnly: o.closedOnly}
	end := o.end
	if o.closedOnly {
		// Asking for candles up to the newest closed one, rather than
		// dropping the forming one afterwards, keeps limit candles.
		r.closedBy = closedBy(interval, now())
		if end.IsZero() || end.After(r.closedBy) {
			end = r.closedBy
		}
	}
	r.query.Set("kType", strconv.Itoa(int(interval)))
	r.query.Set("limit", strconv.Itoa(limit))
	if o.exchange != "" {
		r.query.Set("exchange", o.exchange)
	}
	if !end.IsZero() {
		r.query.Set("et", strconv.FormatInt(end.UnixMilli(), 10))
	}
	return r, nil
}

// keep drops, with WithClosedOnly, the candles still forming: a service
// that ignores et may send them.
func (r klineRequest) keep(ks []Kline) []Kline {
	if !r.closedOnly {
		return ks
	}
	return slices.DeleteFunc(ks, func(k Kline) bool { return k.Time.After(r.closedBy) })
}

// closedBy is the latest start of a candle of interval that has closed at
// now. A month is taken as its longest, 31 days: the service documents no
// alignment, and a candle that may still be forming is left out.
func closedBy(interval Interval, now time.Time) time.Time {
	span := interval.Duration()
	if interval == OneMonth {
		span = 31 * 24 * time.Hour
	}
	return now.Add(-span)
}

// kline is the single-code form of klines. A product with no candles (data
// null or []) gives an empty slice, not an error; data {}, what the service
// is reported to send for a market outside the plan, is ErrNotFound.
func (m market) kline(ctx context.Context, region Region, code string, interval Interval, limit int, opts []KlineOption) ([]Kline, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	req, err := klineQuery(m.c.Now, interval, limit, opts)
	if err != nil {
		return nil, err
	}
	q, err := codeQuery(region, code, req.query)
	if err != nil {
		return nil, err
	}
	splits, err := m.splitsIfAdjusted(ctx, region, []string{code}, opts)
	if err != nil {
		return nil, err
	}
	data, err := get(ctx, m.c, m.path("kline"), q, readKlineData)
	if err != nil {
		return nil, err
	}
	if data.emptyObject {
		return nil, m.c.notFound("%s: no data for %s in %s", m.path("kline"), q.Get("code"), region)
	}
	sortKlines(data.klines)
	ks := req.keep(data.klines)
	if err := splits.adjust(q.Get("code"), ks); err != nil {
		return nil, err
	}
	return ks, nil
}

// klineData is the data of a single-code kline answer: an array of
// candles, or an empty object that says there are none to give.
type klineData struct {
	klines      []Kline
	emptyObject bool
}

func readKlineData(st *codec.State) (klineData, error) {
	d := &st.D
	if d.Peek() == '{' {
		m := d.Mark()
		if empty, err := d.Enter('{'); err == nil && empty {
			return klineData{emptyObject: true}, nil
		}
		d.Rewind(m)
	}
	ks, err := klineModel.List(st)
	return klineData{klines: ks}, err
}

func (m market) klines(ctx context.Context, region Region, codes []string, interval Interval, limit int, opts []KlineOption) (map[string][]Kline, error) {
	req, err := klineQuery(m.c.Now, interval, limit, opts)
	if err != nil {
		return nil, err
	}
	splits, err := m.splitsIfAdjusted(ctx, region, codes, opts)
	if err != nil {
		return nil, err
	}
	out, err := fetchBatch(ctx, m.c, m.path("klines"), region, codes, req.query, seriesReader.Read, nil)
	for code, ks := range out {
		sortKlines(ks)
		out[code] = req.keep(ks)
	}
	return out, withFailed(err, splits.adjustAll(out))
}

// DefaultPageSize is the number of candles a range call asks for per
// request unless WithPageSize says otherwise: the service's bound,
// MaxKlineLimit. The largest page takes the fewest requests, and on a
// per-minute quota requests are what a backfill waits for.
const DefaultPageSize = MaxKlineLimit

// WithPageSize sets how many candles per code each request of KlineRange or
// KlinesRange asks for: 1 to MaxKlineLimit, DefaultPageSize by default.
// Smaller pages only cost more requests; they suit a service or proxy that
// answers large pages slowly. Other calls refuse it: their limit is the
// page.
func WithPageSize(n int) KlineOption {
	return func(o *klineOptions) { o.pageSize, o.pageSizeSet = n, true }
}

// WithProgress makes KlineRange and KlinesRange call fn after every page
// that arrives, so a long backfill can show how far it has come. Calls are
// never concurrent and hold up the range call while they run, so fn should
// return quickly. Other calls refuse it.
func WithProgress(fn func(RangeProgress)) KlineOption {
	return func(o *klineOptions) { o.progress = fn }
}

// WithResume makes KlineRange or KlinesRange complete have, the partial
// result of an earlier call over the same from, or a store brought up to
// date: a code in have is asked only for what it lacks at both ends,
// [from, its oldest candle) and [its newest candle, to), its newest candle
// fetched again and replaced, as it may have been still forming when
// stored; a code absent or with no candle in [from, to) is asked for all
// of it. The result holds have's candles in [from, to) and the new ones.
// have is not modified. Other calls refuse it. See the Backfilling
// section.
func WithResume(have map[string][]Kline) KlineOption {
	return func(o *klineOptions) { o.resume, o.resumeSet = have, true }
}

// WithClosedOnly leaves out the candle whose interval has not ended at the
// time of the call (on the client's clock), so that what is stored is
// final. A month counts as 31 days here, so a shorter month's candle stays
// out for up to three days after it closed. It applies to every kline call.
func WithClosedOnly() KlineOption {
	return func(o *klineOptions) { o.closedOnly = true }
}

// RangeProgress is how far a KlineRange or KlinesRange call has come.
type RangeProgress struct {
	Requests int       // requests answered so far; each carried up to a batch of codes
	Candles  int       // candles of the range held so far, every code together, WithResume's included
	Codes    int       // codes in the call
	Done     int       // codes whose range is complete, or whose history ran out
	From, To time.Time // the range; To is capped at the time of the call, and an interval before it with WithClosedOnly
	// Reached is how far back every code not yet done is complete: each
	// has every candle from Reached to To. It is From once all are done.
	Reached time.Time

	fraction float64
}

// Fraction is the share of the range covered so far, from 0 to 1: the
// average over the codes of the part of From..To each has received, a
// finished code counting as whole.
func (p RangeProgress) Fraction() float64 {
	if p.Codes == 0 || p.Done >= p.Codes {
		return 1
	}
	return p.fraction
}
