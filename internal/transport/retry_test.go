package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retryRT answers every request with status and Retry-After ra (none when
// ""), or fails it with err, and counts the attempts.
type retryRT struct {
	status   int
	ra       string
	err      error
	attempts atomic.Int32
	answered chan struct{} // a value after each answer, when there is room
}

func (f *retryRT) RoundTrip(req *http.Request) (*http.Response, error) {
	f.attempts.Add(1)
	defer func() {
		select {
		case f.answered <- struct{}{}:
		default:
		}
	}()
	if f.err != nil {
		return nil, f.err
	}
	h := http.Header{}
	if f.ra != "" {
		h.Set("Retry-After", f.ra)
	}
	return &http.Response{StatusCode: f.status, Header: h, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

func retrierDo(t *testing.T, ctx context.Context, rt *retryRT, retries int, backoff time.Duration) (*http.Response, error) {
	t.Helper()
	r := New(Config{HTTPClient: &http.Client{Transport: rt}, Retries: retries, MinBackoff: backoff, MaxBackoff: backoff})
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, "https://h/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Do(req)
	if resp != nil {
		resp.Body.Close()
	}
	return resp, err
}

// TestRetrierRefusesWaitsPastTheDeadline: a wait before a retry (a
// Retry-After, 429's or 5xx's, or a backoff after a status or a transport
// error) that would pass the deadline is refused at once, with the
// response that asked for it; one that fits is waited, and one the
// deadline does not concern is not refused.
func TestRetrierRefusesWaitsPastTheDeadline(t *testing.T) {
	t.Parallel()
	reset := errors.New("connection reset by peer")
	cases := []struct {
		name       string
		rt         *retryRT
		retries    int
		backoff    time.Duration
		deadline   time.Duration // 0: none
		refused    bool
		retryAfter bool          // the refused wait is a Retry-After
		wait       time.Duration // the refused wait
		attempts   int32
	}{
		{"503 backoff", &retryRT{status: 503}, 3, 2 * time.Hour, time.Hour, true, false, 2 * time.Hour, 1},
		{"429 backoff", &retryRT{status: 429}, 3, 2 * time.Hour, time.Hour, true, false, 2 * time.Hour, 1},
		{"transport error backoff", &retryRT{err: reset}, 3, 2 * time.Hour, time.Hour, true, false, 2 * time.Hour, 1},
		{"503 Retry-After", &retryRT{status: 503, ra: "30"}, 3, time.Millisecond, 10 * time.Second, true, true, 30 * time.Second, 1},
		{"429 Retry-After", &retryRT{status: 429, ra: "30"}, 3, time.Millisecond, 10 * time.Second, true, true, 30 * time.Second, 1},
		{"504 Retry-After past the longest wait", &retryRT{status: 504, ra: "3600"}, 3, time.Millisecond, 10 * time.Second, true, true, time.Hour, 1},
		// The service says no answer comes before the deadline, retries
		// left or not.
		{"429 Retry-After, no retries", &retryRT{status: 429, ra: "30"}, 0, time.Millisecond, 10 * time.Second, true, true, 30 * time.Second, 1},
		// No retry left: no wait to refuse.
		{"503 backoff, no retries left", &retryRT{status: 503}, 0, 2 * time.Hour, time.Hour, false, false, 0, 1},
		{"backoffs within the deadline", &retryRT{status: 503}, 2, time.Millisecond, time.Hour, false, false, 0, 3},
		{"Retry-After within the deadline", &retryRT{status: 503, ra: "0.001"}, 1, time.Hour, time.Hour, false, false, 0, 2},
		{"Retry-After past the longest wait, no deadline", &retryRT{status: 503, ra: "3600"}, 3, time.Millisecond, 0, false, false, 0, 1},
		{"not retried", &retryRT{status: 404}, 3, 2 * time.Hour, time.Hour, false, false, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			resp, err := retrierDo(t, ctx, tc.rt, tc.retries, tc.backoff)
			if ctx.Err() != nil {
				t.Fatal("the call waited into its deadline")
			}
			if n := tc.rt.attempts.Load(); n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
			var refused *RefusedWait
			if !tc.refused {
				if errors.As(err, &refused) || errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want no refusal", err)
				}
				return
			}
			if !errors.As(err, &refused) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want a *RefusedWait matching context.DeadlineExceeded", err)
			}
			if refused.RetryAfter != tc.retryAfter || refused.Wait < tc.wait/2 || refused.Wait > tc.wait {
				t.Errorf("refused %+v, want a wait of up to %v (Retry-After %v)", refused, tc.wait, tc.retryAfter)
			}
			switch {
			case tc.rt.err != nil && (resp != nil || !errors.Is(err, tc.rt.err)):
				t.Errorf("resp %v, err %v: want no response and the transport error kept", resp, err)
			case tc.rt.err == nil && (resp == nil || resp.StatusCode != tc.rt.status):
				t.Errorf("resp %v, want the response that asked for the wait", resp)
			}
		})
	}
}

// TestRetrierWaitCutShort: a context that ends during the wait between
// attempts ends the call at once with its error, saying what it waited for.
func TestRetrierWaitCutShort(t *testing.T) {
	t.Parallel()
	for _, rt := range []*retryRT{{status: 503}, {err: errors.New("connection reset by peer")}} {
		rt.answered = make(chan struct{}, 1)
		var call Call
		ctx, cancel := context.WithCancel(WithCall(context.Background(), &call))
		go func() {
			<-rt.answered
			// Usually in the wait by now; if not, no retry is decided
			// and the call ends with ctx's error alone.
			time.AfterFunc(20*time.Millisecond, cancel)
		}()
		_, err := retrierDo(t, ctx, rt, 3, time.Hour)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		want := "waiting 1h0m0s to retry after HTTP 503"
		if rt.err != nil {
			want = "waiting 1h0m0s to retry after Get \"https://h/x\": connection reset by peer"
		}
		if call.retries == 1 && !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
		if n := rt.attempts.Load(); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
	}
}
