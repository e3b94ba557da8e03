package transport

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// patternBytes returns n bytes of the pattern.
func patternBytes(n int64) []byte {
	b, _ := io.ReadAll(&patternReader{n: n})
	return b
}

// gzipped returns data compressed in one gzip member.
func gzipped(data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// gzipServer answers every request with body and Content-Encoding: gzip,
// chunked when its path is /chunked, and records the Accept-Encoding
// asked for.
func gzipServer(t *testing.T, body []byte) (*httptest.Server, *atomic.Pointer[string]) {
	t.Helper()
	var asked atomic.Pointer[string]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ae := r.Header.Get("Accept-Encoding")
		asked.Store(&ae)
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/chunked" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

func newTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// TestGzipBodyDecodedAsPlain: a gzip body, with its length declared or
// not, reads as the plain body would, and the response looks as net/http
// makes one it has decompressed; the budget is whole again once it is
// closed.
func TestGzipBodyDecodedAsPlain(t *testing.T) {
	t.Parallel()
	plain := patternBytes(3<<20 + 12345)
	srv, asked := gzipServer(t, gzipped(plain))
	a := &Attempt{Base: newTransport(t), MaxBody: 8 << 20}
	for _, path := range []string{"/declared", "/chunked"} {
		resp, err := get(t, context.Background(), a, srv.URL+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := *asked.Load(); got != "gzip" {
			t.Errorf("%s: Accept-Encoding sent = %q, want gzip", path, got)
		}
		if got := resp.Body.(*Body).Bytes(); !bytes.Equal(got, plain) {
			t.Errorf("%s: decoded %d bytes, not the %d sent", path, len(got), len(plain))
		}
		if !resp.Uncompressed || resp.ContentLength != int64(len(plain)) ||
			resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Content-Length") != "" {
			t.Errorf("%s: Uncompressed %v, ContentLength %d, header %v", path, resp.Uncompressed, resp.ContentLength, resp.Header)
		}
		resp.Body.Close()
	}
	if got := a.Counters().BytesRead; got != 2*int64(len(plain)) {
		t.Errorf("BytesRead = %d, want the decompressed %d", got, 2*len(plain))
	}
	b := a.budgetFor()
	b.mu.Lock()
	free := b.free
	b.mu.Unlock()
	if free != budgetFactor*a.MaxBody {
		t.Errorf("budget free after Close = %d, want %d", free, budgetFactor*a.MaxBody)
	}
}

// TestGzipBodyCostsItsSize: a gzip body costs about its decompressed size
// once, with its compressed length declared or not, where net/http's own
// decompression (a body of unknown length) costs twice.
func TestGzipBodyCostsItsSize(t *testing.T) {
	const n = 16 << 20
	srv, _ := gzipServer(t, gzipped(patternBytes(n)))
	a := &Attempt{Base: newTransport(t), MaxBody: 64 << 20}
	for _, path := range []string{"/declared", "/chunked"} {
		var err error
		var got int
		alloc := allocated(func() {
			var resp *http.Response
			resp, err = get(t, context.Background(), a, srv.URL+path)
			if err == nil {
				got = len(resp.Body.(*Body).Bytes())
				resp.Body.Close()
			}
		})
		if err != nil || got != n {
			t.Fatalf("%s: read %d bytes, err %v", path, got, err)
		}
		if per := float64(alloc) / n; per > 1.3 {
			t.Errorf("%s: allocated %.2f bytes per body byte, want at most 1.3", path, per)
		}
	}
}

// TestGzipTrailerNotTrusted: the size a trailer states sizes one
// allocation, within the bound: a body with several members, whose trailer
// states only the last one, decodes whole; a trailer that lies is the
// checksum error net/http would give, not an allocation of what it says.
func TestGzipTrailerNotTrusted(t *testing.T) {
	const bound = 4 << 20
	first, last := patternBytes(2<<20), patternBytes(100)
	multi := append(gzipped(first), gzipped(last)...)
	over := append(gzipped(patternBytes(3<<20)), gzipped(patternBytes(3<<20))...)
	small := gzipped(patternBytes(1000))
	lyingLarge := bytes.Clone(small)
	binary.LittleEndian.PutUint32(lyingLarge[len(lyingLarge)-4:], 0xFFFFFFFF)
	lyingSmall := gzipped(patternBytes(2 << 20))
	binary.LittleEndian.PutUint32(lyingSmall[len(lyingSmall)-4:], 10)
	bodies := map[string][]byte{"/multi": multi, "/over": over, "/large": lyingLarge, "/small": lyingSmall}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bodies[r.URL.Path])
	}))
	defer srv.Close()
	a := &Attempt{Base: newTransport(t), MaxBody: bound}

	var resp *http.Response
	var err error
	alloc := allocated(func() { resp, err = get(t, context.Background(), a, srv.URL+"/multi") })
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Body.(*Body).Bytes(); !bytes.Equal(got, append(first, last...)) {
		t.Errorf("two members: decoded %d bytes, want %d", len(got), len(first)+len(last))
	}
	resp.Body.Close()
	if alloc > 2*int64(len(first))+2<<20 { // blocks past the trailer's size, as with no length
		t.Errorf("two members: allocated %.1f MiB for %.1f MiB", float64(alloc)/(1<<20), float64(len(first))/(1<<20))
	}

	alloc = allocated(func() { _, err = get(t, context.Background(), a, srv.URL+"/over") })
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Errorf("two members over the bound: err = %v, want ErrBodyTooLarge", err)
	}
	if alloc > bound+2<<20 {
		t.Errorf("two members over the bound: allocated %.1f MiB under a bound of %d MiB", float64(alloc)/(1<<20), bound>>20)
	}

	alloc = allocated(func() { _, err = get(t, context.Background(), a, srv.URL+"/large") })
	if !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("a trailer stating 4 GiB: err = %v, want gzip.ErrChecksum", err)
	}
	if alloc > 1<<20 {
		t.Errorf("a trailer stating 4 GiB of a %d-byte body: allocated %.1f MiB", len(lyingLarge), float64(alloc)/(1<<20))
	}

	alloc = allocated(func() { _, err = get(t, context.Background(), a, srv.URL+"/small") })
	if !errors.Is(err, gzip.ErrChecksum) {
		t.Errorf("a trailer stating 10 bytes: err = %v, want gzip.ErrChecksum", err)
	}
	if alloc > bound+2<<20 {
		t.Errorf("a trailer stating 10 bytes: allocated %.1f MiB", float64(alloc)/(1<<20))
	}
}

