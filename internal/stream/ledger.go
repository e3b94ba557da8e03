package stream

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// The ledger: the bookkeeping that keeps the Engine's view of what is subscribed equal
// to the service'e. Every subscribe or unsubscribe on a connection holds
// the shard's reqMu until its acknowledgement is read, so each
// acknowledgement answers the request before it; a request whose caller
// gives up is finished by a worker goroutine that still reads the
// acknowledgement and applies it. A Subscribe decides what to send only
// when it sends, so an Unsubscribe made while it waited for the
// connection withdraws it.

// subEntry is one channel of one product on a shard.
type subEntry struct {
	acked    bool  // the service holds it; renewals carry it
	inflight bool  // a subscribe carrying it awaits its acknowledgement
	waiters  int   // Subscribe calls that still mean to send it
	refused  error // the refusal that removed it, for the other waiters
}

// claim is one Subscribe call's interest in one entry.
type claim struct {
	sym  Symbol
	ch   string
	e    *subEntry
	held bool // a worker has it in a request; only the worker lets go of it
	done bool // released: it no longer counts among e's waiters
}

// claimGroup is products sent in one request, with the same channels.
type claimGroup struct {
	syms   []Symbol
	chans  []string
	claims []*claim
}

// renewal is acknowledged products renewed in one request.
type renewal struct {
	syms    []Symbol
	chans   []string
	entries map[Symbol]map[string]*subEntry
}

// subscribe sends the shard's claims once its connection is up, and again
// on the next connection if this one goes down before the
// acknowledgement. It returns once every claim is acknowledged, refused or
// withdrawn, or ctx ends.
func (sh *shard[E]) subscribe(ctx context.Context, claims []*claim) error {
	e := sh.e
	for {
		select {
		case <-sh.ready():
		case <-ctx.Done():
			e.releaseFree(sh, claims)
			return ctx.Err()
		case <-e.ctx.Done():
			e.releaseFree(sh, claims)
			return e.cfg.ErrClosed
		}
		if err := sh.lock(ctx); err != nil {
			e.releaseFree(sh, claims)
			return err
		}
		ss := sh.current()
		if ss == nil {
			sh.unlock()
			continue
		}
		groups, prior := e.takeClaims(sh, claims)
		if len(groups) == 0 {
			sh.unlock()
			return prior
		}
		res := make(chan error, 1)
		go func() {
			defer e.wg.Done() // added by takeClaims
			defer sh.unlock()
			res <- sh.sendClaims(ctx, ss, groups)
		}()
		select {
		case err := <-res:
			if err == nil {
				return prior
			}
			if !errors.Is(err, errConnLost) {
				return err
			}
		case <-ctx.Done():
			e.releaseFree(sh, claims)
			return ctx.Err()
		}
	}
}

// takeClaims releases the claims that need nothing sent any more (done,
// withdrawn, acknowledged or refused through another call) and groups the
// rest, held and in flight, into requests the connection takes. It
// returns a refusal another call met for one of the claims. When it
// returns groups, it has added the worker that sends them to e.wg.
func (e *Engine[E]) takeClaims(sh *shard[E], claims []*claim) ([]claimGroup, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var refusal error
	if e.closing {
		refusal = e.cfg.ErrClosed
	}
	chans := make(map[Symbol][]string)
	byKey := make(map[string]*claimGroup)
	var keys []string
	for _, c := range claims {
		if c.e.refused != nil && refusal == nil {
			refusal = c.e.refused
		}
		if c.done {
			continue
		}
		if e.closing || sh.subs[c.sym][c.ch] != c.e || c.e.acked || c.e.refused != nil {
			e.release(sh, c)
			continue
		}
		chans[c.sym] = append(chans[c.sym], c.ch)
	}
	for _, c := range claims {
		if c.done {
			continue
		}
		cs := chans[c.sym]
		slices.Sort(cs)
		key := strings.Join(cs, ",")
		g := byKey[key]
		if g == nil {
			g = &claimGroup{chans: cs}
			byKey[key] = g
			keys = append(keys, key)
		}
		if !slices.Contains(g.syms, c.sym) {
			g.syms = append(g.syms, c.sym)
		}
		g.claims = append(g.claims, c)
		c.held, c.e.inflight = true, true
	}
	var groups []claimGroup
	for _, key := range keys {
		g := byKey[key]
		for chunk := range slices.Chunk(g.syms, e.cfg.SymbolsPerConn) {
			part := claimGroup{syms: chunk, chans: g.chans}
			for _, c := range g.claims {
				if slices.Contains(chunk, c.sym) {
					part.claims = append(part.claims, c)
				}
			}
			groups = append(groups, part)
		}
	}
	if len(groups) > 0 {
		e.wg.Add(1) // e.closing is false: Wait has not begun
	}
	return groups, refusal
}

// sendClaims sends each group in turn on ss and applies each
// acknowledgement, whether or not the caller still waits: it owns the
// claims in groups until it returns. It stops before a group once ctx
// has ended, and after a refusal.
func (sh *shard[E]) sendClaims(ctx context.Context, ss *session[E], groups []claimGroup) error {
	e := sh.e
	for i, g := range groups {
		if i > 0 && ctx.Err() != nil {
			e.letGo(sh, ctx, groups[i:], true)
			return ctx.Err()
		}
		refused, err := ss.exchange("subscribe", g.syms, g.chans)
		switch {
		case err == nil:
			e.settle(sh, g, nil)
		case refused:
			e.settle(sh, g, err)
			e.letGo(sh, ctx, groups[i+1:], true)
			return err
		case errors.Is(err, errConnLost):
			// The caller sends what is left on the next connection,
			// unless it has given up.
			e.letGo(sh, ctx, groups[i:], false)
			return err
		default:
			e.letGo(sh, ctx, groups[i:], true)
			return err
		}
	}
	return nil
}

