package itick

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/stream"
)

// The names below open internals to the external tests (package
// itick_test), which see them as itick.X.

// Decode runs a response held in blocks through the decoder every call
// uses, with read as the data's reader.
func Decode[T any](path string, status int, header http.Header, blocks [][]byte, red *redact.Redactor,
	read codec.Reader[T]) (T, error) {
	return decode(path, status, header, blocks, red, read)
}

// The readers of the batch answers: quotes, depth books and candles keyed
// by code.
var (
	QuotesReader = quotesReader.Read
	BooksReader  = booksReader.Read
	SeriesReader = seriesReader.Read
)

// PlanLimiter is the limiter a client of plan p paces its calls with
// unless told otherwise.
func PlanLimiter(p Plan) Limiter { return p.limiter() }

// StreamSubscriptions is what s holds as subscribed: each product's
// acknowledged channels.
func StreamSubscriptions(s *Stream) map[string][]string { return s.e.Subscriptions() }

// StreamHolds reports whether s holds sym, acknowledged or still waiting
// for its acknowledgement.
func StreamHolds(s *Stream, sym string) bool { return s.e.Holds(sym) }

// StreamURL is the address a Stream of c, opened with opts, dials, before
// the asset class's path is added.
func StreamURL(c *Client, opts ...StreamOption) (url.URL, error) {
	set := streamSettings{url: streamURL(c.baseURL)}
	for _, o := range opts {
		if err := o(&set); err != nil {
			return url.URL{}, err
		}
	}
	return *set.url, nil
}

// ReplayFrames are the pushes of the replayed stream the decoder tests
// and the stream benchmarks read, over ReplaySymbols products.
var ReplayFrames = replayFrames

// ReplaySymbols is how many products ReplayFrames carry.
const ReplaySymbols = replaySymbols

// RefDecodeResponse decodes a response into out the way encoding/json
// does: the oracle the decoder is held to.
var RefDecodeResponse = refDecodeResponse

// BitsEqual compares float64s bit for bit, and reads klineData.
var BitsEqual = bitsEqual

// ConfirmClient marks c as having had a success from the service, so that
// its batch calls fan out from their first chunk, as they do once one call
// has succeeded (behaviour 16): for tests of the fan-out itself.
func ConfirmClient(c *Client) { c.confirmed.Store(true) }

// HandshakeTransport is the transport a stream's handshake dials through
// for a client whose transport is base.
var HandshakeTransport = handshakeTransport

// PrevCloses are WithPrevClose's books over a client's stock market, for
// tests that hand them quotes one by one. Every product added counts as
// held.
type PrevCloses struct {
	p      *prevCloses
	cancel context.CancelFunc
	done   chan struct{}
}

// NewPrevCloses starts the books, and their snapshots, over c, with waits
// between tries from shortest to longest.
func NewPrevCloses(c *Client, report func(error), shortest, longest time.Duration) *PrevCloses {
	ctx, cancel := context.WithCancel(context.Background())
	p := newPrevCloses(market{c, "stock"}, report, func(string) bool { return true })
	p.retry = [2]time.Duration{shortest, longest}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx)
	}()
	return &PrevCloses{p: p, cancel: cancel, done: done}
}

// Add takes on symbols, as a subscription the service acknowledged does.
func (p *PrevCloses) Add(symbols ...string) {
	var syms []stream.Symbol
	for _, raw := range symbols {
		sym, err := stream.ParseSymbol(raw)
		if err != nil {
			panic(err)
		}
		syms = append(syms, sym)
	}
	p.p.add(syms)
}

// Fill fills q as a push of symbol is filled.
func (p *PrevCloses) Fill(symbol string, q *Quote) {
	sym, err := stream.ParseSymbol(symbol)
	if err != nil {
		panic(err)
	}
	p.p.fill(sym, q)
}

// Close stops the snapshots and waits for the one in flight.
func (p *PrevCloses) Close() {
	p.cancel()
	<-p.done
}

// PrevCloseRetry sets the shortest and longest wait between the snapshots
// of a product of a Stream with WithPrevClose.
func PrevCloseRetry(shortest, longest time.Duration) StreamOption {
	return func(s *streamSettings) error {
		s.prevCloseRetry = [2]time.Duration{shortest, longest}
		return nil
	}
}

// Needs reports whether symbol's book waits for a snapshot.
func (p *PrevCloses) Needs(symbol string) bool {
	sym, err := stream.ParseSymbol(symbol)
	if err != nil {
		panic(err)
	}
	p.p.mu.RLock()
	defer p.p.mu.RUnlock()
	b := p.p.books[upperSymbol(sym)]
	return b != nil && b.needs()
}
