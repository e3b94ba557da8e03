package itick_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/d19c4e34/itick"
)

// Redirects: the token goes only to the origin it was given for, over the
// same scheme.

// Behaviour 8: a redirect to another host does not carry the token; one to
// the same host does.
func TestRedirectToOtherHostDropsToken(t *testing.T) {
	t.Parallel()
	var otherToken, otherHits atomic.Value
	otherHits.Store(0)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherToken.Store(r.Header.Get("token"))
		otherHits.Store(otherHits.Load().(int) + 1)
		fmt.Fprint(w, okQuotes)
	}))
	defer other.Close()
	var sameHostToken atomic.Value
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/stock/quotes":
			http.Redirect(w, r, other.URL+"/stock/quotes?"+r.URL.RawQuery, http.StatusFound)
		case "/stock/depths":
			http.Redirect(w, r, "/moved/depths?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		case "/moved/depths":
			sameHostToken.Store(r.Header.Get("token"))
			fmt.Fprint(w, `{"code":0,"msg":null,"data":{}}`)
		}
	}))
	c := newServerClient(t, home, testToken)
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if got["700"].Last != 616 || otherHits.Load().(int) != 1 {
		t.Fatalf("the redirect was not followed: %v", got)
	}
	if tok := otherToken.Load().(string); tok != "" {
		t.Errorf("the other host received token %q", tok)
	}
	if _, err := c.Stock.Depths(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if tok, _ := sameHostToken.Load().(string); tok != testToken {
		t.Errorf("same-host redirect carried token %q, want the client's", tok)
	}
}

// originLab is one host name, example.com, served on two ports of
// 127.0.0.1: "443" by a TLS server and "80" by a plain one, reached through
// a dialer that maps the name's ports to the two listeners. The httptest
// certificate is valid for example.com, so https://example.com is a real
// TLS origin and http://example.com the same host in cleartext.
type originLab struct {
	tls, plain *httptest.Server
	mu         sync.Mutex
	tokens     map[string]string // "scheme path" -> token header seen
}

func newOriginLab(t *testing.T, route func(w http.ResponseWriter, r *http.Request, scheme string) bool) *originLab {
	t.Helper()
	lab := &originLab{tokens: map[string]string{}}
	handler := func(scheme string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			lab.mu.Lock()
			lab.tokens[scheme+" "+r.URL.Path] = r.Header.Get("token")
			lab.mu.Unlock()
			if !route(w, r, scheme) {
				fmt.Fprint(w, okQuotes)
			}
		})
	}
	lab.tls = httptest.NewTLSServer(handler("https")) // closed by the clients' newServerClient
	lab.plain = httptest.NewServer(handler("http"))
	t.Cleanup(lab.plain.Close)
	return lab
}

// client returns a client whose base URL is base (on example.com) and
// whose transport dials the lab's listeners.
func (lab *originLab) client(t *testing.T, base string) *itick.Client {
	t.Helper()
	tr := lab.tls.Client().Transport.(*http.Transport).Clone()
	ports := map[string]string{"443": lab.tls.Listener.Addr().String(), "80": lab.plain.Listener.Addr().String()}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || !strings.EqualFold(host, "example.com") || ports[port] == "" {
			return nil, fmt.Errorf("lab: no route to %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, ports[port])
	}
	tr.TLSClientConfig = &tls.Config{RootCAs: tr.TLSClientConfig.RootCAs, ServerName: "example.com"}
	t.Cleanup(tr.CloseIdleConnections)
	return newServerClient(t, lab.tls, testToken, itick.WithBaseURL(base), itick.WithHTTPClient(&http.Client{Transport: tr}))
}

func (lab *originLab) token(key string) (string, bool) {
	lab.mu.Lock()
	defer lab.mu.Unlock()
	tok, ok := lab.tokens[key]
	return tok, ok
}

// Behaviour 14: an https base URL redirected to http on the same host and
// port-less form is followed without the token, so it never crosses the
// network in cleartext.
func TestRedirectToCleartextDropsToken(t *testing.T) {
	t.Parallel()
	lab := newOriginLab(t, func(w http.ResponseWriter, r *http.Request, scheme string) bool {
		if scheme == "https" && r.URL.Path == "/stock/quotes" {
			http.Redirect(w, r, "http://example.com/plain/quotes?"+r.URL.RawQuery, http.StatusFound)
			return true
		}
		return false
	})
	c := lab.client(t, "https://example.com")
	got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"})
	if err != nil {
		t.Fatal(err)
	}
	if got["700"].Last != 616 {
		t.Fatalf("the redirect was not followed: %v", got)
	}
	if tok, ok := lab.token("https /stock/quotes"); !ok || tok != testToken {
		t.Errorf("the https origin got token %q (seen %v), want the client's", tok, ok)
	}
	tok, ok := lab.token("http /plain/quotes")
	if !ok {
		t.Fatal("the cleartext hop was not made")
	}
	if tok != "" {
		t.Errorf("the cleartext hop carried the token %q", tok)
	}
}

// Behaviour 14: a redirect to the same origin written with its default port
// (https://h:443) is the same origin and keeps the token; so does one to a
// host in other case.
func TestRedirectWithExplicitDefaultPortKeepsToken(t *testing.T) {
	t.Parallel()
	lab := newOriginLab(t, func(w http.ResponseWriter, r *http.Request, scheme string) bool {
		switch r.URL.Path {
		case "/stock/quotes":
			http.Redirect(w, r, "https://example.com:443/moved/quotes?"+r.URL.RawQuery, http.StatusFound)
			return true
		case "/stock/depths":
			http.Redirect(w, r, "https://EXAMPLE.com/moved/depths?"+r.URL.RawQuery, http.StatusFound)
			return true
		case "/moved/depths":
			fmt.Fprint(w, `{"code":0,"msg":null,"data":{}}`)
			return true
		}
		return false
	})
	c := lab.client(t, "https://example.com")
	if _, err := c.Stock.Quotes(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if tok, ok := lab.token("https /moved/quotes"); !ok || tok != testToken {
		t.Errorf("https://example.com:443 got token %q (seen %v), want the client's", tok, ok)
	}
	if _, err := c.Stock.Depths(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if tok, ok := lab.token("https /moved/depths"); !ok || tok != testToken {
		t.Errorf("https://EXAMPLE.com got token %q (seen %v), want the client's", tok, ok)
	}

	// And the other way round: a base URL written with :443.
	c2 := lab.client(t, "https://example.com:443")
	if _, err := c2.Stock.Depths(t.Context(), itick.RegionHK, []string{"700"}); err != nil {
		t.Fatal(err)
	}
	if tok, _ := lab.token("https /moved/depths"); tok != testToken {
		t.Errorf("base https://example.com:443 redirected to https://EXAMPLE.com: token %q", tok)
	}
	if !strings.HasPrefix(c2.BaseURL(), "https://example.com") {
		t.Errorf("BaseURL = %s", c2.BaseURL())
	}
}
