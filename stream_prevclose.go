package itick

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/stream"
)

// WithPrevClose makes QuoteEvents carry PrevClose, Change and
// ChangePercent, which the service's quote pushes leave out. The previous
// close comes from a REST quote snapshot of each product, taken once the
// service has acknowledged its subscription to quotes, and again when its
// trading day changes. Subscribe does not wait for it: the snapshots are
// batch calls (one per chunk of the products of a region) that the
// Stream's own goroutine makes on the client's limiter, counted in Stats,
// and Close waits for the one in flight to end.
//
// A QuoteEvent carries PrevClose once it is known for the quote's trading
// day (the date of its Time in its market's time zone), and zero before, as
// without the option; Change and ChangePercent come with it, unless the
// push carries no last price. A snapshot that fails is tried again with a
// growing wait (a 429's Retry-After, when longer, is waited out without
// holding anything up), and an ErrorEvent with Conn -1 names the products
// whose snapshot failed, or whose REST quote carries no previous close
// (crypto quotes never do, so do not spend calls on it for crypto); the
// same failure is reported once, not at every try.
//
// A product's trading day changes when one of its pushes is dated a later
// day, in its market's zone, than its snapshot. A quote without a Time, and
// one dated more than a day and a half past the client's clock
// (WithClock), is dated by that clock, so a push with a garbage time renews
// nothing. The product is renewed, with the others of its market whose
// snapshot is older, in one batch call per chunk; while its REST quote is
// still of the day before, it is asked again with the same growing wait,
// not once per push. Products unsubscribed from quotes are forgotten and
// never asked for.
func WithPrevClose() StreamOption {
	return func(s *streamSettings) error {
		s.prevClose = true
		return nil
	}
}

// The waits between the snapshots of a product: after a failure, or a REST
// quote of a day before its pushes', from the shortest, doubling up to the
// longest.
const (
	prevCloseRetryMin = time.Second
	prevCloseRetryMax = 5 * time.Minute
	// prevCloseTimeout bounds one snapshot: a 429 asking for a longer wait
	// ends the call at once, and the schedule waits it out.
	prevCloseTimeout = 30 * time.Second
)

// prevCloses holds the previous close of each product subscribed to quotes
// on a Stream with WithPrevClose. fill runs in the socket readers; run, in
// the Stream's own goroutine, takes the snapshots.
type prevCloses struct {
	m      market
	report func(error)           // an ErrorEvent on no connection
	held   func(sym string) bool // the Stream holds the product's quotes
	retry  [2]time.Duration      // the shortest and longest wait between tries

	mu    sync.RWMutex
	books map[stream.Symbol]*prevBook // by the product in upper case
	pause time.Time                   // a spent quota's end: nothing is asked before
	wake  chan struct{}
}

// prevBook is one product's previous closes and what its next snapshot waits
// for.
type prevBook struct {
	sym stream.Symbol // as subscribed

	// What fill reads.
	taken     bool     // a snapshot has answered for it
	cur, prev dayClose // its snapshot's day, and the day before's for late pushes
	wantTo    int64    // the end of the latest day its pushes claimed, Unix ms

	// What the snapshots go by.
	want   int       // the latest day its pushes claimed (yyyymmdd), when past cur's
	ride   int       // a day another product of its market claimed
	next   time.Time // when it may be asked again (real time)
	tries  int       // failures, or answers of an earlier day, in a row
	failed string    // the failure last reported, so that it is not again
	gone   bool      // no longer subscribed to quotes: never asked for
}

// dayClose is the previous close of one trading day.
type dayClose struct {
	price    float64 // 0: the REST quote carried none
	day      int     // yyyymmdd in the market's zone
	from, to int64   // the day's bounds, Unix ms
}

// needs reports whether b waits for a snapshot. mu is held.
func (b *prevBook) needs() bool { return !b.taken || b.want > b.cur.day || b.ride > b.cur.day }

func newPrevCloses(m market, report func(error), held func(string) bool) *prevCloses {
	return &prevCloses{m: m, report: report, held: held, retry: [2]time.Duration{prevCloseRetryMin, prevCloseRetryMax},
		books: make(map[stream.Symbol]*prevBook), wake: make(chan struct{}, 1)}
}

func upperSymbol(s stream.Symbol) stream.Symbol {
	return stream.Symbol{Code: strings.ToUpper(s.Code), Exchange: strings.ToUpper(s.Exchange), Region: strings.ToUpper(s.Region)}
}

func (p *prevCloses) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// add takes on products the Stream now holds subscribed to quotes, as
// subscribed; their first snapshot is asked for at once.
func (p *prevCloses) add(syms []stream.Symbol) {
	if len(syms) == 0 {
		return
	}
	p.mu.Lock()
	for _, s := range syms {
		key := upperSymbol(s)
		if b := p.books[key]; b == nil {
			p.books[key] = &prevBook{sym: s}
		} else {
			b.sym, b.gone = s, false
		}
	}
	p.mu.Unlock()
	p.signal()
}

// forget drops products unsubscribed from quotes.
func (p *prevCloses) forget(syms []stream.Symbol) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range syms {
		delete(p.books, upperSymbol(s))
	}
}

