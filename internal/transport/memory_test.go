package transport

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// patternReader yields n bytes of a repeating JSON-ish pattern, in reads of
// at most 32 KiB as a socket would, without holding them.
type patternReader struct{ n, off int64 }

const pattern = `{"t":1700000000000,"o":1.5,"h":2.5,"l":0.5,"c":1.25,"v":1000},`

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n-r.off, 32<<10)]
	start := int(r.off % int64(len(pattern)))
	n := copy(p, patternBlock[start:])
	r.off += int64(n)
	return n, nil
}

// patternBlock is pattern repeated past 32 KiB from any starting offset.
var patternBlock = []byte(strings.Repeat(pattern, (32<<10)/len(pattern)+2))

// streamRT answers with a body of n bytes, its length declared or not.
type streamRT struct {
	n        int64
	declared bool
}

func (s streamRT) RoundTrip(req *http.Request) (*http.Response, error) {
	cl := int64(-1)
	if s.declared {
		cl = s.n
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: cl,
		Body: io.NopCloser(&patternReader{n: s.n}), Request: req}, nil
}

// allocatedPerByte reads one body through a and returns the bytes
// allocated per byte of body read (TotalAlloc, which does not depend on
// when the collector runs).
func allocatedPerByte(tb testing.TB, a *Attempt, url string, read int64) float64 {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := a.RoundTrip(req)
	runtime.ReadMemStats(&after)
	if err == nil {
		resp.Body.Close()
	}
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(read)
}

// BenchmarkBody48MiB reports the bytes allocated per byte of a 48 MiB
// body read, with its length declared and not, and gzipped, its
// compressed length declared and not.
func BenchmarkBody48MiB(b *testing.B) {
	const n = 48 << 20
	for _, declared := range []bool{true, false} {
		name := "unknown-length"
		if declared {
			name = "content-length"
		}
		b.Run(name, func(b *testing.B) {
			a := &Attempt{Base: streamRT{n: n, declared: declared}, MaxBody: 64 << 20}
			var per float64
			for b.Loop() {
				per = allocatedPerByte(b, a, "http://127.0.0.1/x", n)
			}
			b.ReportMetric(per, "alloc-B/body-B")
			b.SetBytes(n)
		})
	}
	body := gzipped(patternBytes(n))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/chunked" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		}
		w.Write(body)
	}))
	defer srv.Close()
	for _, path := range []string{"/declared", "/chunked"} {
		b.Run("gzip-"+path[1:], func(b *testing.B) {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			a := &Attempt{Base: tr, MaxBody: 64 << 20}
			var per float64
			for b.Loop() {
				per = allocatedPerByte(b, a, srv.URL+path, n)
			}
			b.ReportMetric(per, "alloc-B/body-B")
			b.SetBytes(n)
		})
	}
}

// gzipBomb returns gzip data that inflates to n bytes of zeros.
func gzipBomb(tb testing.TB, n int64) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for w := int64(0); w < n; w += int64(len(zeros)) {
		zw.Write(zeros[:min(int64(len(zeros)), n-w)])
	}
	zw.Close()
	return buf.Bytes()
}

// allocated returns the bytes f allocates (TotalAlloc, which does not
// depend on when the collector runs). The test calling it must not be
// parallel, so that nothing else allocates meanwhile.
func allocated(f func()) int64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// TestBodyMemoryIsAboutTheBytesRead: a body costs its size whether its
// length is declared or not (then it is kept in the blocks it was read
// in); one over the bound costs about the bound however much more the
// server sends.
func TestBodyMemoryIsAboutTheBytesRead(t *testing.T) {
	const n = 4 << 20
	const slack = 1 << 20 // the request, the response, the first blocks
	cases := []struct {
		name     string
		rt       http.RoundTripper
		maxBody  int64
		wantErr  bool
		maxBytes int64
	}{
		{"declared", streamRT{n: n, declared: true}, 64 << 20, false, n + slack},
		{"unknown length", streamRT{n: n}, 64 << 20, false, n + slack},
		{"unknown length, over the bound", streamRT{n: 8 * n}, n, true, n + slack},
		{"declared short, over the bound", lyingRT{declared: 1, n: 8 * n}, n, true, n + slack},
	}
	for _, tc := range cases {
		a := &Attempt{Base: tc.rt, MaxBody: tc.maxBody}
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/x", nil)
		var err error
		var got int
		alloc := allocated(func() {
			var resp *http.Response
			resp, err = a.RoundTrip(req)
			if err == nil {
				got = int(resp.Body.(*Body).Len())
				resp.Body.Close()
			}
		})
		if tc.wantErr != errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if !tc.wantErr && got != n {
			t.Errorf("%s: read %d bytes, want %d", tc.name, got, n)
		}
		if alloc > tc.maxBytes {
			t.Errorf("%s: allocated %.2f MiB reading, want at most %.2f MiB", tc.name, float64(alloc)/(1<<20), float64(tc.maxBytes)/(1<<20))
		}
	}
}

