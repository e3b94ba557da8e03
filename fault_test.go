package itick_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// Tests against hostile and failing services: scripted statuses, hangs,
// broken sockets, endless bodies, redirects, failing batches, and stream
// servers that refuse, flap or send odd shapes.

func wantQuotes700() map[string]itick.Quote {
	return map[string]itick.Quote{"700": {Symbol: "700", Last: 616, Open: 608, PrevClose: 608, High: 616, Low: 601.5,
		Time: time.UnixMilli(1765526889000).UTC(), Volume: 17825495, Turnover: 10871536434.36, Change: 8, ChangePercent: 1.32}}
}

// reply is one scripted response.
type reply struct {
	status      int
	retryAfter  func() string // nil: no Retry-After
	contentType string        // "": application/json
	body        string
}

var ok200 = reply{status: 200, body: quotesOK}

func statusReply(status int) reply {
	return reply{status: status, body: fmt.Sprintf(`{"code":%d,"msg":"%s"}`, status, http.StatusText(status))}
}

func (r reply) with(retryAfter string) reply {
	r.retryAfter = func() string { return retryAfter }
	return r
}

func (r reply) withDate(offset time.Duration) reply {
	r.retryAfter = func() string { return time.Now().Add(offset).UTC().Format(http.TimeFormat) }
	return r
}

func repeat(r reply, n int) []reply {
	s := make([]reply, n)
	for i := range s {
		s[i] = r
	}
	return s
}

