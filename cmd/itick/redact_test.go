package main

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const secret = "Tok+en/42=abcDEF"

// tokenForms are the ways a hostile server could write the token back.
var tokenForms = []string{
	secret, strings.ToUpper(secret), strings.ToLower(secret), url.QueryEscape(secret), url.PathEscape(secret),
	base64.StdEncoding.EncodeToString([]byte(secret)), base64.RawURLEncoding.EncodeToString([]byte(secret)),
	fmt.Sprintf("%x", secret),
}

func TestLineRedactor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		writes []string
		want   string // after Flush
		early  string // what is out before Flush
	}{
		{"no token", []string{"a,b\n", "c,d\n"}, "a,b\nc,d\n", "a,b\nc,d\n"},
		{"token in any case", []string{"x " + strings.ToUpper(secret) + " y\n"}, "x [redacted] y\n", "x [redacted] y\n"},
		{"token split over writes", []string{"x Tok+e", "n/42=abc", "DEF y\n"}, "x [redacted] y\n", "x [redacted] y\n"},
		{"encoded forms", []string{url.QueryEscape(secret) + " " + base64.StdEncoding.EncodeToString([]byte(secret)) + "\n"},
			"[redacted] [redacted]\n", "[redacted] [redacted]\n"},
		{"an unfinished line waits", []string{"a,b\nc,"}, "a,b\nc,", "a,b\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			r := newLineRedactor(&out, secret)
			for _, w := range c.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if diff := cmp.Diff(c.early, out.String()); diff != "" {
				t.Errorf("before Flush (-want +got):\n%s", diff)
			}
			r.Flush()
			if diff := cmp.Diff(c.want, out.String()); diff != "" {
				t.Errorf("after Flush (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLineRedactorLongLine checks a line longer than what is held is
// written in pieces, with a token across the cut still caught.
func TestLineRedactorLongLine(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	r := newLineRedactor(&out, secret)
	long := strings.Repeat("x", holdLimit-3)
	r.Write([]byte(long + secret[:6])) //nolint:errcheck // a Builder does not fail
	if out.Len() == 0 {
		t.Fatal("nothing written of a line longer than the hold limit")
	}
	r.Write([]byte(secret[6:] + "\n")) //nolint:errcheck // as above
	if got, want := out.String(), long+"[redacted]\n"; got != want {
		t.Errorf("got ...%q, want ...%q", got[max(len(got)-30, 0):], want[len(want)-30:])
	}
}

// TestTokenNeverPrinted runs commands against a server that writes the
// token back in data and in errors, in several encodings: none reaches
// stdout or stderr.
func TestTokenNeverPrinted(t *testing.T) {
	t.Parallel()
	echo := strings.Join(tokenForms, " ")
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/echo":
			fmt.Fprintf(w, `{"code":0,"msg":"ok","data":{"seen":%q,"header":%q}}`, echo, r.Header.Get("token"))
		case "/stock/quotes":
			// Past the minute the SDK waits, so the message keeps the
			// service's text.
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintf(w, `{"code":429,"msg":"rate limit exceeded for %s","data":null}`, echo)
		case "/news":
			fmt.Fprintf(w, `{"code":0,"msg":"ok","data":{"data":[{"id":"1","te":%q,"pt":1748874600,"pv":%q}],`+
				`"pagination":{"hasMore":false,"count":1}}}`, echo, echo)
		default:
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"code":400,"msg":"bad request for %s","data":null}`, echo)
		}
	}))
	t.Cleanup(hostile.Close)
	env := []string{"ITICK_TOKEN=" + secret, "ITICK_BASE_URL=" + hostile.URL}
	for _, args := range [][]string{
		{"get", "/echo"},
		{"get", "/echo", "--debug"},
		{"news", "--format", "json"},
		{"news", "--format", "table"},
		{"news", "--format", "csv"},
		{"status", "US", "--timeout", "5s"},
		{"quote", "stock", "US", "AAPL"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, env, args...)
			all := strings.ToLower(r.stdout + r.stderr)
			for _, form := range tokenForms {
				if strings.Contains(all, strings.ToLower(form)) {
					t.Errorf("output shows the token as %q:\nstdout %q\nstderr %q", form, r.stdout, r.stderr)
				}
			}
			if !strings.Contains(r.stdout+r.stderr, redacted) {
				t.Errorf("nothing was redacted: the server's echo did not reach the output?\nstdout %q\nstderr %q",
					r.stdout, r.stderr)
			}
		})
	}
}