// lyingRT declares a length but sends n bytes, as only a custom
// RoundTripper can.
type lyingRT struct{ declared, n int64 }

func (l lyingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: l.declared,
		Body: io.NopCloser(&patternReader{n: l.n}), Request: req}, nil
}

// TestGzipBombCostsTheBound: a body the transport decompresses is bounded
// by its decompressed size, and a compression bomb costs about the bound.
func TestGzipBombCostsTheBound(t *testing.T) {
	const bound = 4 << 20
	bomb := gzipBomb(t, 8*bound)
	small := gzipBomb(t, bound/2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/small" {
			w.Write(small)
			return
		}
		w.Write(bomb)
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	a := &Attempt{Base: tr, MaxBody: bound}
	var err error
	alloc := allocated(func() { _, err = get(t, context.Background(), a, srv.URL+"/bomb") })
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("a %d-byte gzip body inflating to %d bytes: err = %v, want ErrBodyTooLarge", len(bomb), 8*bound, err)
	}
	if alloc > bound+2<<20 { // the last block, the inflater, the request
		t.Errorf("the bomb allocated %.1f MiB under a bound of %d MiB", float64(alloc)/(1<<20), bound>>20)
	}
	resp, err := get(t, context.Background(), a, srv.URL+"/small")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(resp.Body.(*Body).Bytes()); got != bound/2 {
		t.Errorf("decompressed %d bytes, want %d", got, bound/2)
	}
}

// TestMaxBodyAtTheLimitOfInt64: a bound of math.MaxInt64 reads bodies
// whole; nothing computes MaxBody+1.
func TestMaxBodyAtTheLimitOfInt64(t *testing.T) {
	t.Parallel()
	for _, declared := range []bool{true, false} {
		a := &Attempt{Base: streamRT{n: 100 << 10, declared: declared}, MaxBody: math.MaxInt64}
		resp, err := get(t, context.Background(), a, "http://127.0.0.1/x")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(resp.Body.(*Body).Bytes()); got != 100<<10 {
			t.Errorf("declared %v: read %d bytes, want %d", declared, got, 100<<10)
		}
	}
}

// countingRT answers with bodies of n bytes of unknown length and counts
// the bytes read from the last one.
type countingRT struct {
	n    int64
	last atomic.Pointer[patternReader]
}

func (c *countingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	r := &patternReader{n: c.n}
	c.last.Store(r)
	return &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: -1,
		Body: io.NopCloser(r), Request: req}, nil
}

// TestBudgetBoundsBodiesHeldAtOnce: bodies over the free allowance share a
// budget of twice the bound; one that does not fit waits, holding no more
// than the allowance, until a body is closed, and gives up when its
// context ends.
func TestBudgetBoundsBodiesHeldAtOnce(t *testing.T) {
	t.Parallel()
	const bound = 4 << 20
	rt := &countingRT{n: 3 << 20}
	a := &Attempt{Base: rt, MaxBody: bound}
	r1, err := get(t, context.Background(), a, "http://127.0.0.1/1")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := get(t, context.Background(), a, "http://127.0.0.1/2")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()

	// 6 MiB of the 8 MiB budget are held; a third body of unknown length
	// needs the whole bound once past the allowance, so it waits.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := get(t, ctx, a, "http://127.0.0.1/3"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third body while two are held: err = %v, want DeadlineExceeded", err)
	}
	if read := rt.last.Load().off; read > smallBody+maxBlock {
		t.Errorf("the waiting body read %d bytes, more than the allowance %d and one block", read, smallBody)
	}

	// Small bodies never wait.
	small := &Attempt{Base: streamRT{n: 64 << 10}, MaxBody: bound, budget: a.budgetFor()}
	small.budOnce.Do(func() {})
	if _, err := get(t, context.Background(), small, "http://127.0.0.1/small"); err != nil {
		t.Fatalf("a small body waited: %v", err)
	}

	r1.Body.Close()
	r1.Body.Close() // a second Close gives nothing back twice
	r3, err := get(t, context.Background(), a, "http://127.0.0.1/3")
	if err != nil {
		t.Fatalf("third body after one was closed: %v", err)
	}
	defer r3.Body.Close()
	if got := len(r3.Body.(*Body).Bytes()); got != 3<<20 {
		t.Errorf("read %d bytes", got)
	}
	b := a.budgetFor()
	b.mu.Lock()
	free := b.free
	b.mu.Unlock()
	// Each body holds its bytes and the unused end of its last block.
	if want := int64(2*bound - 6<<20); free > want || free < want-2*maxBlock {
		t.Errorf("budget free = %d, want %d less at most two blocks", free, want)
	}
}