// TestFaultStatuses runs scripted response sequences against a client with
// retries: the n-th request gets script[n-1], and the last entry repeats.
func TestFaultStatuses(t *testing.T) {
	type want struct {
		attempts   int
		status     int   // 0: the call succeeds
		is         error // also matched when status != 0
		retryAfter time.Duration
		minGap     time.Duration // least time between the first two attempts
	}
	tests := []struct {
		name    string
		script  []reply
		retries int
		want    want
	}{
		{"429 storm without Retry-After", []reply{statusReply(429)}, 3,
			want{attempts: 4, status: 429, is: itick.ErrRateLimited}},
		{"429 storm without Retry-After that ends", append(repeat(statusReply(429), 2), ok200), 3,
			want{attempts: 3}},
		{"429 Retry-After 0 s storm", []reply{statusReply(429).with("0")}, 2,
			want{attempts: 3, status: 429, is: itick.ErrRateLimited}},
		{"429 Retry-After 1 s then success, past the backoff max", []reply{statusReply(429).with("1"), ok200}, 3,
			want{attempts: 2, minGap: time.Second}},
		{"429 Retry-After HTTP date in the past then success", []reply{statusReply(429).withDate(-time.Hour), ok200}, 3,
			want{attempts: 2}},
		{"429 Retry-After HTTP date storm that ends", append(repeat(statusReply(429).withDate(-time.Second), 3), ok200), 3,
			want{attempts: 4}},
		{"429 Retry-After 120 s is not waited for", []reply{statusReply(429).with("120")}, 3,
			want{attempts: 1, status: 429, is: itick.ErrRateLimited, retryAfter: 120 * time.Second}},
		{"429 Retry-After HTTP date 3 min ahead is not waited for", []reply{statusReply(429).withDate(3 * time.Minute)}, 3,
			want{attempts: 1, status: 429, is: itick.ErrRateLimited, retryAfter: 3 * time.Minute}},
		{"500 burst that ends", append(repeat(statusReply(500), 2), ok200), 3, want{attempts: 3}},
		{"502 burst that ends", append(repeat(statusReply(502), 3), ok200), 3, want{attempts: 4}},
		{"503 burst that ends", append(repeat(statusReply(503), 1), ok200), 3, want{attempts: 2}},
		{"504 burst that ends", append(repeat(statusReply(504), 2), ok200), 3, want{attempts: 3}},
		{"500 that does not end", []reply{statusReply(500)}, 3, want{attempts: 4, status: 500}},
		{"502 that does not end", []reply{statusReply(502)}, 2, want{attempts: 3, status: 502}},
		{"503 that does not end", []reply{statusReply(503)}, 1, want{attempts: 2, status: 503}},
		{"504 that does not end", []reply{statusReply(504)}, 3, want{attempts: 4, status: 504}},
		{"503 with retries off", []reply{statusReply(503)}, 0, want{attempts: 1, status: 503}},
		{"502 gateway HTML page then success", []reply{{status: 502, contentType: "text/html", body: "<html><body>Bad Gateway</body></html>"}, ok200}, 3,
			want{attempts: 2}},
		{"400 is not retried", []reply{statusReply(400)}, 3, want{attempts: 1, status: 400}},
		{"401 is not retried", []reply{{status: 401, body: `{"message":"Invalid API key in request"}`}}, 3,
			want{attempts: 1, status: 401, is: itick.ErrUnauthorized}},
		{"403 is not retried", []reply{statusReply(403)}, 3, want{attempts: 1, status: 403, is: itick.ErrUnauthorized}},
		{"404 is not retried", []reply{statusReply(404)}, 3, want{attempts: 1, status: 404, is: itick.ErrNotFound}},
		{"501 is not retried", []reply{statusReply(501)}, 3, want{attempts: 1, status: 501}},
		{"200 with a body that is not JSON", []reply{{status: 200, contentType: "text/html", body: "<html>maintenance</html>"}}, 3,
			want{attempts: 1, status: 200}},
		{"200 with an empty body", []reply{{status: 200, body: ""}}, 3, want{attempts: 1, status: 200}},
		{"200 with a gateway body and no envelope", []reply{{status: 200, body: `{"message":"Invalid API key in request"}`}}, 3,
			want{attempts: 1, status: 200, is: itick.ErrUnauthorized}},
		{"200 with code 0 and an error text", []reply{{status: 200, body: `{"code":0,"msg":"auth failed","data":null}`}}, 3,
			want{attempts: 1, status: 200, is: itick.ErrUnauthorized}},
		{"200 with a truncated envelope", []reply{{status: 200, body: quotesOK[:len(quotesOK)/2]}}, 3,
			want{attempts: 1, status: 200}},
		{"right JSON served as text/html", []reply{{status: 200, contentType: "text/html; charset=utf-8", body: quotesOK}}, 3,
			want{attempts: 1}},
		{"right JSON served as text/plain", []reply{{status: 200, contentType: "text/plain", body: quotesOK}}, 3,
			want{attempts: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGoroutines(t)
			var mu sync.Mutex
			var arrivals []time.Time
			fh := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, r *http.Request, n int) {
				mu.Lock()
				arrivals = append(arrivals, time.Now())
				mu.Unlock()
				rep := tt.script[min(n, len(tt.script))-1]
				ct := rep.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				if rep.retryAfter != nil {
					w.Header().Set("Retry-After", rep.retryAfter())
				}
				w.WriteHeader(rep.status)
				io.WriteString(w, rep.body)
			})
			c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}), itick.WithRetries(tt.retries))

			ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
			defer cancel()
			got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})

			if n := int(fh.hits.Load()); n != tt.want.attempts {
				t.Errorf("server saw %d attempts, want %d", n, tt.want.attempts)
			}
			if tt.want.minGap > 0 {
				mu.Lock()
				if len(arrivals) >= 2 {
					if gap := arrivals[1].Sub(arrivals[0]); gap < tt.want.minGap {
						t.Errorf("second attempt came %v after the first, want at least %v", gap, tt.want.minGap)
					}
				}
				mu.Unlock()
			}
			if tt.want.status == 0 {
				if err != nil {
					t.Fatalf("Quotes: %v", err)
				}
				if diff := cmp.Diff(wantQuotes700(), got); diff != "" {
					t.Errorf("Quotes (-want +got):\n%s", diff)
				}
				return
			}
			if got != nil {
				t.Errorf("Quotes returned %v with its error", got)
			}
			var apiErr *itick.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T) is not an *APIError", err, err)
			}
			if apiErr.StatusCode != tt.want.status {
				t.Errorf("StatusCode = %d, want %d", apiErr.StatusCode, tt.want.status)
			}
			if apiErr.Path != "/stock/quotes" {
				t.Errorf("Path = %q, want /stock/quotes", apiErr.Path)
			}
			if tt.want.is != nil && !errors.Is(err, tt.want.is) {
				t.Errorf("error %v does not match %v", err, tt.want.is)
			}
			// The call returned before its context ended. (A Retry-After past
			// the deadline matches DeadlineExceeded too: behaviour 15.)
			if ctx.Err() != nil {
				t.Errorf("call ran into its deadline: %v", err)
			}
			// An HTTP date has whole seconds, so allow for the one that passes.
			if d := tt.want.retryAfter - apiErr.RetryAfter; d < 0 || d > 2*time.Second {
				t.Errorf("RetryAfter = %v, want %v", apiErr.RetryAfter, tt.want.retryAfter)
			}
		})
	}
}

