package markettest

import "math"

// A finished day's range is the highest and lowest of its hours' opens and
// closes: the walk at up to 48 instants, each a sum of 24 octaves. Most of
// those prices are nowhere near the day's high or low, which a bound shows
// more cheaply than their values: the octaves below k move the noise by at
// most belowOctave[k], so the coarser octaves alone place it within that.
// A dayRange bounds every price so, narrows the bounds of those that might
// still be the highest or the lowest with finer octaves, and works out
// exactly, as noise does, only the few no bound rules out: the day's open
// and close, and the one or two instants holding each extreme. The
// answer is noise's own to the last bit: a value it returns is worked out
// exactly, and an instant it skips cannot hold an extreme, whatever the
// rounding of the sums behind its bound (boundSlack covers it many times).

// belowOctave[k] is the most the octaves below k add to the walk's noise,
// either way: each knot lies in [-1, 1), and an octave's value lies
// between its two knots.
var belowOctave = func() [octaves + 1]float64 {
	var a [octaves + 1]float64
	for k := range octaves {
		a[k+1] = a[k] + octaveAmp[k]
	}
	return a
}()

// noiseSlope bounds how far the noise moves in a ms: smoothstep rises at
// most 1.5 times an octave's knot gap, which is under 2, across its span.
var noiseSlope = func() float64 {
	var s float64
	for k := range octaves {
		s += 3 * octaveAmp[k] * octaveInvSpan[k]
	}
	return s
}()

// boundSlack widens every bound for rounding: noise's own sum and the sums
// behind a bound are off by less than 1e-9 (smoothSum's cubics are the
// worst), so the margin is wide and prunes as well as none.
const boundSlack = 1e-6

// boundWidth[k] is how far the noise at an instant can be from the sum of
// its octaves from k up.
var boundWidth = func() [octaves + 1]float64 {
	var a [octaves + 1]float64
	for k := range a {
		a[k] = belowOctave[k] + boundSlack
	}
	return a
}()

// How a day's bounds are built. The octaves from smoothOctave up (spans of
// 4.5 hours and more) change knots a few times a day, and smoothSum keeps
// their sum as one cubic in time. The first bound of every price adds the
// octaves from firstOctave up to them one by one, which leaves about a
// third of the prices to narrow; each narrowing adds refineStride more
// octaves. The values were measured on a two-year daily history.
const (
	smoothOctave = 12
	firstOctave  = 8
	refineStride = 3
)

// settled is the level of a group whose noise has been worked out.
const settled = -1

// maxDayPrices is the most prices a day's range looks at: an open and a
// close for each of its hours.
const maxDayPrices = 48

// A dayRange works out the ranges of one product's days, kept by a view
// for the days it builds one after the other. Its prices come in groups
// of one or two instants at most a ms apart (an hour's close and the next
// one's open), which share one bound.
type dayRange struct {
	key uint64
	// width is boundWidth, which only a test narrows, to show that a
	// bound too tight changes the answer.
	width *[octaves + 1]float64
	// Group i's instants are t[i] and t2[i] (equal for one); q[i] is
	// t[i]'s finest knot interval. part[i] is the sum of the octaves from
	// level[i] up at t[i]; ub[i] and lb[i] bound the group's noise, and
	// are its highest and lowest once the level is settled.
	t, t2, q [maxDayPrices]int64
	part     [maxDayPrices]float64
	ub, lb   [maxDayPrices]float64
	level    [maxDayPrices]int8
	smooth   smoothSum
	memo     knotMemo // coarse knots of the prices worked out exactly
	// The noise just across the edges of the last day's range, and of
	// this one's (see exactAt).
	edges, nextEdges [2]edgeNoise
}

// newDayRange returns the dayRange of the product with key.
func newDayRange(key uint64) *dayRange { return &dayRange{key: key, width: &boundWidth} }

