package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
)

// How a body is held in memory.
//
// A body whose length is declared (Content-Length) is read into one
// allocation of that size: it costs its size, once. A body of unknown
// length (chunked, or decompressed by the transport, which then drops the
// length) is read into a list of blocks, 16 KiB doubling to 1 MiB, so
// nothing is copied while it grows, then copied once into a buffer of its
// exact size: it costs twice its size in allocations and, for the moment of
// that copy, in heap. A body over the bound is dropped as soon as its byte
// past the bound arrives, and is never copied, so a compression bomb costs
// the bound, not a multiple of it.
//
// Across one Attempt (one Client), bodies over smallBody bytes share a
// budget of budgetFactor times MaxBody. Such a body reserves its declared
// length before reading, or, with its length unknown, the whole bound once
// it passes smallBody; it waits for the reservation as long as its context
// allows. When it has been read, it gives back what it does not hold; the
// rest when its Body is closed, which the client does once it has decoded
// it. So however many chunks a batch runs at once, the bodies over smallBody
// that they hold together stay within the budget, and only smallBody per
// attempt in flight is outside it. A reservation is made only while holding
// nothing else of the budget, so waiting for one cannot deadlock.
const (
	firstBlock   = 16 << 10
	maxBlock     = 1 << 20
	smallBody    = 1 << 20
	budgetFactor = 2
	// maxUpfront is the largest declared length allocated before the
	// bytes arrive; a longer declaration (possible only when MaxBody
	// allows it) is read in blocks, so the bytes that actually come decide.
	maxUpfront = 1 << 30
)

// budgetFor returns the shared budget of bytes, nil when MaxBody leaves
// nothing to bound or is too large for a multiple of it to mean anything.
func (a *Attempt) budgetFor() *budget {
	a.budOnce.Do(func() {
		if a.MaxBody > smallBody && a.MaxBody <= math.MaxInt64/budgetFactor {
			a.budget = &budget{free: budgetFactor * a.MaxBody}
		}
	})
	return a.budget
}

// budget is a weighted semaphore of bytes whose waiters are served in
// order, so a large reservation is not starved by small ones.
type budget struct {
	mu      sync.Mutex
	free    int64
	waiters []*budgetWaiter
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once n has been granted
}

// Acquire waits until n bytes are free and takes them, or returns ctx's
// error having taken nothing.
func (b *budget) Acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if len(b.waiters) == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	select {
	case <-w.ready:
		// Granted while the context ended: give it back.
		b.free += n
	default:
		for i, x := range b.waiters {
			if x == w {
				b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
				break
			}
		}
	}
	b.grant()
	b.mu.Unlock()
	return ctx.Err()
}

// Release gives back n bytes.
func (b *budget) Release(n int64) {
	b.mu.Lock()
	b.free += n
	b.grant()
	b.mu.Unlock()
}

// grant serves waiters in order while the first one fits; b.mu is held.
func (b *budget) grant() {
	for len(b.waiters) > 0 && b.waiters[0].n <= b.free {
		w := b.waiters[0]
		b.free -= w.n
		b.waiters = b.waiters[1:]
		close(w.ready)
	}
}

// reservation is what one body holds of the budget.
type reservation struct {
	sem  *budget
	held atomic.Int64
}

// reserve waits for n more bytes of the budget.
func (r *reservation) reserve(ctx context.Context, n int64) error {
	if r.sem == nil || n <= 0 {
		return nil
	}
	if err := r.sem.Acquire(ctx, n); err != nil {
		return fmt.Errorf("itick: waiting for memory to read a response body: %w", err)
	}
	r.held.Add(n)
	return nil
}

// keep gives back all but n bytes.
func (r *reservation) keep(n int64) {
	if r.sem == nil {
		return
	}
	for {
		held := r.held.Load()
		if held <= n {
			return
		}
		if r.held.CompareAndSwap(held, n) {
			r.sem.Release(held - n)
			return
		}
	}
}