// TestFaultRetryAfterPastDeadline checks that a Retry-After the client would
// honour does not outlive the call's context.
func TestFaultRetryAfterPastDeadline(t *testing.T) {
	checkGoroutines(t)
	fh := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want context.DeadlineExceeded", err)
	}
	if n := fh.hits.Load(); n != 1 {
		t.Errorf("server saw %d attempts, want 1", n)
	}
}

// TestFaultHang covers servers that stop answering: the call's context, or
// the http.Client's per-attempt Timeout, ends each attempt.
func TestFaultHang(t *testing.T) {
	tests := []struct {
		name          string
		afterHeaders  bool
		ctxTimeout    time.Duration
		clientTimeout time.Duration
		retries       int
		wantAttempts  int
	}{
		{"hangs after the headers, context ends the call", true, 300 * time.Millisecond, 0, 3, 1},
		{"hangs before the headers, context ends the call", false, 300 * time.Millisecond, 0, 3, 1},
		{"hangs after the headers, per-attempt timeout, retried", true, faultCallTimeout, 100 * time.Millisecond, 2, 3},
		{"hangs before the headers, per-attempt timeout, retried", false, faultCallTimeout, 100 * time.Millisecond, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGoroutines(t)
			fh := newFaultHandler(func(s *faultHandler, w http.ResponseWriter, r *http.Request, _ int) {
				if tt.afterHeaders {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("Content-Length", "1000")
					w.WriteHeader(http.StatusOK)
					io.WriteString(w, `{"code":0,"data":{`)
					w.(http.Flusher).Flush()
				}
				select {
				case <-r.Context().Done():
				case <-s.done:
				}
			})
			c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{Timeout: tt.clientTimeout}), itick.WithRetries(tt.retries))
			ctx, cancel := context.WithTimeout(context.Background(), tt.ctxTimeout)
			defer cancel()
			got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
			if err == nil {
				t.Fatalf("Quotes returned %v and no error", got)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error %v does not match context.DeadlineExceeded", err)
			}
			if tt.clientTimeout > 0 && ctx.Err() != nil {
				t.Errorf("the call's own context ended (%v): the per-attempt timeout did not", ctx.Err())
			}
			if n := int(fh.hits.Load()); n != tt.wantAttempts {
				t.Errorf("server saw %d attempts, want %d", n, tt.wantAttempts)
			}
		})
	}
}

// rawHandler takes over the connection of each request and hands it to
// serve, for faults net/http will not produce. Each connection serves one
// request.
type rawHandler struct {
	serve func(c net.Conn, n int)
	hits  atomic.Int32
}

func (h *rawHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	h.serve(c, int(h.hits.Add(1)))
}

// writeOK answers with a whole, valid response.
func writeOK(c net.Conn) {
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		len(quotesOK), quotesOK)
}

// writeHead starts a response that promises a body of n bytes.
func writeHead(c net.Conn, n int) {
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", n)
}

// resetMidBody sends the headers and part of the body, then resets the
// connection (SO_LINGER 0 makes Close send RST).
func resetMidBody(c net.Conn) {
	writeHead(c, 4*len(quotesOK))
	io.WriteString(c, quotesOK[:len(quotesOK)/2])
	c.(*net.TCPConn).SetLinger(0)
}

// truncateBody sends fewer bytes than its Content-Length and closes cleanly.
func truncateBody(c net.Conn) {
	writeHead(c, 4*len(quotesOK))
	io.WriteString(c, quotesOK)
}

