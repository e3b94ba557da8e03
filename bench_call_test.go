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
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/d19c4e34/itick"
	"github.com/google/go-cmp/cmp"
)

// callService serves one fixed, realistic 10-code quotes envelope,
// gzipped when the request accepts gzip, and counts what it did. Its
// connState, set as the server's ConnState, counts connections.
type callService struct {
	codes             []string
	plainBody, gzBody []byte
	conns             atomic.Int64 // connections opened
	gzipped           atomic.Int64 // responses sent gzipped
	plain             atomic.Int64 // responses sent uncompressed
}

const callToken = "bench-token"

func newCallService(tb testing.TB) *callService {
	tb.Helper()
	raw := fixture(tb, "bench/quotes_50.json")
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
	return &callService{codes: codes, plainBody: body.Bytes(), gzBody: gz.Bytes()}
}

func (cs *callService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("token") != callToken || r.URL.Path != "/stock/quotes" ||
		r.URL.Query().Get("codes") != strings.Join(cs.codes, ",") || r.URL.Query().Get("region") != "HK" {
		http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	b := cs.plainBody
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		b = cs.gzBody
		cs.gzipped.Add(1)
	} else {
		cs.plain.Add(1)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

func (cs *callService) connState(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		cs.conns.Add(1)
	}
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
	cs := newCallService(b)
	srv := httptest.NewUnstartedServer(cs)
	srv.Config.ConnState = cs.connState
	srv.Start()
	c := newServerClient(b, srv, callToken)
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		start := cs.conns.Load()
		for b.Loop() {
			got, err := c.Stock.Quotes(b.Context(), itick.RegionHK, cs.codes)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(cs.codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(cs.codes))
			}
		}
		b.ReportMetric(float64(cs.conns.Load()-start)/float64(b.N), "conns/op")
	})
	b.Run("baseline", func(b *testing.B) {
		bc := newBaselineCall(srv.URL, cs.codes)
		b.ReportAllocs()
		start := cs.conns.Load()
		for b.Loop() {
			got, err := bc.quotes(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != len(cs.codes) {
				b.Fatalf("got %d quotes, want %d", len(got), len(cs.codes))
			}
		}
		b.ReportMetric(float64(cs.conns.Load()-start)/float64(b.N), "conns/op")
	})
}

// TestCallReusesConnectionAndAcceptsGzip checks what BenchmarkCall relies
// on: repeated calls from one client travel over one connection, the SDK
// asks for gzip without being told and decodes the gzipped body, and the
// SDK and the baseline decode the same values.
func TestCallReusesConnectionAndAcceptsGzip(t *testing.T) {
	t.Parallel()
	const calls = 20
	cs := newCallService(t)
	srv := httptest.NewUnstartedServer(cs)
	srv.Config.ConnState = cs.connState
	srv.Start()
	c := newServerClient(t, srv, callToken)
	var sdk map[string]itick.Quote
	for range calls {
		got, err := c.Stock.Quotes(t.Context(), itick.RegionHK, cs.codes)
		if err != nil {
			t.Fatal(err)
		}
		sdk = got
	}
	if n := cs.conns.Load(); n != 1 {
		t.Errorf("SDK opened %d connections for %d sequential calls, want 1", n, calls)
	}
	if g, p := cs.gzipped.Load(), cs.plain.Load(); g != calls || p != 0 {
		t.Errorf("SDK got %d gzipped and %d plain responses, want %d and 0", g, p, calls)
	}

	bc := newBaselineCall(srv.URL, cs.codes)
	var base map[string]plainQuote
	for range calls {
		got, err := bc.quotes(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		base = got
	}
	if n := cs.conns.Load(); n != 2 {
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