// extremes returns the walk's noise at the first and the last of the
// instants ts (ascending, one to maxDayPrices of them, within a day or
// two), and the highest and lowest noise at any of them: exactly the
// values noise gives.
func (d *dayRange) extremes(ts []int64) (first, last, hi, lo float64) {
	n := 0
	for i := 0; i < len(ts); i++ {
		d.t[n] = ts[i]
		if i+1 < len(ts) && ts[i+1]-ts[i] <= 1 {
			i++
		}
		d.t2[n] = ts[i]
		n++
	}
	// The first bound of every group: the smooth octaves, then the others
	// down to firstOctave, octave by octave in time order so that
	// neighbours share knots.
	d.smooth.key = d.key
	for i := range n {
		d.part[i] = d.smooth.at(d.t[i])
		d.q[i] = floorDiv(d.t[i], finestOctMs)
		d.level[i] = firstOctave
	}
	for k := firstOctave; k < smoothOctave; k++ {
		span, inv, amp := int64(finestOctMs)<<k, octaveInvSpan[k], octaveAmp[k]
		cj := int64(math.MinInt64)
		var k0, k1 float64
		for i := range n {
			j := d.q[i] >> k
			if j != cj {
				if j == cj+1 {
					k0, k1 = k1, knot(d.key, k, j+1)
				} else {
					k0, k1 = knot(d.key, k, j), knot(d.key, k, j+1)
				}
				cj = j
			}
			f := float64(d.t[i]-j*span) * inv
			f = f * f * (3 - 2*f)
			d.part[i] += amp * (k0 + (k1-k0)*f)
		}
	}
	for i := range n {
		w := d.width[firstOctave] + noiseSlope*float64(d.t2[i]-d.t[i])
		d.ub[i], d.lb[i] = d.part[i]+w, d.part[i]-w
	}
	// The open and the close are needed exactly anyway, and their values
	// start the search for the extremes.
	first, _ = d.settle(0)
	_, last = d.settle(n - 1)
	hi, lo = max(d.ub[0], d.ub[n-1]), min(d.lb[0], d.lb[n-1])
	// The group likeliest to hold an extreme is worked out first, so the
	// others meet a bar already at or close to it.
	top, bottom := 0, 0
	for i := range n {
		if d.ub[i] > d.ub[top] {
			top = i
		}
		if d.lb[i] < d.lb[bottom] {
			bottom = i
		}
	}
	if d.ub[top] > hi {
		d.settle(top)
		hi = max(hi, d.ub[top])
	}
	for i := range n {
		hi = d.raise(i, hi)
	}
	if d.lb[bottom] < lo {
		if d.level[bottom] != settled {
			d.settle(bottom)
		}
		lo = min(lo, d.lb[bottom])
	}
	for i := range n {
		lo = d.lower(i, lo)
	}
	d.edges, d.nextEdges = d.nextEdges, [2]edgeNoise{}
	return first, last, hi, lo
}

// raise narrows group i's bound while it might exceed hi, and returns hi
// raised to the group's highest noise if that does.
func (d *dayRange) raise(i int, hi float64) float64 {
	for d.ub[i] > hi {
		if d.level[i] == settled {
			return d.ub[i]
		}
		d.refine(i)
	}
	return hi
}

// lower is raise for the lowest noise.
func (d *dayRange) lower(i int, lo float64) float64 {
	for d.lb[i] < lo {
		if d.level[i] == settled {
			return d.lb[i]
		}
		d.refine(i)
	}
	return lo
}

// refine adds the next refineStride octaves to group i's bound, or works
// its noise out once the bound holds them all.
func (d *dayRange) refine(i int) {
	lev := int(d.level[i])
	if lev == 0 {
		d.settle(i)
		return
	}
	t, q, x := d.t[i], d.q[i], d.part[i]
	to := max(lev-refineStride, 0)
	for k := to; k < lev; k++ {
		j := q >> k
		k0, k1 := knot(d.key, k, j), knot(d.key, k, j+1)
		f := float64(t-j*(int64(finestOctMs)<<k)) * octaveInvSpan[k]
		f = f * f * (3 - 2*f)
		x += octaveAmp[k] * (k0 + (k1-k0)*f)
	}
	w := d.width[to] + noiseSlope*float64(d.t2[i]-t)
	d.part[i], d.level[i] = x, int8(to)
	d.ub[i], d.lb[i] = x+w, x-w
}

// settle works out group i's noise exactly, and returns it at both its
// instants.
func (d *dayRange) settle(i int) (x, y float64) {
	if d.t2[i] == d.t[i] {
		x = d.exactAt(d.t[i])
		y = x
	} else {
		x, y = d.exactPair(d.t[i], d.t2[i])
	}
	d.ub[i], d.lb[i], d.level[i] = max(x, y), min(x, y), settled
	return x, y
}

// An edgeNoise is the noise at an instant a ms across a UTC midnight from
// the open or the close of a day's range, which the range of the day on
// the other side opens or closes with.
type edgeNoise struct {
	ms int64
	x  float64
	ok bool
}