func TestFaultSocket(t *testing.T) {
	isReset := func(err error) bool {
		return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	isTruncated := func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }
	isClosed := func(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) }
	tests := []struct {
		name         string
		serve        func(c net.Conn, n int)
		retries      int
		wantAttempts int
		wantErr      func(error) bool // nil: the call succeeds
	}{
		{"connection reset mid-body, every time", func(c net.Conn, _ int) { resetMidBody(c) }, 2, 3, isReset},
		{"connection reset mid-body once, then success", func(c net.Conn, n int) {
			if n == 1 {
				resetMidBody(c)
				return
			}
			writeOK(c)
		}, 2, 2, nil},
		{"truncated body, every time", func(c net.Conn, _ int) { truncateBody(c) }, 3, 4, isTruncated},
		{"truncated body twice, then success", func(c net.Conn, n int) {
			if n <= 2 {
				truncateBody(c)
				return
			}
			writeOK(c)
		}, 3, 3, nil},
		{"truncated body with retries off", func(c net.Conn, _ int) { truncateBody(c) }, 0, 1, isTruncated},
		{"connection closed before the status line", func(net.Conn, int) {}, 1, 2, isClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGoroutines(t)
			fh := &rawHandler{serve: tt.serve}
			c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}), itick.WithRetries(tt.retries))
			ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
			defer cancel()
			got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
			if n := int(fh.hits.Load()); n != tt.wantAttempts {
				t.Errorf("server saw %d attempts, want %d", n, tt.wantAttempts)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Quotes: %v", err)
				}
				if diff := cmp.Diff(wantQuotes700(), got); diff != "" {
					t.Errorf("Quotes (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("Quotes returned %v and no error", got)
			}
			t.Logf("error: %v", err)
			if !tt.wantErr(err) {
				t.Errorf("unexpected error %v (%T)", err, err)
			}
			var apiErr *itick.APIError
			if errors.As(err, &apiErr) {
				t.Errorf("a transport failure came back as an *APIError: %v", err)
			}
			// The call returned before its context ended. (A Retry-After past
			// the deadline matches DeadlineExceeded too: behaviour 15.)
			if ctx.Err() != nil {
				t.Errorf("call ran into its deadline: %v", err)
			}
			if !strings.Contains(err.Error(), "/stock/quotes") {
				t.Errorf("error %q does not name the path", err)
			}
		})
	}
}

// TestFaultRedirectToOtherHost checks that a redirect to another host is
// followed without the token.
func TestFaultRedirectToOtherHost(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			checkGoroutines(t)
			var leaked atomic.Value
			other := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, r *http.Request, _ int) {
				for k, vs := range r.Header {
					for _, v := range vs {
						if strings.Contains(v, faultToken) || strings.EqualFold(k, "token") {
							leaked.Store(k + ": " + v)
						}
					}
				}
				if strings.Contains(r.URL.String(), faultToken) {
					leaked.Store("URL " + r.URL.String())
				}
				io.WriteString(w, quotesOK)
			})
			otherSrv := httptest.NewServer(other)
			t.Cleanup(otherSrv.Close)
			_, port, _ := net.SplitHostPort(otherSrv.Listener.Addr().String())
			target := "http://" + net.JoinHostPort(host, port)
			var sawToken atomic.Bool
			origin := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, r *http.Request, _ int) {
				sawToken.Store(r.Header.Get("token") == faultToken)
				http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusFound)
			})
			c := newServerClient(t, httptest.NewServer(origin), faultToken, ownTransport(t, &http.Client{}))
			ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
			defer cancel()
			got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
			if err != nil {
				t.Fatalf("Quotes: %v", err)
			}
			if diff := cmp.Diff(wantQuotes700(), got); diff != "" {
				t.Errorf("Quotes (-want +got):\n%s", diff)
			}
			if !sawToken.Load() {
				t.Error("the origin did not get the token")
			}
			if n := other.hits.Load(); n != 1 {
				t.Errorf("the other host saw %d requests, want 1", n)
			}
			if v := leaked.Load(); v != nil {
				t.Errorf("the other host got the token: %v", v)
			}
		})
	}
}

