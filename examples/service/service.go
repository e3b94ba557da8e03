package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/d19c4e34/itick"
)

// Where a served quote came from.
const (
	sourceStream = "stream"
	sourceREST   = "rest"
)

// entry is the latest quote known of one product.
type entry struct {
	quote  itick.Quote
	source string    // sourceStream or sourceREST
	at     time.Time // when it arrived
}

// service holds one Stream per asset class and the latest quote of each
// product.
type service struct {
	client   *itick.Client
	cfg      config
	log      *slog.Logger
	products map[string]product // by key
	streams  map[itick.AssetType]*itick.Stream
	wg       sync.WaitGroup // the consumers of the streams' events

	mu     sync.Mutex
	latest map[string]entry // by key
	down   map[string]bool  // by key: from a DisconnectEvent to its GapEvent
}

// start opens a Stream per asset class of cfg's products and subscribes
// them to quotes. ctx bounds the start only: the Streams outlive it until
// close, so that requests in flight when a SIGTERM arrives still get
// streamed quotes while the HTTP server drains.
func start(ctx context.Context, c *itick.Client, cfg config, log *slog.Logger) (*service, error) {
	s := &service{client: c, cfg: cfg, log: log, products: make(map[string]product),
		streams: make(map[itick.AssetType]*itick.Stream), latest: make(map[string]entry), down: make(map[string]bool)}
	symbols := make(map[itick.AssetType][]string)
	for _, p := range cfg.products {
		s.products[key(p.symbol)] = p
		symbols[p.class] = append(symbols[p.class], p.symbol)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for class, syms := range symbols {
		// Stock pushes carry no previous close: WithPrevClose fills it from
		// a REST snapshot. Crypto quotes have none to fill; a crypto pair
		// pushes all the time, so there silence means a stuck socket.
		opts := []itick.StreamOption{itick.WithPrevClose()}
		if class == itick.AssetCrypto {
			opts = nil
			if cfg.staleAfter > 0 {
				// The watchdog's period is at least the ping interval's.
				opts = append(opts, itick.WithStaleAfter(cfg.staleAfter),
					itick.WithHeartbeat(min(cfg.staleAfter, itick.DefaultPingInterval), itick.DefaultPongTimeout))
			}
		}
		st, err := c.Stream(context.WithoutCancel(ctx), class, opts...)
		if err == nil {
			s.streams[class] = st
			err = st.Subscribe(ctx, syms, itick.ChannelQuote)
		}
		if err != nil {
			s.close()
			return nil, fmt.Errorf("%s stream: %w", class, err)
		}
		s.wg.Add(1)
		go s.consume(class, st)
	}
	return s, nil
}

// close ends the streams, waits for their consumers, then closes the
// client's idle connections and the goroutines serving them.
func (s *service) close() {
	for _, st := range s.streams {
		st.Close()
	}
	s.wg.Wait()
	s.client.CloseIdleConnections()
}

// consume keeps the latest quotes of one stream, and which of its
// products have no live connection.
func (s *service) consume(class itick.AssetType, st *itick.Stream) {
	defer s.wg.Done()
	for ev := range st.Events() {
		switch ev := ev.(type) {
		case itick.QuoteEvent:
			s.mu.Lock()
			s.latest[key(ev.Symbol())] = entry{ev.Quote, sourceStream, time.Now()}
			s.mu.Unlock()
		case itick.DisconnectEvent:
			s.log.Warn("stream connection lost: serving its products from REST",
				"class", class, "conn", ev.Conn, "products", len(ev.Symbols), "reason", ev.Reason)
			s.setDown(ev.Symbols, true)
		case itick.GapEvent:
			s.log.Info("stream connection renewed", "class", class, "conn", ev.Conn,
				"down_for", ev.To.Sub(ev.From).Round(time.Millisecond), "products", len(ev.Symbols))
			s.setDown(ev.Symbols, false)
		case itick.ErrorEvent:
			s.log.Warn("stream", "class", class, "conn", ev.Conn, "err", ev.Err)
		}
	}
	if err := st.Err(); err != nil { // a refused token, say: serve from REST from now on
		s.log.Error("stream ended", "class", class, "err", err)
		var syms []string
		for _, p := range s.cfg.products {
			if p.class == class {
				syms = append(syms, p.symbol)
			}
		}
		s.setDown(syms, true)
	}
}

// setDown records whether the connection of symbols is down. A lost
// connection also forgets their streamed quotes: pushes in the gap are
// lost, so the last one before it is not the latest, and REST answers
// until the renewed connection pushes again.
func (s *service) setDown(symbols []string, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sym := range symbols {
		k := key(sym)
		if !down {
			delete(s.down, k)
			continue
		}
		s.down[k] = true
		if e, ok := s.latest[k]; ok && e.source == sourceStream {
			delete(s.latest, k)
		}
	}
}

// quoteJSON is one served quote. PrevClose, Change and ChangePercent are
// absent when unknown, as for crypto pairs.
type quoteJSON struct {
	Symbol        string    `json:"symbol"`
	Source        string    `json:"source"`
	Last          float64   `json:"last"`
	Open          float64   `json:"open"`
	High          float64   `json:"high"`
	Low           float64   `json:"low"`
	PrevClose     *float64  `json:"prev_close,omitempty"`
	Change        *float64  `json:"change,omitempty"`
	ChangePercent *float64  `json:"change_percent,omitempty"`
	Volume        float64   `json:"volume"`
	Turnover      float64   `json:"turnover"`
	Time          time.Time `json:"time"`
}

// quotesJSON is the answer of GET /quotes: the quotes in the order asked,
// and the products the REST fallback returned nothing for, which the
// service does for a market outside the account's plan.
type quotesJSON struct {
	Quotes  []quoteJSON `json:"quotes"`
	Missing []string    `json:"missing,omitempty"`
}

func newQuoteJSON(symbol string, e entry) quoteJSON {
	q := e.quote
	out := quoteJSON{Symbol: symbol, Source: e.source, Last: q.Last, Open: q.Open, High: q.High, Low: q.Low,
		Volume: q.Volume, Turnover: q.Turnover, Time: q.Time}
	if q.PrevClose != 0 {
		out.PrevClose, out.Change, out.ChangePercent = &q.PrevClose, &q.Change, &q.ChangePercent
	}
	return out
}

// handleQuotes serves GET /quotes?codes=700$HK,BTCUSDT$BA.
func (s *service) handleQuotes(w http.ResponseWriter, r *http.Request) {
	prods, err := s.parseCodes(r.URL.Query()["codes"])
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.timeout)
	defer cancel()
	got, missing, err := s.quotes(ctx, prods)
	if err != nil {
		status, retryAfter := statusOf(err)
		if retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
		}
		s.log.Warn("quotes", "status", status, "err", err)
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	out := quotesJSON{Quotes: []quoteJSON{}, Missing: missing}
	for _, p := range prods {
		if e, ok := got[key(p.symbol)]; ok {
			out.Quotes = append(out.Quotes, newQuoteJSON(p.symbol, e))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// parseCodes returns the products asked for, each once, in order; none
// asked for is every product. A product the service does not stream is bad
// input: the REST fallback is for the configured ones only, so a caller
// cannot spend the quota on anything.
func (s *service) parseCodes(values []string) ([]product, error) {
	if len(values) == 0 {
		return s.cfg.products, nil
	}
	var out []product
	seen := make(map[string]bool)
	for _, v := range values {
		for _, sym := range strings.Split(v, ",") {
			sym = strings.TrimSpace(sym)
			p, ok := s.products[key(sym)]
			switch {
			case sym == "":
				return nil, errors.New("codes: an empty code; want code$REGION, such as 700$HK, separated by commas")
			case !ok:
				return nil, fmt.Errorf("codes: %q is not a product this service streams", sym)
			case !seen[key(sym)]:
				seen[key(sym)] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// quotes returns the latest quote of each product, by key: streamed when
// its connection is up and has pushed, else a REST quote fetched within
// the TTL, else one fetched now, with one batch call per class and region.
func (s *service) quotes(ctx context.Context, prods []product) (map[string]entry, []string, error) {
	got := make(map[string]entry, len(prods))
	type group struct {
		class  itick.AssetType
		region itick.Region
	}
	var order []group
	need := make(map[group][]product)
	now := time.Now()
	s.mu.Lock()
	for _, p := range prods {
		e, ok := s.latest[key(p.symbol)]
		if ok && (e.source == sourceStream && !s.down[key(p.symbol)] || e.source == sourceREST && now.Sub(e.at) < s.cfg.restTTL) {
			got[key(p.symbol)] = e
			continue
		}
		g := group{p.class, p.region}
		if need[g] == nil {
			order = append(order, g)
		}
		need[g] = append(need[g], p)
	}
	s.mu.Unlock()

	var missing []string
	for _, g := range order {
		codes := make([]string, len(need[g]))
		symbols := make(map[string]string, len(codes))
		for i, p := range need[g] {
			codes[i], symbols[p.code] = p.code, p.symbol
		}
		fetch := s.client.Stock.Quotes
		if g.class == itick.AssetCrypto {
			fetch = s.client.Crypto.Quotes
		}
		// On a *BatchError, quotes holds the chunks that arrived: they are
		// kept for the TTL, so a retry after the error asks only for the
		// rest.
		quotes, err := fetch(ctx, g.region, codes)
		s.mu.Lock()
		for _, p := range need[g] {
			q, ok := quotes[p.code]
			if !ok {
				continue
			}
			e := entry{q, sourceREST, time.Now()}
			got[key(p.symbol)] = e
			// A push that arrived meanwhile is newer: keep it.
			if cur, ok := s.latest[key(p.symbol)]; !ok || cur.source != sourceStream {
				s.latest[key(p.symbol)] = e
			}
		}
		s.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
		for _, code := range itick.MissingCodes(codes, quotes) {
			missing = append(missing, symbols[code])
		}
	}
	return got, missing, nil
}

// statusOf maps a REST fallback's error to the HTTP status to answer with,
// and for a 429 the Retry-After the service asked for, if it did. A spent
// quota is tested first: when waiting for it would pass the deadline, the
// call ends at once with an error matching ErrRateLimited and
// context.DeadlineExceeded both, and the caller should come back later
// rather than hear of a timeout.
func statusOf(err error) (int, time.Duration) {
	switch {
	case errors.Is(err, itick.ErrRateLimited):
		// The service's Retry-After, or the wait the client's own limiter
		// refused; 0 when neither says.
		retryAfter, _ := itick.RetryAfter(err)
		return http.StatusTooManyRequests, retryAfter
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, 0
	case errors.Is(err, itick.ErrUnauthorized):
		// The service's token is refused: no caller can fix that, and
		// /healthz reports the stream down until an operator does.
		return http.StatusServiceUnavailable, 0
	case errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, 0 // the caller left, or the service is stopping
	}
	return http.StatusBadGateway, 0
}

// streamHealth is one stream in /healthz: its counters (conns, down,
// dropped, ...), its products without a live connection, and why it ended.
type streamHealth struct {
	itick.StreamStats
	ProductsDown int    `json:"products_down"`
	Error        string `json:"error,omitempty"`
}

// healthJSON is the answer of /healthz. Status is "ok"; "degraded" while a
// connection is down and its products come from REST; "down", with 503,
// once a stream has ended (a refused token, say).
type healthJSON struct {
	Status  string                           `json:"status"`
	Streams map[itick.AssetType]streamHealth `json:"streams"`
	Client  itick.Stats                      `json:"client"`
}

// handleHealth serves GET /healthz.
func (s *service) handleHealth(w http.ResponseWriter, _ *http.Request) {
	out := healthJSON{Status: "ok", Streams: make(map[itick.AssetType]streamHealth), Client: s.client.Stats()}
	status := http.StatusOK
	s.mu.Lock()
	down := make(map[itick.AssetType]int)
	for k := range s.down {
		down[s.products[k].class]++
	}
	s.mu.Unlock()
	for class, st := range s.streams {
		h := streamHealth{StreamStats: st.Stats(), ProductsDown: down[class]}
		select {
		case <-st.Done():
			h.Error = "ended"
			if err := st.Err(); err != nil {
				h.Error = err.Error()
			}
			out.Status, status = "down", http.StatusServiceUnavailable
		default:
			if (h.Down > 0 || h.ProductsDown > 0) && out.Status == "ok" {
				out.Status = "degraded"
			}
		}
		out.Streams[class] = h
	}
	writeJSON(w, status, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) // the caller may have gone; nothing to do about it
}
