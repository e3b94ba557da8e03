package wssim

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Bar is one step of a product's market: what the simulator turns into a
// quote, a tick, a depth book and a candle.
type Bar struct {
	Time     time.Time
	Last     float64 // the latest trade price
	Open     float64 // the session's first price
	High     float64
	Low      float64
	Volume   float64 // cumulative over the session
	Turnover float64 // cumulative over the session
	TradeVol float64 // the latest trade's volume
}

// Source produces the market the simulator pushes. Next is called once per
// subscribed product and push round; it must be safe for concurrent use.
// A data generator shared with the REST simulator can satisfy it so both
// sides tell the same story.
type Source interface {
	Next(code, region string, now time.Time) Bar
}

// RandomWalk is the default Source: each product's price walks randomly
// from a start drawn from the seed. The same seed and calls give the same
// bars, whatever the order in which products are asked for.
type RandomWalk struct {
	seed uint64
	mu   sync.Mutex
	byID map[string]*walk
}

type walk struct {
	rng *rand.Rand
	bar Bar
}

// NewRandomWalk returns a RandomWalk seeded with seed.
func NewRandomWalk(seed uint64) *RandomWalk {
	return &RandomWalk{seed: seed, byID: make(map[string]*walk)}
}

// Next advances the product's walk by one step.
func (r *RandomWalk) Next(code, region string, now time.Time) Bar {
	id := code + "$" + region
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.byID[id]
	if !ok {
		h := fnv.New64a()
		h.Write([]byte(id))
		w = &walk{rng: rand.New(rand.NewPCG(r.seed, h.Sum64()))}
		start := math.Round((1+w.rng.Float64()*999)*100) / 100
		w.bar = Bar{Last: start, Open: start, High: start, Low: start}
		r.byID[id] = w
	}
	b := &w.bar
	step := b.Last * 0.001 * (w.rng.Float64()*2 - 1)
	b.Last = math.Max(0.01, math.Round((b.Last+step)*100)/100)
	b.High = math.Max(b.High, b.Last)
	b.Low = math.Min(b.Low, b.Last)
	b.TradeVol = float64(1 + w.rng.IntN(1000))
	b.Volume += b.TradeVol
	b.Turnover += b.TradeVol * b.Last
	b.Time = now
	return *b
}