// TestGzipCorruptIsABodyError: a corrupt gzip body fails the attempt with
// the read error net/http's decompression gives, retried like any body
// cut short.
func TestGzipCorruptIsABodyError(t *testing.T) {
	t.Parallel()
	good := gzipped(patternBytes(100 << 10))
	corrupt := bytes.Clone(good)
	for i := 20; i < 60; i++ {
		corrupt[i] ^= 0x55
	}
	for name, body := range map[string][]byte{"header": []byte("not gzip at all"), "data": corrupt} {
		srv, _ := gzipServer(t, body)
		a := &Attempt{Base: newTransport(t), MaxBody: 1 << 20}
		_, err := get(t, context.Background(), a, srv.URL)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		// What net/http gives through its own decompression.
		resp, herr := newTransport(t).RoundTrip(httptest.NewRequest(http.MethodGet, srv.URL, nil).WithContext(context.Background()))
		if herr != nil {
			t.Fatal(herr)
		}
		_, want := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want == nil || !errors.Is(err, want) && err.Error() != "itick: reading response body: "+want.Error() {
			t.Errorf("%s: err = %v, net/http gives %v", name, err, want)
		}
		if !retryableError(err) {
			t.Errorf("%s: %v is not retried", name, err)
		}
	}
}

// TestGzipOnlyWhereNetHTTPWouldAsk: a request's own Accept-Encoding is
// sent as it is and its body left encoded; a transport with compression
// disabled gets no Accept-Encoding; another encoding is left as it came.
func TestGzipOnlyWhereNetHTTPWouldAsk(t *testing.T) {
	t.Parallel()
	body := gzipped(patternBytes(10 << 10))
	srv, asked := gzipServer(t, body)

	a := &Attempt{Base: newTransport(t), MaxBody: 1 << 20}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip, br")
	resp, err := a.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := *asked.Load(); got != "gzip, br" {
		t.Errorf("Accept-Encoding sent = %q, want the request's own", got)
	}
	if !bytes.Equal(resp.Body.(*Body).Bytes(), body) || resp.Header.Get("Content-Encoding") != "gzip" || resp.Uncompressed {
		t.Errorf("a body asked for by the request was decoded")
	}

	tr := newTransport(t)
	tr.DisableCompression = true
	a = &Attempt{Base: tr, MaxBody: 1 << 20}
	resp, err = get(t, context.Background(), a, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := *asked.Load(); got != "" {
		t.Errorf("DisableCompression: Accept-Encoding sent = %q", got)
	}
	if !bytes.Equal(resp.Body.(*Body).Bytes(), body) {
		t.Errorf("DisableCompression: the body was decoded")
	}

	br := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "br")
		w.Write([]byte("brotli bytes"))
	}))
	defer br.Close()
	a = &Attempt{Base: newTransport(t), MaxBody: 1 << 20}
	resp, err = get(t, context.Background(), a, br.URL)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body.(*Body).Bytes()) != "brotli bytes" || resp.Header.Get("Content-Encoding") != "br" {
		t.Errorf("a br body was changed")
	}
}

// TestGzipReadersReusedAcrossBodies: decompressors are reused between
// bodies, so bodies read at once, and good ones after corrupt and cut
// ones, must each read as exactly their own bytes.
func TestGzipReadersReusedAcrossBodies(t *testing.T) {
	t.Parallel()
	plain := make([][]byte, 4)
	bodies := map[string][]byte{}
	for i := range plain {
		plain[i] = bytes.Repeat([]byte(strconv.Itoa(i)+" quote "), 1000*(i+1))
		bodies["/good"+strconv.Itoa(i)] = gzipped(plain[i])
	}
	good := bodies["/good3"]
	corrupt := bytes.Clone(good)
	for i := 20; i < 60; i++ {
		corrupt[i] ^= 0x55
	}
	bodies["/header"] = []byte("not gzip at all")
	bodies["/data"] = corrupt
	bodies["/cut"] = good[:len(good)/2]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bodies[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	a := &Attempt{Base: newTransport(t), MaxBody: 1 << 20}
	paths := []string{"/header", "/good0", "/data", "/good1", "/cut", "/good2", "/good3"}
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			for round := range 20 {
				for k := range paths {
					p := paths[(k+w+round)%len(paths)]
					resp, err := get(t, context.Background(), a, srv.URL+p)
					if bad := !strings.HasPrefix(p, "/good"); bad {
						if err == nil {
							resp.Body.Close()
							errs <- fmt.Errorf("%s: no error", p)
							return
						}
						continue
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %v", p, err)
						return
					}
					got, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					i, _ := strconv.Atoi(strings.TrimPrefix(p, "/good"))
					if err != nil || !bytes.Equal(got, plain[i]) {
						errs <- fmt.Errorf("%s: read %d bytes (%v), want its own %d", p, len(got), err, len(plain[i]))
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