// settle applies the acknowledgement of g: accepted entries are
// acknowledged, refused ones removed, unless an Unsubscribe removed them
// meanwhile (it sends its request after this one).
func (e *Engine[E]) settle(sh *shard[E], g claimGroup, refusal error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range g.claims {
		c.held, c.e.inflight = false, false
		current := sh.subs[c.sym][c.ch] == c.e
		if refusal == nil {
			if current {
				c.e.acked = true
			}
		} else {
			c.e.refused = refusal
			if current {
				sh.remove(c.sym, c.ch)
			}
		}
		e.release(sh, c)
	}
}

// letGo hands unsent claims back: to the caller when it still waits and
// release is false, otherwise released.
func (e *Engine[E]) letGo(sh *shard[E], ctx context.Context, groups []claimGroup, release bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	release = release || ctx.Err() != nil
	for _, g := range groups {
		for _, c := range g.claims {
			c.held, c.e.inflight = false, false
			if release {
				e.release(sh, c)
			}
		}
	}
}

// releaseFree releases the claims no worker holds, for a caller that
// gives up.
func (e *Engine[E]) releaseFree(sh *shard[E], claims []*claim) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range claims {
		if !c.held {
			e.release(sh, c)
		}
	}
}

// release drops a claim's interest in its entry, and the entry itself
// when nothing subscribed it and nobody else will send it. e.mu is held.
func (e *Engine[E]) release(sh *shard[E], c *claim) {
	if c.done {
		return
	}
	c.done = true
	c.e.waiters--
	if c.e.waiters == 0 && !c.e.acked && !c.e.inflight && sh.subs[c.sym][c.ch] == c.e {
		sh.remove(c.sym, c.ch)
	}
}

// remove deletes one channel of a product, and the product when it has no
// channel left. e.mu is held.
func (sh *shard[E]) remove(sym Symbol, ch string) {
	set := sh.subs[sym]
	delete(set, ch)
	if len(set) == 0 {
		delete(sh.subs, sym)
		if sh.e.owner[sym.Key()] == (owned[E]{sym, sh}) {
			delete(sh.e.owner, sym.Key())
		}
	}
}

// renewals groups the shard's acknowledged subscriptions by channel set,
// in requests the connection takes.
func (e *Engine[E]) renewals(sh *shard[E]) []renewal {
	e.mu.Lock()
	defer e.mu.Unlock()
	byKey := make(map[string]*renewal)
	var keys []string
	for sym, set := range sh.subs {
		var chans []string
		for ch, e := range set {
			if e.acked {
				chans = append(chans, ch)
			}
		}
		if len(chans) == 0 {
			continue
		}
		slices.Sort(chans)
		key := strings.Join(chans, ",")
		r := byKey[key]
		if r == nil {
			r = &renewal{chans: chans}
			byKey[key] = r
			keys = append(keys, key)
		}
		r.syms = append(r.syms, sym)
	}
	slices.Sort(keys)
	var out []renewal
	for _, key := range keys {
		r := byKey[key]
		slices.SortFunc(r.syms, func(a, b Symbol) int { return compareSymbols(a, b) })
		for chunk := range slices.Chunk(r.syms, e.cfg.SymbolsPerConn) {
			part := renewal{syms: chunk, chans: r.chans, entries: make(map[Symbol]map[string]*subEntry)}
			for _, sym := range chunk {
				part.entries[sym] = make(map[string]*subEntry)
				for _, ch := range r.chans {
					part.entries[sym][ch] = sh.subs[sym][ch]
				}
			}
			out = append(out, part)
		}
	}
	return out
}

// dropRefused removes the entries of a renewal the service refused, so
// the client no longer counts what the service does not hold.
func (e *Engine[E]) dropRefused(sh *shard[E], entries map[Symbol]map[string]*subEntry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for sym, set := range entries {
		for ch, e := range set {
			if sh.subs[sym][ch] == e {
				sh.remove(sym, ch)
			}
		}
	}
}

// subscribedSymbols lists the shard's products with an acknowledged
// channel, sorted.
func (e *Engine[E]) subscribedSymbols(sh *shard[E]) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for sym, set := range sh.subs {
		if hasAcked(set) {
			out = append(out, sym.String())
		}
	}
	slices.Sort(out)
	return out
}

func hasAcked(set map[string]*subEntry) bool {
	for _, e := range set {
		if e.acked {
			return true
		}
	}
	return false
}

// unsubscribe sends an unsubscribe on the shard's connection, if one is
// up; without one, the next renewal leaves the products out. It runs in
// its own goroutine, added to e.wg by the caller, and finishes whether or
// not the caller still waits: the client has already forgotten the
// products, so the service must too. A refusal ends the session, so the
// next one renews what the client holds.
func (sh *shard[E]) unsubscribe(syms []Symbol, chans []string) error {
	e := sh.e
	defer e.wg.Done()
	if err := sh.lock(context.Background()); err != nil {
		return err
	}
	defer sh.unlock()
	ss := sh.current()
	if ss == nil {
		return nil
	}
	for chunk := range slices.Chunk(syms, e.cfg.SymbolsPerConn) {
		refused, err := ss.exchange("unsubscribe", chunk, chans)
		switch {
		case refused:
			ss.cancel(err)
			return err
		case err != nil:
			return nil // the session has ended; the next renews the client's view
		}
	}
	return nil
}
