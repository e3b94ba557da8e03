package itick_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick"
)

// The rules that stop a batch: a refused token, a 429 whose wait is not
// taken, a bad token that costs one request.

// Behaviour 11: a refused token or a plan limit fails every chunk alike, so
// the first one ends the call: no further chunk is sent and the error comes
// back as it is, with no results.
func TestRefusalEndsTheBatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		is     error
	}{
		{"401", http.StatusUnauthorized, `{"code":401,"msg":"Invalid API key"}`, itick.ErrUnauthorized},
		{"403", http.StatusForbidden, `{"message":"Forbidden"}`, itick.ErrUnauthorized},
		{"E002", http.StatusOK, `{"code":2,"msg":"E002 auth failed","data":null}`, itick.ErrUnauthorized},
		{"E003", http.StatusOK, `{"code":3,"msg":"E003 exceeding the maximum subscription limit","data":null}`, itick.ErrPlanLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n.Add(1)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			c := newServerClient(t, srv, testToken, itick.WithPlan(itick.PlanBase), itick.WithConcurrency(1))
			got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(300))
			if _, ok := err.(*itick.APIError); !ok {
				t.Fatalf("err = %v (%T), want the chunk's *APIError as it is", err, err)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if got != nil {
				t.Errorf("results = %v, want none", got)
			}
			if m := n.Load(); m != 1 {
				t.Errorf("%d requests for 30 chunks, want 1", m)
			}
		})
	}
}