// exactAt is the noise at t, exactly. A history asks for one day after
// another, and a market trading through midnight closes one day a ms
// before it opens the next: an instant next to midnight is worked out
// together with the one across it, which is kept for the next day's range.
func (d *dayRange) exactAt(t int64) float64 {
	for _, e := range d.edges {
		if e.ok && e.ms == t {
			return e.x
		}
	}
	switch {
	case t%dayMs == 0:
		y, x := d.exactPair(t-1, t)
		d.nextEdges[0] = edgeNoise{t - 1, y, true}
		return x
	case (t+1)%dayMs == 0:
		x, y := d.exactPair(t, t+1)
		d.nextEdges[1] = edgeNoise{t + 1, y, true}
		return x
	}
	return d.exactOne(t)
}

// exactOne is the noise at t, exactly as noise computes it: the same terms
// added in the same order.
func (d *dayRange) exactOne(t int64) (x float64) {
	key := d.key
	q := floorDiv(t, finestOctMs)
	for k := 0; k < firstOctave; k++ {
		j := q >> k
		k0, k1 := knot(key, k, j), knot(key, k, j+1)
		f := float64(t-j*(int64(finestOctMs)<<k)) * octaveInvSpan[k]
		f = f * f * (3 - 2*f)
		x += octaveAmp[k] * (k0 + (k1-k0)*f)
	}
	m := &d.memo
	for k := firstOctave; k < octaves; k++ {
		j := q >> k
		e := &m[k-firstOctave]
		if !e.held || j != e.i {
			m.fetch(key, k, j)
		}
		f := float64(t-j*(int64(finestOctMs)<<k)) * octaveInvSpan[k]
		f = f * f * (3 - 2*f)
		x += octaveAmp[k] * (e.k0 + (e.k1-e.k0)*f)
	}
	return x
}

// exactPair is the noise at t0 and at t1 (t0 <= t1), exactly as noise
// computes it, in one pass over the octaves: the two sums do not wait for
// each other, and the instants share knots.
func (d *dayRange) exactPair(t0, t1 int64) (x0, x1 float64) {
	key := d.key
	q0, q1 := floorDiv(t0, finestOctMs), floorDiv(t1, finestOctMs)
	// The fine octaves' knots are seldom those of the instants before.
	for k := 0; k < firstOctave; k++ {
		span := int64(finestOctMs) << k
		j0, j1 := q0>>k, q1>>k
		a0, b0 := knot(key, k, j0), knot(key, k, j0+1)
		f := float64(t0-j0*span) * octaveInvSpan[k]
		f = f * f * (3 - 2*f)
		x0 += octaveAmp[k] * (a0 + (b0-a0)*f)
		a1, b1 := a0, b0
		switch j1 {
		case j0:
		case j0 + 1:
			a1, b1 = b0, knot(key, k, j1+1)
		default:
			a1, b1 = knot(key, k, j1), knot(key, k, j1+1)
		}
		g := float64(t1-j1*span) * octaveInvSpan[k]
		g = g * g * (3 - 2*g)
		x1 += octaveAmp[k] * (a1 + (b1-a1)*g)
	}
	m := &d.memo
	for k := firstOctave; k < octaves; k++ {
		span := int64(finestOctMs) << k
		j0, j1 := q0>>k, q1>>k
		e := &m[k-firstOctave]
		if !e.held || j0 != e.i {
			m.fetch(key, k, j0)
		}
		a0, b0 := e.k0, e.k1
		f := float64(t0-j0*span) * octaveInvSpan[k]
		f = f * f * (3 - 2*f)
		x0 += octaveAmp[k] * (a0 + (b0-a0)*f)
		a1, b1 := a0, b0
		if j1 != j0 {
			a1, b1 = m.fetch(key, k, j1)
		}
		g := float64(t1-j1*span) * octaveInvSpan[k]
		g = g * g * (3 - 2*g)
		x1 += octaveAmp[k] * (a1 + (b1-a1)*g)
	}
	return x0, x1
}

// knot is octave k's knot i of the product with key, as noise draws it.
func knot(key uint64, k int, i int64) float64 { return signed(mix(key ^ uint64(k)<<56 ^ uint64(i))) }

// knotMemo keeps the two knots last used in each octave from firstOctave
// up, which the other prices worked out exactly in a day mostly share.
type knotMemo [octaves - firstOctave]struct {
	held   bool
	i      int64
	k0, k1 float64
}

// fetch makes m hold octave k's knots i and i+1, reusing one it holds,
// and returns them.
func (m *knotMemo) fetch(key uint64, k int, i int64) (k0, k1 float64) {
	e := &m[k-firstOctave]
	switch {
	case e.held && i == e.i:
	case e.held && i == e.i+1:
		e.k0, e.k1 = e.k1, knot(key, k, i+1)
	case e.held && i == e.i-1:
		e.k0, e.k1 = knot(key, k, i), e.k0
	default:
		e.k0, e.k1 = knot(key, k, i), knot(key, k, i+1)
	}
	e.held, e.i = true, i
	return e.k0, e.k1
}

