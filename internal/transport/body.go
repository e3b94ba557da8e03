package transport

import (
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// How a body is held in memory.
//
// A body whose length is declared (Content-Length) is read into one
// allocation of that size: it costs its size, once. A body of unknown
// length (chunked) is read into a list of blocks, 16 KiB doubling to
// 64 KiB, and kept as those blocks: nothing is copied while it grows or
// after (a body that starts in the pooled first block has that block
// copied out at its length, so it can serve the next body), and the
// decoder reads the blocks as they are. It costs its size plus the unused
// end of its last block, under 64 KiB. A body over the bound is dropped as
// soon as its byte past the bound arrives, and is never copied, so a
// compression bomb costs the bound, not a multiple of it.
//
// Where net/http would ask for gzip and decompress (dropping the length),
// the Attempt asks itself (see asksForGzip), so a gzip body is read
// compressed (bounded too, by compressedBound), then decompressed into one
// buffer sized by its trailer's ISIZE: it costs its size plus its
// compressed size (twice that when the compressed length is unknown), about
// 1.0 to 1.2 times its size for JSON. The trailer sizes that one
// allocation and nothing else: it is capped by the bound and by deflate's
// largest ratio, and a body longer than it says (several members, a lie)
// goes on in blocks as a body of unknown length does. The response then
// looks as net/http leaves one it decompressed.
//
// Across one Attempt (one Client), bodies over smallBody bytes share a
// budget of budgetFactor times MaxBody. Such a body reserves its declared
// length before reading, or, with its length unknown (or once it passes
// the length declared), the whole bound once it passes smallBody; a gzip
// body, once read compressed, reserves its compressed size and its ISIZE
// (capped as above) together. It waits for a reservation as long as its
// context allows. When it has been read, it gives back what it does not hold; the
// rest when its Body is closed, which the client does once it has decoded
// it. So however many chunks a batch runs at once, the bodies over smallBody
// that they hold together stay within the budget, and only smallBody per
// attempt in flight is outside it. A reservation is made only while holding
// nothing else of the budget, so waiting for one cannot deadlock.
const (
	firstBlock   = 16 << 10
	maxBlock     = 64 << 10
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
// bound is refused before it can exhaust memory. gzipped says the attempt
// asked for gzip itself, so a gzip body is its to decode.
func (a *Attempt) buffer(ctx context.Context, resp *http.Response, gzipped bool) (err error) {
	defer resp.Body.Close()
	gz := gzipped && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip")
	limit := a.MaxBody
	if gz {
		limit = compressedBound(a.MaxBody)
	}
	if limit > 0 && resp.ContentLength > limit {
		return fmt.Errorf("%w: Content-Length %d > %d bytes", ErrBodyTooLarge, resp.ContentLength, limit)
	}
	res := &reservation{sem: a.budgetFor()}
	defer func() {
		if err != nil {
			res.keep(0)
		}
	}()
	var blocks [][]byte
	if gz {
		blocks, err = a.readGzip(ctx, resp.Body, resp.ContentLength, res)
	} else {
		blocks, err = a.read(ctx, resp.Body, resp.ContentLength, res)
	}
	if err != nil {
		return err
	}
	if gz {
		// As net/http does when it decompresses.
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.Uncompressed = true
	}
	body := newBody(blocks, res)
	a.bytesRead.Add(body.n)
	res.keep(body.held)
	resp.Body = body
	resp.ContentLength = body.n
	return nil
}

// read reads r to its end, or to the first byte past MaxBody, and returns
// the body's blocks. declared is the Content-Length, or -1.
func (a *Attempt) read(ctx context.Context, r io.Reader, declared int64, res *reservation) ([][]byte, error) {
	cur, pooled, covered, err := a.start(ctx, declared, res)
	if err != nil {
		return nil, err
	}
	f := filler{a: a, limit: a.MaxBody, cur: cur, pooled: pooled, covered: covered}
	if err := f.fill(ctx, r, res); err != nil {
		return nil, err
	}
	return f.take(), nil
}

// start returns the first buffer for a body of declared length (or -1),
// having reserved that length when it is over smallBody, and how many
// bytes of body that reservation, or the free allowance, covers.
func (a *Attempt) start(ctx context.Context, declared int64, res *reservation) (cur []byte, pooled bool, covered int64, err error) {
	if declared < 0 || declared >= maxUpfront {
		return a.getBlock(), true, smallBody, nil
	}
	if declared > smallBody {
		if err := res.reserve(ctx, declared); err != nil {
			return nil, false, 0, err
		}
	}
	// A spare byte, so that the read reporting the end needs no other
	// block.
	return make([]byte, 0, declared+1), false, max(declared, smallBody), nil
}

// filler reads a body into a first buffer, then into blocks, 16 KiB
// doubling to 64 KiB, so nothing is copied while it grows.
type filler struct {
	a      *Attempt
	limit  int64    // bytes allowed; 0: no bound
	full   [][]byte // filled blocks before cur
	cur    []byte
	pooled bool  // the first block came from the pool
	n      int64 // bytes read
	// covered is how many bytes the reservation, or the free allowance,
	// covers; extra is what the reservation holds besides them.
	covered, extra int64
}

// fill reads r to its end, or to the first byte past the limit.
func (f *filler) fill(ctx context.Context, r io.Reader, res *reservation) error {
	a := f.a
	bounded := f.limit > 0
	for {
		if len(f.cur) == cap(f.cur) {
			f.full = append(f.full, f.cur)
			f.cur = make([]byte, 0, min(max(2*cap(f.cur), firstBlock), maxBlock))
		}
		space := cap(f.cur) - len(f.cur)
		if bounded {
			// Read no further than one byte past the bound; limit-n
			// is at least 0 here, and below space, so +1 cannot overflow.
			if rest := f.limit - f.n; rest < int64(space) {
				space = int(rest) + 1
			}
		}
		m, err := r.Read(f.cur[len(f.cur) : len(f.cur)+space])
		f.cur = f.cur[:len(f.cur)+m]
		f.n += int64(m)
		if bounded && f.n > f.limit {
			f.release()
			return fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, f.limit)
		}
		if f.n > f.covered && f.covered < a.MaxBody {
			// Past what is reserved, or past the free allowance:
			// reserve what the bound still allows before holding any
			// more, holding nothing of the budget while waiting.
			res.keep(0)
			want := a.MaxBody
			if res.sem != nil {
				want += min(f.extra, budgetFactor*a.MaxBody-a.MaxBody)
			}
			if err := res.reserve(ctx, want); err != nil {
				f.release()
				return err
			}
			f.covered = a.MaxBody
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			f.release()
			return fmt.Errorf("itick: reading response body: %w", err)
		}
	}
}

// take returns the blocks read, in order, without copying them, except
// that a pooled first block is copied out at its length and given back
// to the pool.
func (f *filler) take() [][]byte {
	blocks := f.blocks()
	if n := len(blocks); n > 1 && len(blocks[n-1]) == 0 {
		blocks = blocks[:n-1] // the body ended with a block
	}
	if f.pooled {
		blocks[0] = append(make([]byte, 0, len(blocks[0])), blocks[0]...)
		f.release()
	}
	f.full, f.cur = nil, nil
	return blocks
}

// release returns the first block to the pool, when it came from there.
func (f *filler) release() {
	f.a.putBlocks(f.pooled, f.full, f.cur)
	f.pooled, f.full, f.cur = false, nil, nil
}

// blocks returns the buffers read, in order.
func (f *filler) blocks() [][]byte {
	return append(f.full[:len(f.full):len(f.full)], f.cur)
}

// compressedBound is the bound on a gzip body's compressed bytes: the
// bound on its decompressed bytes, plus what deflate can add to data it
// cannot compress (5 bytes a 64 KiB block) and a header. 0: no bound.
func compressedBound(maxBody int64) int64 {
	slack := maxBody>>10 + 1<<10
	if maxBody <= 0 || maxBody > math.MaxInt64-slack {
		return 0
	}
	return maxBody + slack
}

// maxRatio is more than deflate's largest ratio of decompressed to
// compressed bytes (about 1032), so a gzip member's honest ISIZE is never
// above maxRatio times its compressed size.
const maxRatio = 1040

// readGzip reads a gzip body compressed, then decompresses it into one
// buffer sized by the size its trailer states (ISIZE), so that it is not
// copied once more; past that size, as when the trailer lies or the body
// has several members, it goes on in blocks. The trailer sizes only that
// one allocation, never more than the bound allows; the bound applies to
// the decompressed bytes, and to the compressed ones.
func (a *Attempt) readGzip(ctx context.Context, r io.Reader, declared int64, res *reservation) ([][]byte, error) {
	cur, pooled, covered, err := a.start(ctx, declared, res)
	if err != nil {
		return nil, err
	}
	z := filler{a: a, limit: compressedBound(a.MaxBody), cur: cur, pooled: pooled, covered: covered}
	if err := z.fill(ctx, r, res); err != nil {
		return nil, err
	}
	defer z.release()
	if z.n == 0 {
		// net/http reads an empty gzip body as empty.
		return [][]byte{{}}, nil
	}
	blocks := z.blocks()

	size := int64(trailerSize(blocks))
	if a.MaxBody > 0 {
		size = min(size, a.MaxBody)
	}
	size = min(size, maxUpfront)
	if z.n <= maxUpfront/maxRatio {
		size = min(size, maxRatio*z.n)
	}
	// Hold the compressed bytes and the decompressed size, reserved
	// together while holding nothing else, as a declared length is.
	covered = smallBody
	if need := z.n + size; need > smallBody {
		if res.held.Load() < need {
			res.keep(0)
			if res.sem != nil {
				need = min(need, budgetFactor*a.MaxBody)
			}
			if err := res.reserve(ctx, need); err != nil {
				return nil, err
			}
		} else {
			res.keep(need)
		}
		covered = size
	}

	br := &blocksReader{blocks: blocks}
	zr, err := getGzipReader(br)
	if err != nil {
		br.blocks = nil
		return nil, fmt.Errorf("itick: reading response body: %w", err)
	}
	f := filler{a: a, limit: a.MaxBody, cur: make([]byte, 0, size+1), covered: covered, extra: z.n}
	err = f.fill(ctx, zr, res)
	br.blocks = nil // the pooled reader keeps br, but not this body
	gzipReaders.Put(zr)
	if err != nil {
		return nil, err
	}
	body := f.take()
	if first := body[0]; len(body) == 1 && int64(len(first)) < int64(cap(first))/2 {
		// The trailer said far more than came: do not hold the rest.
		body[0] = append([]byte(nil), first...)
	}
	return body, nil
}

// gzipReaders keeps decompressors between bodies: each holds a 32 KiB
// window and its tables, which would otherwise be made again for every
// response, whatever its size.
var gzipReaders sync.Pool

// getGzipReader returns a gzip reader of r, from the pool when it has one.
// The caller puts it back once done reading, whatever the outcome: Reset
// clears its state for the next body.
func getGzipReader(r io.Reader) (*gzip.Reader, error) {
	zr, ok := gzipReaders.Get().(*gzip.Reader)
	if !ok {
		return gzip.NewReader(r)
	}
	if err := zr.Reset(r); err != nil {
		gzipReaders.Put(zr)
		return nil, err
	}
	return zr, nil
}

// trailerSize returns a gzip body's ISIZE: its last 4 bytes, little-endian,
// the size of its last member modulo 2^32.
func trailerSize(blocks [][]byte) uint32 {
	var t [4]byte
	i := len(t)
	for b := len(blocks) - 1; b >= 0 && i > 0; b-- {
		for j := len(blocks[b]) - 1; j >= 0 && i > 0; j-- {
			i--
			t[i] = blocks[b][j]
		}
	}
	if i > 0 {
		return 0
	}
	return binary.LittleEndian.Uint32(t[:])
}

// blocksReader reads a list of blocks in order, a byte at a time too, so
// that gzip needs no buffer of its own over it.
type blocksReader struct {
	blocks [][]byte
}

func (r *blocksReader) Read(p []byte) (int, error) {
	for len(r.blocks) > 0 && len(r.blocks[0]) == 0 {
		r.blocks = r.blocks[1:]
	}
	if len(r.blocks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.blocks[0])
	r.blocks[0] = r.blocks[0][n:]
	return n, nil
}

func (r *blocksReader) ReadByte() (byte, error) {
	for len(r.blocks) > 0 && len(r.blocks[0]) == 0 {
		r.blocks = r.blocks[1:]
	}
	if len(r.blocks) == 0 {
		return 0, io.EOF
	}
	c := r.blocks[0][0]
	r.blocks[0] = r.blocks[0][1:]
	return c, nil
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

// Body is a response body already read into memory, as the blocks it
// was read in.
type Body struct {
	blocks [][]byte
	n      int64 // bytes in blocks
	held   int64 // bytes the blocks hold, used or not
	joined []byte
	rd     blocksReader
	res    *reservation
}

func newBody(blocks [][]byte, res *reservation) *Body {
	b := &Body{blocks: blocks, res: res}
	for _, blk := range blocks {
		b.n += int64(len(blk))
		b.held += int64(cap(blk))
	}
	b.rd.blocks = append([][]byte(nil), blocks...)
	return b
}

// Read reads the body from where the last Read stopped.
func (b *Body) Read(p []byte) (int, error) { return b.rd.Read(p) }

// Len is the body's length in bytes.
func (b *Body) Len() int64 { return b.n }

// Blocks returns the body as the blocks it was read in, without copying
// them; they are in order and none is empty unless the body is.
func (b *Body) Blocks() [][]byte { return b.blocks }

// Bytes returns the whole body in one slice. A body read in one block
// comes as it is; one in several is joined, once, into a new allocation
// of its size, so a caller that can read blocks should use Blocks.
func (b *Body) Bytes() []byte {
	switch {
	case b.joined != nil:
		return b.joined
	case len(b.blocks) == 1:
		return b.blocks[0]
	}
	j := make([]byte, 0, b.n)
	for _, blk := range b.blocks {
		j = append(j, blk...)
	}
	b.joined = j
	return j
}

// Close gives back the body's share of the memory budget; the bytes must
// not be used after it.
func (b *Body) Close() error {
	if b.res != nil {
		b.res.keep(0)
	}
	return nil
}
