package transport

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

type fixedBody struct {
	declared int64
	body     string
}

func (f fixedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: f.declared,
		Body: io.NopCloser(strings.NewReader(f.body)), Request: req}, nil
}

// TestBufferReadsWholeBodyWhateverItsDeclaredLength checks that a body is
// read to its end whether the transport declared its length rightly, too
// short, too long or not at all, and that the bound still applies.
func TestBufferReadsWholeBodyWhateverItsDeclaredLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		declared int64
		body     string
		maxBody  int64
		wantErr  error
	}{
		{"declared rightly", 11, "hello world", 0, nil},
		{"declared too short", 5, "hello world", 0, nil},
		{"declared too long", 40, "hello world", 0, nil},
		{"unknown length", -1, "hello world", 0, nil},
		{"empty", 0, "", 0, nil},
		{"one byte declared", 1, "x", 0, nil},
		{"declared short, over the bound", 5, "hello world", 8, ErrBodyTooLarge},
		{"unknown length, over the bound", -1, "hello world", 8, ErrBodyTooLarge},
		{"at the bound", 11, "hello world", 11, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := &Attempt{Base: fixedBody{tt.declared, tt.body}, MaxBody: tt.maxBody}
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://127.0.0.1/x", nil)
			resp, err := a.RoundTrip(req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(resp.Body.(*Body).Bytes())
			if got != tt.body || resp.ContentLength != int64(len(tt.body)) {
				t.Errorf("got body %q with length %d, want %q", got, resp.ContentLength, tt.body)
			}
		})
	}
}

// TestBodySinkSeesThroughClientWrapper checks that the sink holds the
// final body although an http.Client with a Timeout wraps the Body, which
// hides its Bytes method.
func TestBodySinkSeesThroughClientWrapper(t *testing.T) {
	t.Parallel()
	a := &Attempt{Base: fixedBody{11, "hello world"}}
	hc := &http.Client{Transport: a, Timeout: time.Minute}
	var sink []byte
	req, _ := http.NewRequestWithContext(WithBodySink(t.Context(), &sink), http.MethodGet, "http://127.0.0.1/x", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if string(sink) != "hello world" {
		t.Errorf("sink holds %q, want %q", sink, "hello world")
	}
}