// TestFaultEndlessBody checks that a body that never ends is cut at the
// size bound, is not retried, and costs memory in proportion to the bound.
func TestFaultEndlessBody(t *testing.T) {
	checkGoroutines(t)
	const bound = 64 << 10
	chunk := []byte(strings.Repeat(`{"code":0,"data":{"700":`, 1<<10))
	fh := newFaultHandler(func(s *faultHandler, w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		for {
			select {
			case <-s.done:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}), itick.WithMaxResponseBytes(bound))
	call := func() {
		ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
		defer cancel()
		got, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
		if !errors.Is(err, itick.ErrResponseTooLarge) {
			t.Fatalf("Quotes = %v, %v; want ErrResponseTooLarge", got, err)
		}
	}
	call()
	if n := fh.hits.Load(); n != 1 {
		t.Errorf("server saw %d attempts, want 1: a body over the bound is not retried", n)
	}

	const calls = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range calls {
		call()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)

	// Each call may hold the bound twice over while its buffer grows, plus
	// the transport's own buffers and the server's side, which runs in this
	// process too. An unbounded read would take far more in the time the
	// body streams.
	perCall := (after.TotalAlloc - before.TotalAlloc) / calls
	if limit := uint64(4*bound + 512<<10); perCall > limit {
		t.Errorf("each call allocated %d bytes, want at most %d for a %d-byte bound", perCall, limit, bound)
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 4<<20 {
		t.Errorf("live heap grew by %d bytes over %d calls", grown, calls)
	}
}

// TestFaultDeclaredLengthOverBound checks that a Content-Length over the
// bound is refused before the body is read.
func TestFaultDeclaredLengthOverBound(t *testing.T) {
	checkGoroutines(t)
	fh := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, _ *http.Request, _ int) {
		body := `{"code":0,"msg":null,"data":{"700":` + quote700 + `,"pad":"` + strings.Repeat("x", 4096) + `"}}`
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		io.WriteString(w, body)
	})
	c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}), itick.WithMaxResponseBytes(1024))
	ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
	defer cancel()
	_, err := c.Stock.Quotes(ctx, itick.RegionHK, []string{"700"})
	if !errors.Is(err, itick.ErrResponseTooLarge) {
		t.Errorf("error %v, want ErrResponseTooLarge", err)
	}
	if n := fh.hits.Load(); n != 1 {
		t.Errorf("server saw %d attempts, want 1", n)
	}
}

// TestFaultBatchPartialFailure checks that a batch whose chunks partly fail
// returns every result that arrived and names exactly the codes that did
// not, so that retrying those completes the set.
func TestFaultBatchPartialFailure(t *testing.T) {
	checkGoroutines(t)
	codes := []string{"C1", " C2", "C3", "C4", "C2", "C5", "C6", "C7 "}
	quote := func(code string) itick.Quote {
		return itick.Quote{Symbol: code, Last: float64(len(code)) + 0.5, Time: time.UnixMilli(1765526889000).UTC()}
	}
	var failing atomic.Bool
	failing.Store(true)
	var mu sync.Mutex
	hitsByChunk := map[string]int{}
	fh := newFaultHandler(func(_ *faultHandler, w http.ResponseWriter, r *http.Request, _ int) {
		chunk := r.URL.Query().Get("codes")
		mu.Lock()
		hitsByChunk[chunk]++
		mu.Unlock()
		if failing.Load() {
			switch {
			case strings.Contains(chunk, "C3"):
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			case strings.Contains(chunk, "C7"):
				io.WriteString(w, `{"code":0,"msg":"E001 not found this produce","data":null}`)
				return
			}
		}
		var b strings.Builder
		b.WriteString(`{"code":0,"msg":null,"data":{`)
		for i, code := range strings.Split(chunk, ",") {
			if i > 0 {
				b.WriteString(",")
			}
			q, _ := quote(code).MarshalJSON()
			fmt.Fprintf(&b, "%q:%s", code, q)
		}
		b.WriteString(`}}`)
		io.WriteString(w, b.String())
	})
	c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}), itick.WithBatchSize(2), itick.WithConcurrency(2), itick.WithRetries(1))
	ctx, cancel := context.WithTimeout(context.Background(), faultCallTimeout)
	defer cancel()

	got, err := c.Stock.Quotes(ctx, itick.RegionHK, codes)
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T) is not a *BatchError", err, err)
	}
	if diff := cmp.Diff([]string{"C3", "C4", "C7"}, be.FailedCodes()); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if len(be.Chunks) != 2 {
		t.Errorf("%d failed chunks, want 2", len(be.Chunks))
	}
	var apiErr *itick.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("errors.As found %+v, want the 503 chunk's *APIError", apiErr)
	}
	if !errors.Is(err, itick.ErrNotFound) {
		t.Errorf("error %v does not match ErrNotFound from the C7 chunk", err)
	}
	want := map[string]itick.Quote{}
	for _, code := range []string{"C1", "C2", "C5", "C6"} {
		want[code] = quote(code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("partial results (-want +got):\n%s", diff)
	}
	mu.Lock()
	if diff := cmp.Diff(map[string]int{"C1,C2": 1, "C3,C4": 2, "C5,C6": 1, "C7": 1}, hitsByChunk); diff != "" {
		t.Errorf("attempts per chunk (-want +got):\n%s", diff)
	}
	mu.Unlock()

	failing.Store(false)
	rest, err := c.Stock.Quotes(ctx, itick.RegionHK, be.FailedCodes())
	if err != nil {
		t.Fatalf("retrying the failed codes: %v", err)
	}
	for k, v := range rest {
		got[k] = v
	}
	for _, code := range []string{"C3", "C4", "C7"} {
		want[code] = quote(code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results after retrying the failed codes (-want +got):\n%s", diff)
	}
}

// TestFaultBatchDeadline checks that a batch against a server that stops
// answering ends at its deadline with every code reported missing, sends
// nothing beyond the chunks already in flight, and leaves nothing running.
func TestFaultBatchDeadline(t *testing.T) {
	checkGoroutines(t)
	fh := newFaultHandler(func(s *faultHandler, _ http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	})
	c := newServerClient(t, httptest.NewServer(fh), faultToken, ownTransport(t, &http.Client{}), itick.WithBatchSize(1), itick.WithConcurrency(3))
	itick.ConfirmClient(c) // fans out from the first chunk
	codes := []string{"C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	got, err := c.Stock.Quotes(ctx, itick.RegionHK, codes)
	if len(got) != 0 {
		t.Errorf("results %v from a server that never answered", got)
	}
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T) is not a *BatchError", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not match context.DeadlineExceeded", err)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff(codes, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	if n := fh.hits.Load(); n != 3 {
		t.Errorf("server saw %d requests, want 3: only the chunks in flight", n)
	}
}

// Behaviour 9: a body over WithMaxResponseBytes is an error matching
// ErrResponseTooLarge, is not retried, and is caught with or without a
// Content-Length, over a real socket.
func TestBodyOverLimit(t *testing.T) {
	t.Parallel()
	const limit = 1024
	big := `{"code":0,"msg":null,"data":{"700":{"s":"` + strings.Repeat("x", 4*limit) + `"}}}`
	cases := []struct {
		name    string
		status  int
		chunked bool
	}{
		{"Content-Length", 200, false},
		{"chunked", 200, true},
		{"retryable status", 503, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				if !tc.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				}
				w.WriteHeader(tc.status)
				for i := 0; i < len(big); i += 256 {
					_, _ = w.Write([]byte(big[i:min(i+256, len(big))]))
					if tc.chunked {
						w.(http.Flusher).Flush()
					}
				}
			}))
			c := newServerClient(t, srv, testToken, itick.WithMaxResponseBytes(limit), itick.WithRetries(3))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if !errors.Is(err, itick.ErrResponseTooLarge) {
				t.Fatalf("err = %v, want ErrResponseTooLarge", err)
			}
			if got != nil {
				t.Errorf("map = %v, want nil", got)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("%d attempts, want 1 (not retried)", n)
			}
		})
	}
}