// fill sets q's PrevClose, Change and ChangePercent from the snapshot of
// q's trading day, if there is one; a push of a later day asks for a
// renewal. sym is the product as subscribed.
func (p *prevCloses) fill(sym stream.Symbol, q *Quote) {
	key := upperSymbol(sym)
	at := q.Time
	if at.IsZero() {
		at = p.m.c.Now()
	}
	ms := at.UnixMilli()
	var price float64
	later := false
	p.mu.RLock()
	b := p.books[key]
	if b != nil && b.taken {
		switch {
		case ms >= b.cur.from && ms < b.cur.to:
			price = b.cur.price
		case ms >= b.prev.from && ms < b.prev.to:
			price = b.prev.price
		}
		later = ms >= b.cur.to && ms >= b.wantTo && !b.gone
	}
	p.mu.RUnlock()
	switch {
	case b == nil:
		p.adopt(key, sym)
	case later:
		p.claim(key, at)
	}
	if price == 0 {
		return
	}
	q.PrevClose, q.Change, q.ChangePercent = price, 0, 0
	if q.Last != 0 { // a push without a last price has no change
		q.Change = q.Last - price
		q.ChangePercent = q.Change / price * 100
	}
}

// adopt takes on a product whose quotes are pushed without the Stream
// having seen its subscription acknowledged (a Subscribe whose ctx ended
// first); run checks that it is held before asking for it.
func (p *prevCloses) adopt(key, sym stream.Symbol) {
	p.mu.Lock()
	if p.books[key] == nil {
		p.books[key] = &prevBook{sym: sym}
	}
	p.mu.Unlock()
	p.signal()
}

// claim asks for a renewal of key's snapshot for the day of a push at t,
// and for the others of its market whose snapshot is older, once for that
// day.
func (p *prevCloses) claim(key stream.Symbol, t time.Time) {
	day, _, to := tradingDay(p.bounded(t), key.Region)
	stale := func(b *prevBook) bool {
		return b != nil && !b.gone && b.taken && day > b.cur.day && day > b.want
	}
	p.mu.RLock()
	ok := stale(p.books[key])
	p.mu.RUnlock()
	if !ok { // a push of a day renewed for already, or one dated past the clock
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.books[key]
	if !stale(b) {
		return
	}
	b.want, b.wantTo = day, to
	if b.tries == 0 {
		b.next = time.Time{}
	}
	for k, o := range p.books {
		if o != b && k.Region == key.Region && o.taken && !o.gone && o.cur.day < day && o.want < day && o.ride < day {
			o.ride = day
		}
	}
	p.signal()
}

// maxAhead is how far past the client's clock a quote's time is believed:
// a clock a day behind the service's still sees its days change, and a
// garbage time (the year 2999) claims no day the clock has not reached.
const maxAhead = 36 * time.Hour

// bounded is the time a quote's t is taken for: t, or the client's clock
// when t is further past it than maxAhead.
func (p *prevCloses) bounded(t time.Time) time.Time {
	if now := p.m.c.Now(); t.After(now.Add(maxAhead)) {
		return now
	}
	return t
}

// marketZones are the time zones in which each region's trading day is
// dated. A region not listed is dated in UTC, as crypto trades around the
// clock.
var marketZones = map[Region]string{
	RegionHK: "Asia/Hong_Kong", RegionSH: "Asia/Shanghai", RegionSZ: "Asia/Shanghai", RegionCN: "Asia/Shanghai",
	RegionUS: "America/New_York", RegionSG: "Asia/Singapore", RegionJP: "Asia/Tokyo", RegionTW: "Asia/Taipei",
	RegionIN: "Asia/Kolkata", RegionTH: "Asia/Bangkok", RegionDE: "Europe/Berlin", RegionMX: "America/Mexico_City",
	RegionMY: "Asia/Kuala_Lumpur", RegionTR: "Europe/Istanbul", RegionES: "Europe/Madrid", RegionNL: "Europe/Amsterdam",
	RegionGB: "Europe/London",
}

// standardOffsets are the zones' standard offsets from UTC, in minutes,
// for a system without a time zone database: trading is far from
// midnight, so an hour of summer time does not change a trade's date.
var standardOffsets = map[string]int{
	"Asia/Hong_Kong": 480, "Asia/Shanghai": 480, "America/New_York": -300, "Asia/Singapore": 480, "Asia/Tokyo": 540,
	"Asia/Taipei": 480, "Asia/Kolkata": 330, "Asia/Bangkok": 420, "Europe/Berlin": 60, "America/Mexico_City": -360,
	"Asia/Kuala_Lumpur": 480, "Europe/Istanbul": 180, "Europe/Madrid": 60, "Europe/Amsterdam": 60, "Europe/London": 0,
}

var zones sync.Map // Region (upper case) -> *time.Location

// tradingDay dates t in region's market zone: the day as yyyymmdd, and its
// bounds in Unix ms.
func tradingDay(t time.Time, region string) (day int, from, to int64) {
	loc := zoneOf(Region(region))
	y, m, d := t.In(loc).Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, loc)
	return y*10000 + int(m)*100 + d, start.UnixMilli(), time.Date(y, m, d+1, 0, 0, 0, 0, loc).UnixMilli()
}

func zoneOf(region Region) *time.Location {
	r := Region(strings.ToUpper(string(region)))
	if loc, ok := zones.Load(r); ok {
		return loc.(*time.Location)
	}
	loc := time.UTC
	if name, ok := marketZones[r]; ok {
		var err error
		if loc, err = time.LoadLocation(name); err != nil {
			loc = time.FixedZone(name, standardOffsets[name]*60)
		}
	}
	zones.Store(r, loc)
	return loc
}

// run takes the snapshots the books wait for until ctx ends.
func (p *prevCloses) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		todo, wait := p.due(time.Now())
		if ctx.Err() != nil {
			return
		}
		if len(todo) > 0 {
			p.snapshot(ctx, todo)
			continue
		}
		var tick <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-tick:
		}
		timer.Stop()
	}
}
