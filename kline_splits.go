package itick

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick/internal/wait"
)

// The splits WithSplitAdjusted uses: each region's split list, fetched once
// per trading day of the client and shared by its calls.

// split is one split of a code, as the adjustment uses it.
type split struct {
	exDate time.Time
	ratio  float64 // shares after over shares before: 4 for "4:1"
	bad    error   // the record's ratio could not be read
}

// regionSplits are a region's splits by upper-case code.
type regionSplits map[string][]split

// splitCache holds each region's splits for one trading day. Calls that
// need a region while it is fetched wait for that fetch rather than send
// their own.
type splitCache struct {
	mu      sync.Mutex
	regions map[Region]*splitFetch
}

// splitFetch is one fetch of a region's splits: done is closed when
// splits or err is set.
type splitFetch struct {
	day    int // the trading day it is for, yyyymmdd
	done   chan struct{}
	splits regionSplits
	err    error
	ended  bool // err is the fetching call's context ending, no failure of the fetch
}

// splitsFor returns region's splits for the client's trading day,
// fetching them when no call has yet today.
func (m market) splitsFor(ctx context.Context, region Region) (regionSplits, error) {
	c := m.c
	key := Region(strings.ToUpper(string(region)))
	for {
		day, _, _ := tradingDay(c.Now(), string(key))
		sc := c.splits
		sc.mu.Lock()
		f := sc.regions[key]
		if f == nil || f.day != day {
			f = &splitFetch{day: day, done: make(chan struct{})}
			if sc.regions == nil {
				sc.regions = map[Region]*splitFetch{}
			}
			sc.regions[key] = f
			sc.mu.Unlock()
			f.splits, f.err = m.fetchSplits(ctx, region)
			f.ended = f.err != nil && ctx.Err() != nil
			if f.err != nil {
				sc.mu.Lock()
				if sc.regions[key] == f {
					delete(sc.regions, key) // a failure is not kept: the next call asks again
				}
				sc.mu.Unlock()
			}
			close(f.done)
			return f.splits, f.err
		}
		sc.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, wait.Err(ctx)
		case <-f.done:
		}
		if !f.ended {
			return f.splits, f.err
		}
		// The call that fetched them ended first; this one asks itself.
	}
}

// fetchSplits reads every split record of region.
func (m market) fetchSplits(ctx context.Context, region Region) (regionSplits, error) {
	out := regionSplits{}
	svc := &StockService{m}
	for r, err := range svc.Splits(ctx, region) {
		if err != nil {
			return nil, fmt.Errorf("splits of %s for WithSplitAdjusted: %w", region, err)
		}
		s := split{exDate: r.ExDate}
		if s.ratio, s.bad = parseRatio(r.Ratio); s.bad != nil {
			s.bad = &APIError{StatusCode: http.StatusOK, Path: "/stock/split", Message: fmt.Sprintf(
				"split of %s on %s: %v", r.Code, r.ExDate.UTC().Format(time.DateOnly), s.bad)}
		}
		code := strings.ToUpper(strings.TrimSpace(r.Code))
		out[code] = append(out[code], s)
	}
	return out, nil
}

// parseRatio reads a split's "a:b", shares after to shares before, as a/b.
func parseRatio(v string) (float64, error) {
	a, b, ok := strings.Cut(v, ":")
	x, errA := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, errB := strconv.ParseFloat(strings.TrimSpace(b), 64)
	r := x / y
	if !ok || errA != nil || errB != nil || !(x > 0) || !(y > 0) || math.IsInf(r, 0) || !(r > 0) {
		return 0, fmt.Errorf("ratio %q is not two positive numbers a:b", v)
	}
	return r, nil
}
