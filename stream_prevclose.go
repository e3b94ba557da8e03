package itick

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/stream"
)

// WithPrevClose makes every QuoteEvent carry PrevClose, Change and
// ChangePercent, which the service's quote pushes leave out. The previous
// close comes from a REST quote snapshot of each product, taken when it is
// subscribed to quotes and again when its trading day changes: the date of
// a pushed quote's Time, in its market's time zone, differs from the
// snapshot's. A quote without a Time is dated by the client's clock
// (WithClock). Snapshots are batch calls on the client's limiter, counted in
// Stats. Classes whose REST quotes carry no previous close (crypto) keep
// the fields zero.
func WithPrevClose() StreamOption {
	return func(s *streamSettings) error {
		s.prevClose = true
		return nil
	}
}

// prevCloses holds the previous close of each product subscribed to quotes
// on a Stream with WithPrevClose, and renews it when its day changes.
type prevCloses struct {
	m      market
	report func(error)

	mu    sync.RWMutex
	byKey map[stream.Symbol]prevClose // by the product's symbol in upper case
	due   map[stream.Symbol]time.Time // products to renew, and when they may be tried
	wake  chan struct{}
}

type prevClose struct {
	price float64
	day   int // the snapshot's trading day, yyyymmdd in the market's zone
	// asked is the latest trading day a renewal was asked for: a REST
	// quote that lags the pushes does not bring one renewal per push.
	asked int
}

// retryAfter is how long a product whose snapshot failed waits before the
// next try.
const retryAfter = 30 * time.Second

func newPrevCloses(m market, report func(error)) *prevCloses {
	return &prevCloses{m: m, report: report, byKey: make(map[stream.Symbol]prevClose),
		due: make(map[stream.Symbol]time.Time), wake: make(chan struct{}, 1)}
}

func upperSymbol(s stream.Symbol) stream.Symbol {
	return stream.Symbol{Code: strings.ToUpper(s.Code), Exchange: strings.ToUpper(s.Exchange), Region: strings.ToUpper(s.Region)}
}

// fill sets q's PrevClose, Change and ChangePercent from sym's snapshot, and
// asks for a new one when there is none, or when q's day (see dayOf) is
// past the snapshot's and past any day a renewal was asked for. A push of an
// earlier day, one that was in flight when the day changed, asks for
// nothing.
func (p *prevCloses) fill(sym stream.Symbol, q *Quote) {
	key := upperSymbol(sym)
	p.mu.RLock()
	pc, ok := p.byKey[key]
	p.mu.RUnlock()
	if ok && pc.price != 0 {
		q.PrevClose = pc.price
		q.Change = q.Last - pc.price
		q.ChangePercent = q.Change / pc.price * 100
	}
	if !ok {
		p.schedule(key, 0)
	} else if day := p.dayOf(q.Time, Region(sym.Region)); day > pc.day && day > pc.asked {
		p.schedule(key, day)
	}
}

// dayOf is the trading day of a quote of region at t; a quote that
// carries no time is dated by the client's clock, when it arrived.
func (p *prevCloses) dayOf(t time.Time, region Region) int {
	if t.IsZero() {
		t = p.m.c.Now()
	}
	return tradingDay(t, region)
}

// schedule marks a product for renewal, and for a new day, every product
// of its market, whose day has changed too, so that they are renewed
// together; a product marked already stays as it is.
func (p *prevCloses) schedule(key stream.Symbol, day int) {
	marked := false
	mark := func(k stream.Symbol) {
		if _, due := p.due[k]; !due {
			p.due[k] = time.Time{}
			marked = true
		}
	}
	p.mu.Lock()
	if day > 0 {
		for k, pc := range p.byKey {
			if k.Region == key.Region && pc.day < day && pc.asked < day {
				pc.asked = day
				p.byKey[k] = pc
				mark(k)
			}
		}
	}
	mark(key)
	p.mu.Unlock()
	if marked {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// snapshot takes the previous close of syms from REST, one batch call per
// region and exchange, and keeps it.
func (p *prevCloses) snapshot(ctx context.Context, syms []stream.Symbol) error {
	type group struct{ region, exchange string }
	groups := make(map[group][]string)
	var order []group
	for _, s := range syms {
		g := group{strings.ToUpper(s.Region), strings.ToUpper(s.Exchange)}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], strings.ToUpper(s.Code))
	}
	var errs []error
	for _, g := range order {
		var opts []QuoteOption
		if g.exchange != "" {
			opts = append(opts, WithQuoteExchange(g.exchange))
		}
		quotes, err := p.m.quotes(ctx, Region(g.region), groups[g], opts)
		p.mu.Lock()
		for _, code := range groups[g] {
			key := stream.Symbol{Code: code, Exchange: g.exchange, Region: g.region}
			q, ok := findQuote(quotes, code)
			if !ok {
				p.due[key] = time.Now().Add(retryAfter)
				continue
			}
			p.byKey[key] = prevClose{price: q.PrevClose, day: p.dayOf(q.Time, Region(g.region)), asked: p.byKey[key].asked}
			delete(p.due, key)
		}
		p.mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("itick: stream: previous closes: %w", errs[0])
	}
	return nil
}

// findQuote finds code's quote among those REST returned, ignoring case.
func findQuote(quotes map[string]Quote, code string) (Quote, bool) {
	if q, ok := quotes[code]; ok {
		return q, true
	}
	for k, q := range quotes {
		if strings.EqualFold(k, code) {
			return q, true
		}
	}
	return Quote{}, false
}

// renew takes new snapshots of the products marked for it until ctx ends.
func (p *prevCloses) renew(ctx context.Context) {
	retry := time.NewTicker(retryAfter)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-retry.C:
		}
		now := time.Now()
		p.mu.Lock()
		var syms []stream.Symbol
		for key, at := range p.due {
			if !at.After(now) {
				syms = append(syms, key)
				p.due[key] = now.Add(retryAfter) // in flight: not asked for twice
			}
		}
		p.mu.Unlock()
		if len(syms) == 0 {
			continue
		}
		if err := p.snapshot(ctx, syms); err != nil && ctx.Err() == nil {
			p.report(err)
		}
	}
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

// tradingDay dates t in region's market zone, as yyyymmdd.
func tradingDay(t time.Time, region Region) int {
	y, m, d := t.In(zoneOf(region)).Date()
	return y*10000 + int(m)*100 + d
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

// snapshotNew takes the previous close of the products among symbols that
// have none yet; one it cannot take is tried again later by renew.
func (p *prevCloses) snapshotNew(ctx context.Context, symbols []string) error {
	var todo []stream.Symbol
	p.mu.RLock()
	for _, raw := range symbols {
		sym, err := stream.ParseSymbol(raw)
		if err != nil {
			continue // Subscribe refused it already
		}
		if _, ok := p.byKey[upperSymbol(sym)]; !ok {
			todo = append(todo, upperSymbol(sym))
		}
	}
	p.mu.RUnlock()
	if len(todo) == 0 {
		return nil
	}
	err := p.snapshot(ctx, todo)
	if err != nil {
		p.mu.Lock()
		for _, key := range todo {
			if _, ok := p.byKey[key]; !ok {
				p.due[key] = time.Now().Add(retryAfter)
			}
		}
		p.mu.Unlock()
	}
	return err
}