// Behaviour 9: a body of exactly the bound is fine.
func TestBodyAtLimitAccepted(t *testing.T) {
	t.Parallel()
	c, mt := newMockClient(t, testToken, itick.WithMaxResponseBytes(int64(len(okQuotes))))
	mt.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatalf("err = %v for a body of exactly the bound", err)
	}
	c2, mt2 := newMockClient(t, testToken, itick.WithMaxResponseBytes(int64(len(okQuotes))-1))
	mt2.RegisterResponder("GET", mockBase+"/stock/quotes", body(200, okQuotes))
	if _, err := c2.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); !errors.Is(err, itick.ErrResponseTooLarge) {
		t.Fatalf("err = %v for a body one byte over, want ErrResponseTooLarge", err)
	}
}

// refuse answers a handshake as the service does a revoked token: the
// refusal, then the connection closed at once.
func refuse(ctx context.Context, c *websocket.Conn) {
	wsSend(ctx, c, `{"code":1,"msg":"Connected Successfully"}`)
	wsSend(ctx, c, `{"code":0,"resAc":"auth","msg":"auth failed"}`)
	c.CloseNow()
}

// TestStream_RefusalIsUnauthorizedEveryTime: a refusal followed at once
// by the end of the connection is ErrUnauthorized, never a plain
// connection error.
func TestStream_RefusalIsUnauthorizedEveryTime(t *testing.T) {
	t.Parallel()
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) { refuse(ctx, c) })
	c := newServerClient(t, httptest.NewServer(h), simToken)
	for i := range 50 {
		s, err := c.Stream(within(t), itick.AssetStock)
		if err == nil {
			s.Close()
			t.Fatalf("connection %d: a refused token opened a stream", i)
		}
		if !errors.Is(err, itick.ErrUnauthorized) {
			t.Fatalf("connection %d: %v, want ErrUnauthorized", i, err)
		}
	}
}