// Behaviour 11: with several chunks in flight, the first refusal cancels the
// others and sends no more.
func TestRefusalCancelsChunksInFlight(t *testing.T) {
	t.Parallel()
	const conc = 4
	var n, cancelled atomic.Int64
	arrived := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if requestedCodes(r)[0] == "C0" {
			// Refuse only once the other chunks are in flight.
			for range conc - 1 {
				select {
				case <-arrived:
				case <-r.Context().Done():
					return
				}
			}
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"code":401,"msg":"Invalid API key"}`)
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done() // held until the client gives up on it
		cancelled.Add(1)
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(10), itick.WithConcurrency(conc))
	itick.ConfirmClient(c) // fans out from the first chunk
	done := make(chan error, 1)
	go func() {
		_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(300))
		done <- err
	}()
	err := waitOrFail(t, done, "the batch to end")
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	var be *itick.BatchError
	if errors.As(err, &be) {
		t.Errorf("err is a *BatchError: %v", err)
	}
	if m := n.Load(); m != conc {
		t.Errorf("%d requests, want the %d in flight and no more", m, conc)
	}
	// The held chunks' requests end because the client cancelled them.
	deadline := time.Now().Add(10 * time.Second)
	for cancelled.Load() != conc-1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if m := cancelled.Load(); m != conc-1 {
		t.Errorf("%d chunks in flight were cancelled, want %d", m, conc-1)
	}
}

// Behaviour 11: a 429 asking for more than a minute stops the batch: the
// results that arrived come back with a *BatchError whose unsent chunks
// carry that 429.
func TestLongRetryAfterSendsNoMoreChunks(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		cs := requestedCodes(r)
		if cs[0] == "C2" {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":429,"msg":"too many requests"}`)
			return
		}
		io.WriteString(w, quotesEnvelope(cs, nil))
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithConcurrency(1), itick.WithRetries(3))
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if diff := cmp.Diff([]string{"C0", "C1"}, sortedKeys(got)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if m := n.Load(); m != 2 {
		t.Errorf("%d requests, want 2: none after the long 429", m)
	}
	failed := be.FailedCodes()
	slices.Sort(failed)
	if diff := cmp.Diff([]string{"C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"}, failed); diff != "" {
		t.Errorf("FailedCodes (-want +got):\n%s", diff)
	}
	for _, ch := range be.Chunks {
		var apiErr *itick.APIError
		if !errors.As(ch.Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 2*time.Minute {
			t.Errorf("chunk %v: err = %v, want the 429 with RetryAfter 2m", ch.Codes, ch.Err)
		}
	}
	if !errors.Is(err, itick.ErrRateLimited) {
		t.Errorf("err = %v, want one matching ErrRateLimited", err)
	}
}

// Behaviour 11: a chunk already in flight when the long 429 arrives
// finishes, and its results are kept. (How many chunks a second worker
// starts before the 429 is seen depends on scheduling, so only
// TestLongRetryAfterSendsNoMoreChunks counts requests.)
func TestLongRetryAfterKeepsChunksInFlight(t *testing.T) {
	t.Parallel()
	// The 429 is answered only once the second chunk is in flight, and
	// that chunk is answered only after the 429, so the second chunk is in
	// flight when the call learns of the 429 however the workers are
	// scheduled.
	refused, inFlight := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs := requestedCodes(r)
		switch cs[0] {
		case "C0":
			select {
			case <-inFlight:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"code":429,"msg":"too many requests"}`)
			close(refused)
			return
		case "C2":
			close(inFlight)
			select {
			case <-refused:
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, quotesEnvelope(cs, nil))
	}))
	c := newServerClient(t, srv, testToken, itick.WithBatchSize(2), itick.WithConcurrency(2))
	itick.ConfirmClient(c) // fans out from the first chunk
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, codes(10))
	var be *itick.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want *BatchError", err, err)
	}
	if _, ok := got["C2"]; !ok {
		t.Errorf("results = %v, want the chunk in flight (C2, C3) kept", sortedKeys(got))
	}
	all := append(sortedKeys(got), be.FailedCodes()...)
	slices.Sort(all)
	if diff := cmp.Diff(codes(10), all); diff != "" {
		t.Errorf("results and FailedCodes together (-want +got):\n%s", diff)
	}
	for _, ch := range be.Chunks {
		var apiErr *itick.APIError
		if !errors.As(ch.Err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != time.Hour {
			t.Errorf("chunk %v: err = %v, want the 429", ch.Codes, ch.Err)
		}
	}
	if !slices.Contains(be.FailedCodes(), "C0") {
		t.Errorf("FailedCodes = %v, want the 429's chunk among them", be.FailedCodes())
	}
}

// Behaviour 16: until the client has had one success, a batch call sends
// its first chunk alone, so a refused token costs one request; once one
// call has succeeded, batch calls fan out at once.
func TestBadTokenCostsOneRequest(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var inFlight, most, requests int
	token := "good-token-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		if r.Header.Get("token") != token {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Invalid API key in request"}`))
			return
		}
		time.Sleep(20 * time.Millisecond) // long enough for chunks sent together to overlap
		codes := strings.Split(r.URL.Query().Get("codes"), ",")
		var b strings.Builder
		for i, c := range codes {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `%q:{"s":%q,"ld":1}`, c, c)
		}
		fmt.Fprintf(w, `{"code":0,"data":{%s}}`, b.String())
	}))
	codes := make([]string, 300)
	for i := range codes {
		codes[i] = fmt.Sprintf("C%d", i)
	}
	bad := newServerClient(t, srv, "bad-token-0123456789")
	if _, err := bad.Stock.Quotes(context.Background(), itick.RegionHK, codes); !errors.Is(err, itick.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	mu.Lock()
	if requests != 1 {
		t.Errorf("a refused token cost %d requests, want 1", requests)
	}
	mu.Unlock()

	good := newServerClient(t, srv, token, itick.WithConcurrency(4))
	for round := range 2 {
		mu.Lock()
		requests, most = 0, 0
		mu.Unlock()
		got, err := good.Stock.Quotes(context.Background(), itick.RegionHK, codes[:80])
		if err != nil || len(got) != 80 {
			t.Fatalf("round %d: %d quotes, %v", round, len(got), err)
		}
		mu.Lock()
		if round == 1 && most < 2 {
			t.Errorf("after a success, %d chunk at most in flight, want the batch fanned out", most)
		}
		if requests != 8 {
			t.Errorf("round %d: %d requests for 80 codes, want 8", round, requests)
		}
		mu.Unlock()
	}
}
