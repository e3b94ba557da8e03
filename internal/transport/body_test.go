package transport

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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

// TestClientWithoutTimeoutKeepsTheBody checks what the itick client's
// request path relies on: through an http.Client without a Timeout of its
// own, redirects included, the response's Body is the attempt's *Body.
func TestClientWithoutTimeoutKeepsTheBody(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/from" {
			http.Redirect(w, r, "/to", http.StatusFound)
			return
		}
		io.WriteString(w, "hello world")
	}))
	defer srv.Close()
	a := &Attempt{Base: srv.Client().Transport}
	hc := &http.Client{Transport: a}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/from", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, ok := resp.Body.(*Body)
	if !ok {
		t.Fatalf("Body is %T, want *Body", resp.Body)
	}
	if string(b.Bytes()) != "hello world" || a.Attempts() != 2 {
		t.Errorf("body %q after %d attempts, want %q after 2", b.Bytes(), a.Attempts(), "hello world")
	}
}

// TestBodyKeepsItsBlocks: a body of unknown length is kept in the blocks it
// was read in, none of them empty, and Bytes, Read and Len agree with them.
func TestBodyKeepsItsBlocks(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, 1, firstBlock - 1, firstBlock, firstBlock + 1, 3*maxBlock + 17, 5 * maxBlock} {
		a := &Attempt{Base: streamRT{n: n}, MaxBody: 64 << 20}
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/x", nil)
		resp, err := a.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b := resp.Body.(*Body)
		var joined []byte
		for i, blk := range b.Blocks() {
			if len(blk) == 0 && n > 0 {
				t.Errorf("n=%d: block %d of %d is empty", n, i, len(b.Blocks()))
			}
			if cap(blk) > maxBlock {
				t.Errorf("n=%d: block %d holds %d bytes, over %d", n, i, cap(blk), maxBlock)
			}
			joined = append(joined, blk...)
		}
		want := patternBytes(n)
		read, _ := io.ReadAll(b)
		if !bytes.Equal(joined, want) || !bytes.Equal(b.Bytes(), want) || !bytes.Equal(read, want) || b.Len() != n {
			t.Errorf("n=%d: blocks, Bytes, Read and Len disagree with the body (%d, %d, %d, %d bytes)",
				n, len(joined), len(b.Bytes()), len(read), b.Len())
		}
		if b.Bytes() == nil {
			t.Errorf("n=%d: Bytes is nil", n)
		}
		b.Close()
	}
}