// TestStream_RefusalOnReconnectEndsStream: a token accepted once and then
// refused ends the stream with ErrUnauthorized instead of retrying it.
func TestStream_RefusalOnReconnectEndsStream(t *testing.T) {
	t.Parallel()
	for i := range 10 {
		h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
			if n > 1 {
				refuse(ctx, c)
				return
			}
			if greet(ctx, c) != nil {
				return
			}
			req, err := wsRead(ctx, c)
			if err == nil && wsSend(ctx, c, acceptAll(req)) == nil {
				c.CloseNow() // the token is revoked: drop and refuse from now on
			}
		})
		// With no retries of a refused re-authentication (WithAuthRetries).
		s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock, itick.WithReconnectBackoff(0, time.Millisecond),
			itick.WithAuthRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.Done():
		case <-within(t).Done():
			s.Close()
			t.Fatalf("run %d: stream still running after %d connections", i, h.conns.Load())
		}
		if err := s.Err(); !errors.Is(err, itick.ErrUnauthorized) {
			t.Errorf("run %d: Err = %v, want ErrUnauthorized", i, err)
		}
		if n := h.conns.Load(); n != 2 {
			t.Errorf("run %d: %d connections, want 2: a refused token was tried again", i, n)
		}
	}
}

// TestStream_FlappingServerBacksOff: a server that authenticates, acks
// the renewal and drops at once must see the waits between connections
// grow along the backoff schedule, not start over after each drop.
func TestStream_FlappingServerBacksOff(t *testing.T) {
	t.Parallel()
	const conns = 7
	var mu sync.Mutex
	var at []time.Time
	h := newWSHost(func(ctx context.Context, _ int64, _ *http.Request, c *websocket.Conn) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if greet(ctx, c) != nil {
			return
		}
		req, err := wsRead(ctx, c)
		if err == nil && wsSend(ctx, c, acceptAll(req)) == nil {
			c.CloseNow()
		}
	})
	const min, max = 10 * time.Millisecond, 160 * time.Millisecond
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock, itick.WithReconnectBackoff(min, max))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reconnections", func() bool { return h.conns.Load() >= conns })
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < conns; i++ {
		// The i-th reconnection waits at least half the i-th step of the
		// schedule, and never less than min.
		step := min << i
		if step > max {
			step = max
		}
		least := step / 2
		if least < min {
			least = min
		}
		if gap := at[i].Sub(at[i-1]); gap < least {
			t.Errorf("reconnection %d came %s after the drop, want at least %s", i, gap, least)
		}
	}
}

// TestStream_ToleratesDataShapes: an acknowledgement with "data":[] and a
// pong whose data is a string are still an acknowledgement and a pong.
func TestStream_ToleratesDataShapes(t *testing.T) {
	t.Parallel()
	var pings atomic.Int64 // on the first connection
	h := newWSHost(func(ctx context.Context, n int64, _ *http.Request, c *websocket.Conn) {
		if greet(ctx, c) != nil {
			return
		}
		for {
			req, err := wsRead(ctx, c)
			if err != nil {
				return
			}
			reply := `{"code":1,"resAc":"` + req.Ac + `","msg":"ok","data":[]}`
			if req.Ac == "ping" {
				if n == 1 {
					pings.Add(1)
				}
				reply = `{"resAc":"pong","data":"` + req.Params + `"}`
			}
			if wsSend(ctx, c, reply) != nil {
				return
			}
		}
	})
	s, err := newServerClient(t, httptest.NewServer(h), simToken).Stream(within(t), itick.AssetStock,
		itick.WithHeartbeat(5*time.Millisecond, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Subscribe(within(t), []string{"700$HK"}, itick.ChannelQuote); err != nil {
		t.Fatalf("Subscribe with an acknowledgement carrying data:[]: %v", err)
	}
	eventually(t, "five pings on the first connection", func() bool { return pings.Load() >= 5 || h.conns.Load() > 1 })
	if n := h.conns.Load(); n != 1 {
		t.Errorf("%d connections: string pongs went unnoticed", n)
	}
}
