package itick_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/testutil"
)

// tokenFragment returns the first run of 8 or more bytes of testToken that
// s shows, in any of the forms a server may echo it in.
func tokenFragment(s string) string {
	for _, form := range []string{testToken, url.QueryEscape(testToken), url.PathEscape(testToken)} {
		for i := 0; i+8 <= len(form); i++ {
			if frag := form[i : i+8]; strings.Contains(s, frag) {
				return frag
			}
		}
	}
	return ""
}

// TestBehaviour8_NoTokenFragmentInErrors: a server echoing the token, in
// an envelope's msg, a gateway's message, a body that does not parse or a
// field's bad value, at every offset around the bound on error text, shows
// no part of it (8 bytes or more) in the error, any printed form of it or
// the log; and an 8 MiB message does not make an 8 MiB error.
func TestBehaviour8_NoTokenFragmentInErrors(t *testing.T) {
	t.Parallel()
	var offsets []int
	for off := 0; off <= 300; off += 1 {
		offsets = append(offsets, off)
	}
	bodies := map[string]func(pad string) (int, string){
		"msg": func(pad string) (int, string) {
			return 200, `{"code":1,"msg":"` + pad + testToken + ` refused","data":null}`
		},
		"gateway message": func(pad string) (int, string) {
			return 502, `{"message":"` + pad + testToken + `"}`
		},
		"not json": func(pad string) (int, string) {
			return 200, "<html>" + pad + testToken + "</html>"
		},
		"plain text error": func(pad string) (int, string) {
			return 400, pad + url.QueryEscape(testToken)
		},
		"bad field value": func(pad string) (int, string) {
			return 200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":"` + pad + testToken + `"}}}`
		},
		"bad field short": func(pad string) (int, string) {
			return 200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":"` + pad[:min(len(pad), 10)] + testToken + `"}}}`
		},
		"bad bool": func(pad string) (int, string) {
			return 200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ts":` + `"x` + testToken + `"}}}`
		},
		"json escaped": func(pad string) (int, string) {
			esc := ""
			for _, c := range testToken {
				esc += fmt.Sprintf(`\u%04x`, c)
			}
			return 200, `{"code":1,"msg":"` + pad + esc + `"}`
		},
	}
	type reply struct {
		status int
		body   string
	}
	var cur atomic.Pointer[reply]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := cur.Load()
		w.WriteHeader(rep.status)
		_, _ = w.Write([]byte(rep.body))
	}))
	var logs testutil.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newServerClient(t, srv, testToken, itick.WithRetries(0), itick.WithLogger(logger))
	for name, body := range bodies {
		for _, off := range offsets {
			status, b := body(strings.Repeat("é", off/2) + strings.Repeat("x", off%2))
			cur.Store(&reply{status, b})
			_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
			if err == nil {
				t.Fatalf("%s, offset %d: no error", name, off)
			}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				if frag := tokenFragment(fmt.Sprintf(verb, err)); frag != "" {
					t.Fatalf("%s, offset %d: %s of the error shows %q: %s", name, off, verb, frag, fmt.Sprintf(verb, err))
				}
			}
			if off == 20 {
				t.Logf("%s: %v", name, err)
			}
			var apiErr *itick.APIError
			if errors.As(err, &apiErr) {
				if frag := tokenFragment(fmt.Sprintf("%#v", *apiErr)); frag != "" {
					t.Fatalf("%s, offset %d: the APIError shows %q", name, off, frag)
				}
			}
		}
	}
	if frag := tokenFragment(logs.String()); frag != "" {
		t.Errorf("the log shows %q", frag)
	}

	// An 8 MiB message is bounded, and still classified by what it says.
	cur.Store(&reply{200, `{"code":0,"msg":"` + strings.Repeat("a", 8<<20) + ` auth failed","data":{}}`})
	_, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err == nil || len(err.Error()) > 1024 {
		t.Fatalf("an 8 MiB msg gave an error of %d bytes", len(fmt.Sprint(err)))
	}
	if !errors.Is(err, itick.ErrUnauthorized) {
		t.Errorf("err = %v, want ErrUnauthorized from the end of the message", err)
	}
	cur.Store(&reply{502, `{"message":"` + strings.Repeat("b", 8<<20) + `"}`})
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err == nil || len(err.Error()) > 1024 {
		t.Fatalf("an 8 MiB gateway message gave an error of %d bytes", len(fmt.Sprint(err)))
	}
	cur.Store(&reply{200, `{"code":0,"msg":"ok","data":{"700":{"s":"700","ld":"` + strings.Repeat("9", 8<<20) + `x"}}}`})
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err == nil || len(err.Error()) > 1024 {
		t.Fatalf("an 8 MiB bad value gave an error of %d bytes", len(fmt.Sprint(err)))
	}
}
