package itick

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/d19c4e34/itick/internal/stream"
	"github.com/d19c4e34/itick/internal/transport"
)

// The snapshots of WithPrevClose: which books are due, the batch calls,
// and what their answers and failures do to the books.

// maxNamed bounds the products an ErrorEvent of a snapshot names.
const maxNamed = 10

// asked is a book to ask for, with its product as it was when it was
// found due: add may change a book's form meanwhile, under mu.
type asked struct {
	b   *prevBook
	sym stream.Symbol
}

// due returns the books to ask for now, or how long until the next is due
// (-1: none waits). A product the Stream no longer holds subscribed to
// quotes is let go instead.
func (p *prevCloses) due(now time.Time) ([]asked, time.Duration) {
	var ready []asked
	wait := time.Duration(-1)
	p.mu.RLock()
	for _, b := range p.books {
		if b.gone || !b.needs() {
			continue
		}
		at := b.next
		if p.pause.After(at) {
			at = p.pause
		}
		if d := at.Sub(now); d > 0 {
			if wait < 0 || d < wait {
				wait = d
			}
			continue
		}
		ready = append(ready, asked{b, b.sym})
	}
	p.mu.RUnlock()
	todo := ready[:0]
	for _, a := range ready {
		if p.held(a.sym.String()) {
			todo = append(todo, a)
			continue
		}
		p.mu.Lock()
		a.b.gone = true
		p.mu.Unlock()
	}
	return todo, wait
}

// snapshot asks for books' quotes: one batch call per region and exchange,
// each bounded by prevCloseTimeout.
func (p *prevCloses) snapshot(ctx context.Context, todo []asked) {
	type group struct{ region, exchange string }
	groups := make(map[group][]asked)
	for _, a := range todo {
		g := group{strings.ToUpper(a.sym.Region), strings.ToUpper(a.sym.Exchange)}
		groups[g] = append(groups[g], a)
	}
	keys := make([]group, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	slices.SortFunc(keys, func(a, b group) int {
		return cmp.Or(cmp.Compare(a.region, b.region), cmp.Compare(a.exchange, b.exchange))
	})
	for _, g := range keys {
		as := groups[g]
		slices.SortFunc(as, func(a, b asked) int { return cmp.Compare(a.sym.Code, b.sym.Code) })
		codes := make([]string, len(as))
		for i, a := range as {
			codes[i] = a.sym.Code
		}
		var opts []QuoteOption
		if g.exchange != "" {
			opts = append(opts, WithQuoteExchange(g.exchange))
		}
		cctx, cancel := context.WithTimeout(ctx, prevCloseTimeout)
		quotes, err := p.m.quotes(cctx, Region(g.region), codes, opts)
		cancel()
		if ctx.Err() != nil {
			return // the Stream has ended
		}
		p.apply(as, quotes, err, time.Now())
	}
}

// apply keeps what a snapshot of books brought, schedules the next try of
// those it did not bring (or brought of a day before their pushes'), and
// reports the failures not reported already.
func (p *prevCloses) apply(todo []asked, quotes map[string]Quote, err error, now time.Time) {
	chunkErr := make(map[string]error) // by upper-case code, from a *BatchError
	var be *BatchError
	if errors.As(err, &be) {
		for _, c := range be.Chunks {
			for _, code := range c.Codes {
				chunkErr[strings.ToUpper(code)] = c.Err
			}
		}
	}
	wait, _ := RetryAfter(err)
	if errors.Is(err, ErrRateLimited) {
		p.mu.Lock()
		p.pause = now.Add(max(wait, p.retry[0]))
		p.mu.Unlock()
	}
	var reports []failure
	p.mu.Lock()
	for _, a := range todo {
		b := a.b
		if p.books[upperSymbol(a.sym)] != b {
			continue // forgotten meanwhile
		}
		q, ok := findQuote(quotes, a.sym.Code)
		why := err
		if be != nil {
			why = chunkErr[strings.ToUpper(a.sym.Code)]
		}
		switch {
		case why != nil && !ok:
			if p.failed(b, failureKey(why), now, wait) {
				reports = noteFailure(reports, b, why)
			}
		case !ok:
			if p.failed(b, "missing", now, 0) {
				reports = noteFailure(reports, b, errMissing)
			}
		case p.took(b, q, now):
			reports = noteFailure(reports, b, errNoPrevClose)
		}
	}
	p.mu.Unlock()
	for _, f := range reports {
		p.report(fmt.Errorf("itick: stream: previous close of %s: %w", names(f.names), f.err))
	}
}

// The failures of a snapshot that are not the call's.
var (
	errMissing     = fmt.Errorf("no REST quote came for it: %w", ErrNotFound)
	errNoPrevClose = errors.New("its REST quote carries no previous close")
)

// failure is one reason a snapshot failed, and the products it failed
// for, in order.
type failure struct {
	err   error
	names []string
}

// noteFailure adds b to the failure of err.
func noteFailure(fs []failure, b *prevBook, err error) []failure {
	for i := range fs {
		if fs[i].err == err {
			fs[i].names = append(fs[i].names, b.sym.String())
			return fs
		}
	}
	return append(fs, failure{err: err, names: []string{b.sym.String()}})
}

// failed schedules b's next try after a failure of key, a growing wait or
// the service's Retry-After, whichever is longer, and reports whether the
// failure is news: not the one reported last for b.
func (p *prevCloses) failed(b *prevBook, key string, now time.Time, retryAfter time.Duration) (news bool) {
	b.tries++
	b.next = now.Add(max(p.backoff(b.tries), retryAfter))
	news = b.failed != key
	b.failed = key
	return news
}

// took keeps b's snapshot q, and reports whether it lacks a previous
// close, as news. A quote without a time is dated by the client's clock;
// one of a day before b's pushes' is asked for again.
func (p *prevCloses) took(b *prevBook, q Quote, now time.Time) (lacks bool) {
	t := q.Time
	if t.IsZero() {
		t = p.m.c.Now()
	}
	day, from, to := tradingDay(p.bounded(t), b.sym.Region)
	if !b.taken || day >= b.cur.day {
		if b.taken && day > b.cur.day {
			b.prev = b.cur
		}
		b.cur = dayClose{price: q.PrevClose, day: day, from: from, to: to}
		b.taken = true
	}
	b.ride = 0
	if b.want > b.cur.day {
		b.tries++ // the REST quote lags behind the pushes
		b.next = now.Add(p.backoff(b.tries))
	} else {
		b.tries, b.next = 0, time.Time{}
	}
	if b.cur.price != 0 {
		b.failed = ""
		return false
	}
	lacks = b.failed != "none"
	b.failed = "none"
	return lacks
}

// backoff is the wait before try n+1 of a product, jittered.
func (p *prevCloses) backoff(n int) time.Duration {
	return transport.Jitter(p.retry[0], p.retry[1], n-1, rand.Float64())
}

// failureKey tells failures apart for reporting: the service's answers by
// status and code, a spent quota as one, anything else by its text.
func failureKey(err error) string {
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		return fmt.Sprintf("api %d %d %s", apiErr.StatusCode, apiErr.Code, apiErr.CodeText)
	case errors.Is(err, ErrRateLimited):
		return "quota"
	}
	return err.Error()
}

// names lists products, at most maxNamed of them.
func names(syms []string) string {
	if len(syms) <= maxNamed {
		return strings.Join(syms, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(syms[:maxNamed], ", "), len(syms)-maxNamed)
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