// smoothSum is the sum of the octaves from smoothOctave up, up to
// rounding. Between two of its knots an octave is a cubic in time
// (smoothstep of a fraction linear in it), so between two knots of any of
// them the sum is one. smoothSum keeps that cubic, in hours since an
// origin, and each octave's part of it: when an instant falls in another
// interval of an octave, only that octave's part is worked out again. It
// serves a history's days one after the other, either way, and moves its
// origin to an instant more than maxSmoothReach from it, which keeps the
// cubics' terms small, and after maxSmoothMoves corrections, which keeps
// their rounding from piling up.
type smoothSum struct {
	key      uint64
	held     bool
	origin   int64      // ms
	from, to int64      // the cubic holds in [from, to)
	c        [4]float64 // the sum's cubic, lowest power first
	moves    int        // since the cubic was last added up afresh
	oct      [octaves - smoothOctave]octaveCubic
}

// octaveCubic is one octave's part of a smoothSum: its knot interval, its
// knots and its cubic about the sum's origin.
type octaveCubic struct {
	i      int64
	k0, k1 float64
	c      [4]float64
}

// maxSmoothReach is how far from its origin a smoothSum evaluates its
// cubic: two days, over which its terms stay below 1e6 and its value
// rounds by less than 1e-9.
const maxSmoothReach = 2 * dayMs

// maxSmoothMoves is how many times a smoothSum corrects its cubic by the
// parts that changed before it adds it up afresh: each correction rounds
// by less than 1e-9 more, and however a caller's requests go back and
// forth, the rounding stays far below boundSlack.
const maxSmoothMoves = 64

// hourFrac[k] is the fraction of octave k's span an hour is.
var hourFrac = func() [octaves]float64 {
	var a [octaves]float64
	for k := range a {
		a[k] = hourMs * octaveInvSpan[k]
	}
	return a
}()

// at is the sum at ms, up to rounding.
func (s *smoothSum) at(ms int64) float64 {
	if ms < s.from || ms >= s.to {
		s.move(ms)
	}
	u := float64(ms-s.origin) * (1.0 / hourMs)
	return ((s.c[3]*u+s.c[2])*u+s.c[1])*u + s.c[0]
}

// move makes the cubic hold at ms. An octave's knots fall on knots of
// every finer one, so the finest smooth octave's interval lies in every
// coarser one's, and when an octave's interval stays the same, so do those
// of the coarser ones.
func (s *smoothSum) move(ms int64) {
	rebase := !s.held || ms-s.origin > maxSmoothReach || s.origin-ms > maxSmoothReach || s.moves >= maxSmoothMoves
	if rebase {
		s.origin, s.c, s.moves = floorDiv(ms, hourMs)*hourMs, [4]float64{}, 0
	}
	q := floorDiv(ms, finestOctMs)
	for k := smoothOctave; k < octaves; k++ {
		o := &s.oct[k-smoothOctave]
		i := q >> k
		moved := i != o.i || !s.held
		if !moved && !rebase {
			break
		}
		switch {
		case !moved:
		case s.held && i == o.i+1:
			o.k0, o.k1 = o.k1, knot(s.key, k, i+1)
		case s.held && i == o.i-1:
			o.k0, o.k1 = knot(s.key, k, i), o.k0
		default:
			o.k0, o.k1 = knot(s.key, k, i), knot(s.key, k, i+1)
		}
		// The octave's fraction of the way between its knots is f = a + b*u
		// for u hours since the origin; smoothstep 3f^2-2f^3 expands about a.
		a, b := float64(s.origin-i*(int64(finestOctMs)<<k))*octaveInvSpan[k], hourFrac[k]
		amp, d := octaveAmp[k], o.k1-o.k0
		c := [4]float64{amp * (o.k0 + d*a*a*(3-2*a)), amp * d * 6 * a * (1 - a) * b,
			amp * d * (3 - 6*a) * b * b, amp * d * -2 * b * b * b}
		if rebase {
			o.c = [4]float64{}
		}
		for n := range c {
			s.c[n] += c[n] - o.c[n]
		}
		o.i, o.c = i, c
	}
	s.held = true
	s.moves++
	span := int64(finestOctMs) << smoothOctave
	i := q >> smoothOctave
	s.from, s.to = max(i*span, s.origin-maxSmoothReach), min((i+1)*span, s.origin+maxSmoothReach)
}
