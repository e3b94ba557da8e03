package itick_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"
)

// callServer serves one fixed, realistic 10-code quotes envelope, gzipped
// when the request accepts gzip, and counts what it did.
type callServer struct {
	*httptest.Server
	codes   []string
	conns   atomic.Int64 // connections opened
	gzipped atomic.Int64 // responses sent gzipped
	plain   atomic.Int64 // responses sent uncompressed
}

const callToken = "bench-token"

func newCallServer(tb testing.TB) *callServer {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "bench", "quotes_50.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		tb.Fatal(err)
	}
	codes := slices.Sorted(maps.Keys(env.Data))[:10]
	var body bytes.Buffer
	body.WriteString(`{"code":0,"msg":null,"data":{`)
	for i, c := range codes {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, "%q:%s", c, env.Data[c])
	}
	body.WriteString(`}}`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body.Bytes())
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	plainBody, gzBody := body.Bytes(), gz.Bytes()

	cs := &callServer{codes: codes}
	want := strings.Join(codes, ",")
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("token") != callToken || r.URL.Path != "/stock/quotes" ||
			r.URL.Query().Get("codes") != want || r.URL.Query().Get("region") != "HK" {
			http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		b := plainBody
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			b = gzBody
			cs.gzipped.Add(1)
		} else {
			cs.plain.Add(1)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}))
	cs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cs.conns.Add(1)
		}
	}
	cs.Start()
	tb.Cleanup(cs.Close)
	return cs
}

// newCallClient is an SDK client with its own default transport, unpaced.
func newCallClient(tb testing.TB, baseURL string) *itick.Client {
	tb.Helper()
	c, err := itick.NewClient(callToken, itick.WithBaseURL(baseURL), itick.WithRateLimit(rate.Inf, 0),
		itick.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// baselineCall is the hand-written client: net/http with a transport of
// its own and encoding/json into plain structs of the same fields.
type baselineCall struct {
	hc  *http.Client
	url string
}

func newBaselineCall(baseURL string, codes []string) *baselineCall {
	q := url.Values{"region": {"HK"}, "codes": {strings.Join(codes, ",")}}
	return &baselineCall{
		hc:  &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 30 * time.Second},
		url: baseURL + "/stock/quotes?" + q.Encode(),
	}
}

func (bc *baselineCall) quotes(ctx context.Context) (map[string]plainQuote, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, bc.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("token", callToken)
	resp, err := bc.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var env plainEnvelope[map[string]plainQuote]
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	if env.Code != 0 {
		return nil, fmt.Errorf("code %d", env.Code)
	}
	return env.Data, nil
}

// BenchmarkCall is one 10-code quotes call over loopback: the SDK against a
// hand-written net/http + encoding/json client. The server is the same; the
// clients share no transport. conns/op is new connections per call.
func BenchmarkCall(b *testing.B) {
	srv := newCallServer(b)
	b.Run("sdk", func(b *testing.B) {
		c := newCallClient(b, srv.URL)
		b.ReportAllocs()
		start := srv.conns.Load()
		for b.Loop() {
			got, err := c.Stock.Quotes(b.Context(), itick.RegionHK, srv.codes)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(srv.codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(srv.codes))
			}
		}
		b.ReportMetric(float64(srv.conns.Load()-start)/float64(b.N), "conns/op")
	})
	b.Run("baseline", func(b *testing.B) {
		bc := newBaselineCall(srv.URL, srv.codes)
		b.ReportAllocs()
		start := srv.conns.Load()
		for b.Loop() {
			got, err := bc.quotes(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(srv.codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(srv.codes))
			}
		}
		b.ReportMetric(float64(srv.conns.Load()-start)/float64(b.N), "conns/op")
	})
}

// TestCallReusesConnectionAndAcceptsGzip checks what BenchmarkCall relies
// on: repeated calls from one client travel over one connection, the SDK
// asks for gzip without being told and decodes the gzipped body, and the
// SDK and the baseline decode the same values.
func TestCallReusesConnectionAndAcceptsGzip(t *testing.T) {
	t.Parallel()
	const calls = 20
	srv := newCallServer(t)
	c := newCallClient(t, srv.URL)
	var sdk map[string]itick.Quote
	for range calls {
		got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, srv.codes)
		if err != nil {
			t.Fatal(err)
		}
		sdk = got
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("SDK opened %d connections for %d sequential calls, want 1", n, calls)
	}
	if g, p := srv.gzipped.Load(), srv.plain.Load(); g != calls || p != 0 {
		t.Errorf("SDK got %d gzipped and %d plain responses, want %d and 0", g, p, calls)
	}

	bc := newBaselineCall(srv.URL, srv.codes)
	var base map[string]plainQuote
	for range calls {
		got, err := bc.quotes(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		base = got
	}
	if n := srv.conns.Load(); n != 2 {
		t.Errorf("after the baseline's calls the server saw %d connections, want 2 (one per client)", n)
	}
	want := make(map[string]itick.Quote, len(base))
	for k, q := range base {
		want[k] = itick.Quote{Symbol: q.S, Last: q.Ld, Open: q.O, PrevClose: q.P, High: q.H, Low: q.L,
			Time: time.UnixMilli(q.T).UTC(), Volume: q.V, Turnover: q.Tu, Status: int(q.TS),
			Change: q.Ch, ChangePercent: q.Chp}
	}
	if diff := cmp.Diff(want, sdk); diff != "" {
		t.Errorf("SDK and baseline disagree (-baseline +sdk):\n%s", diff)
	}
	if len(sdk) != 10 {
		t.Errorf("got %d quotes, want 10", len(sdk))
	}
}
