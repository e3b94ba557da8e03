package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick"
)

// quotaWatch is the transport under the client: it remembers the last HTTP
// 429 and its Retry-After. A wait that would pass the deadline ends the call
// at once with an error that says it was the quota; but when the time runs
// out while the client backs off after a 429, most often one without a
// Retry-After, the error is the deadline's, and this is what tells the user
// it was the quota, and when to try again.
type quotaWatch struct {
	base http.RoundTripper

	mu         sync.Mutex
	seen       bool
	at         time.Time
	retryAfter time.Duration // 0 when the 429 said nothing
}

func newQuotaWatch() *quotaWatch {
	var base http.RoundTripper = http.DefaultTransport
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.MaxIdleConnsPerHost = 32 // one per chunk in flight, as the SDK's own
		base = t
	}
	return &quotaWatch{base: base}
}

// httpClient is what the SDK builds for itself, with the watch underneath.
func (q *quotaWatch) httpClient() *http.Client {
	return &http.Client{Transport: q, Timeout: itick.DefaultTimeout}
}

func (q *quotaWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := q.base.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		now := time.Now()
		d, _ := retryAfter(resp.Header.Get("Retry-After"), now)
		q.mu.Lock()
		q.seen, q.at, q.retryAfter = true, now, d
		q.mu.Unlock()
	}
	return resp, err
}

// wait reports whether a 429 arrived, and how long from now its
// Retry-After still asks for (0 when unknown or over).
func (q *quotaWatch) wait() (bool, time.Duration) {
	if q == nil {
		return false, 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.seen || q.retryAfter == 0 {
		return q.seen, 0
	}
	return true, max(q.retryAfter-time.Since(q.at), 0)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, 1<<31)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
