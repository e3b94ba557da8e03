package transport

import (
	"context"
	"net/url"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSameOrigin: scheme, host and port decide; default ports, letter case,
// the WebSocket schemes and IPv6 spellings do not.
func TestSameOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want bool
	}{
		{"https://api.itick.org", "https://api.itick.org/stock/quotes?x=1", true},
		{"https://api.itick.org", "https://api.itick.org:443/moved", true},
		{"https://api.itick.org:443", "https://api.itick.org/x", true},
		{"https://api.itick.org", "https://api.itick.org:0443/x", true},
		{"http://h", "http://h:80/x", true},
		{"wss://api.itick.org/stock", "https://api.itick.org:443/stock", true},
		{"ws://h:80", "http://h/x", true},
		{"https://API.iTick.org", "https://api.itick.org/x", true},
		{"HTTPS://api.itick.org", "https://api.itick.org/x", true},
		{"https://[::1]/", "https://[0:0:0:0:0:0:0:1]:443/x", true},
		{"https://[2001:DB8::1]:8443", "https://[2001:db8::1]:8443/x", true},
		{"https://user@h/", "https://h/x", true},

		{"https://api.itick.org", "http://api.itick.org/x", false},
		{"https://api.itick.org", "http://api.itick.org:443/x", false},
		{"https://api.itick.org", "https://api.itick.org:8443/x", false},
		{"https://api.itick.org", "https://evil.example/x", false},
		{"https://api.itick.org", "https://api.itick.org.evil.example/x", false},
		{"https://api.itick.org", "https://api.itick.org./x", false},
		{"wss://api.itick.org", "ws://api.itick.org/x", false},
		{"wss://api.itick.org", "http://api.itick.org:443/x", false},
		{"https://[::1]/", "https://[::2]/x", false},
		{"https://[::1]/", "https://127.0.0.1/x", false},
		{"https://h:80", "http://h/x", false},
	}
	for _, tc := range cases {
		a, b := mustURL(t, tc.a), mustURL(t, tc.b)
		if got := SameOrigin(a, b); got != tc.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v (%v vs %v)", tc.a, tc.b, got, tc.want, OriginOf(a), OriginOf(b))
		}
		if got := SameOrigin(b, a); got != tc.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
	if SameOrigin(nil, nil) || SameOrigin(mustURL(t, "https://h"), nil) {
		t.Error("SameOrigin with nil is true")
	}
}

func TestOriginString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://API.itick.org/x":    "https://api.itick.org:443",
		"wss://h/x":                  "https://h:443",
		"ws://h:8080":                "http://h:8080",
		"https://[0:0::1]:0443/x":    "https://[::1]:443",
		"ftp://h/x":                  "ftp://h",
		"https://[fe80::1%25eth0]/x": "https://[fe80::1%eth0]:443",
	} {
		if got := OriginOf(mustURL(t, in)).String(); got != want {
			t.Errorf("OriginOf(%s) = %s, want %s", in, got, want)
		}
	}
	if !OriginOf(mustURL(t, "wss://h")).Secure() || OriginOf(mustURL(t, "http://h")).Secure() {
		t.Error("Secure is wrong")
	}
	if !OriginOf(nil).IsZero() || OriginOf(mustURL(t, "https://h")).IsZero() {
		t.Error("IsZero is wrong")
	}
}

// TestAttempt_TokenOnlyToItsOrigin: the token goes to requests for the
// configured origin however it is written, and never to another scheme,
// port or host, nor when no origin is configured.
func TestAttempt_TokenOnlyToItsOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		base, req string
		want      bool
	}{
		{"https://api.itick.org", "https://api.itick.org:443/moved", true},
		{"https://api.itick.org:443", "https://api.itick.org/moved", true},
		{"https://api.itick.org", "https://API.ITICK.ORG/moved", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/x", true},
		{"https://[::1]", "https://[0:0::1]:443/x", true},
		{"https://api.itick.org", "http://api.itick.org/moved", false},
		{"https://api.itick.org", "http://api.itick.org:443/moved", false},
		{"https://api.itick.org", "https://api.itick.org:8443/moved", false},
		{"https://api.itick.org", "https://evil.example/moved", false},
		{"https://[::1]", "https://[::2]/x", false},
	}
	for _, tc := range cases {
		rt := &fakeRT{status: 200, body: "{}"}
		a := &Attempt{Base: rt, Origin: OriginOf(mustURL(t, tc.base)), Token: "secret"}
		if _, err := get(t, context.Background(), a, tc.req); err != nil {
			t.Fatal(err)
		}
		if got := rt.last.Load().Header.Get("token") == "secret"; got != tc.want {
			t.Errorf("base %s, request %s: token sent = %v, want %v", tc.base, tc.req, got, tc.want)
		}
	}
	rt := &fakeRT{status: 200, body: "{}"}
	a := &Attempt{Base: rt, Token: "secret"}
	if _, err := get(t, context.Background(), a, "https:///x"); err != nil {
		t.Fatal(err)
	}
	if rt.last.Load().Header.Get("token") != "" {
		t.Error("an Attempt without an origin sent the token")
	}
}