// buffer reads the whole body inside the attempt, so a connection that dies
// mid-body is a transport error the retry policy sees, and a body over the
// bound is refused before it can exhaust memory.
func (a *Attempt) buffer(ctx context.Context, resp *http.Response) (err error) {
	defer resp.Body.Close()
	if a.MaxBody > 0 && resp.ContentLength > a.MaxBody {
		return fmt.Errorf("%w: Content-Length %d > %d bytes", ErrBodyTooLarge, resp.ContentLength, a.MaxBody)
	}
	res := &reservation{sem: a.budgetFor()}
	defer func() {
		if err != nil {
			res.keep(0)
		}
	}()
	body, err := a.read(ctx, resp.Body, resp.ContentLength, res)
	if err != nil {
		return err
	}
	a.bytesRead.Add(int64(len(body)))
	res.keep(int64(len(body)))
	resp.Body = &Body{Reader: bytes.NewReader(body), b: body, res: res}
	resp.ContentLength = int64(len(body))
	return nil
}

// read reads r to its end, or to the first byte past MaxBody, into blocks,
// and returns the body in one slice. declared is the Content-Length, or -1.
func (a *Attempt) read(ctx context.Context, r io.Reader, declared int64, res *reservation) ([]byte, error) {
	bounded := a.MaxBody > 0
	var cur []byte
	pooled := false
	switch {
	case declared >= 0 && declared < maxUpfront:
		if declared > smallBody {
			if err := res.reserve(ctx, declared); err != nil {
				return nil, err
			}
		}
		// A spare byte, so that the read reporting the end needs no
		// other block.
		cur = make([]byte, 0, declared+1)
	default:
		cur, pooled = a.getBlock(), true
	}
	var full [][]byte // filled blocks before cur
	var n int64       // bytes read
	for {
		if len(cur) == cap(cur) {
			full = append(full, cur)
			cur = make([]byte, 0, min(max(2*cap(cur), firstBlock), maxBlock))
		}
		space := cap(cur) - len(cur)
		if bounded {
			// Read no further than one byte past the bound; MaxBody-n
			// is at least 0 here, and below space, so +1 cannot overflow.
			if rest := a.MaxBody - n; rest < int64(space) {
				space = int(rest) + 1
			}
		}
		m, err := r.Read(cur[len(cur) : len(cur)+space])
		cur = cur[:len(cur)+m]
		before := n
		n += int64(m)
		if bounded && n > a.MaxBody {
			a.putBlocks(pooled, full, cur)
			return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, a.MaxBody)
		}
		if res.held.Load() == 0 && before <= smallBody && n > smallBody && declared < 0 {
			// Past the free allowance with no length declared: reserve
			// what the bound still allows before holding any more.
			if err := res.reserve(ctx, a.MaxBody); err != nil {
				a.putBlocks(pooled, full, cur)
				return nil, err
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			a.putBlocks(pooled, full, cur)
			return nil, fmt.Errorf("itick: reading response body: %w", err)
		}
	}
	if len(full) == 0 && !pooled {
		return cur, nil
	}
	body := make([]byte, 0, n)
	for _, b := range full {
		body = append(body, b...)
	}
	body = append(body, cur...)
	a.putBlocks(pooled, full, cur)
	return body, nil
}

// getBlock returns a first block for a body of unknown length, from the
// pool: most bodies fit in it, and are then copied out at their size.
func (a *Attempt) getBlock() []byte {
	if p, ok := a.bufPool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, firstBlock)
}

// putBlocks returns the first block to the pool, when it came from there.
func (a *Attempt) putBlocks(pooled bool, full [][]byte, cur []byte) {
	if !pooled {
		return
	}
	first := cur
	if len(full) > 0 {
		first = full[0]
	}
	first = first[:0]
	a.bufPool.Put(&first)
}

// Body is a response body already read into memory.
type Body struct {
	*bytes.Reader
	b   []byte
	res *reservation
}

// Bytes returns the whole body without copying it.
func (b *Body) Bytes() []byte { return b.b }

// Close gives back the body's share of the memory budget; the bytes must
// not be used after it.
func (b *Body) Close() error {
	if b.res != nil {
		b.res.keep(0)
	}
	return nil
}
