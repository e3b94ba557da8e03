// Package itick is a typed client for iTick's market-data service, both its
// REST API and its WebSocket stream: order-book depth, quotes, K-line
// candles and ticks for stocks, crypto, forex, futures, funds and indices,
// plus stock splits, IPOs, reference data and news.
//
// A Client validates input before sending anything, splits batch calls into
// chunks the plan allows and runs them concurrently, paces every attempt on
// a rate limiter, retries what is worth retrying, and reports failures as
// errors that match ErrUnauthorized, ErrRateLimited and the other sentinels.
// It is safe for concurrent use. The markettest package runs an offline
// stand-in for the service, for tests and examples.
//
// The [guides] in the repository go further than this overview: endpoints,
// configuration, errors, reliability, streaming, backfills, testing with
// markettest, running a service and a fleet, and metrics.
//
// What depends on the date or the hour reads the client's clock (WithClock,
// time.Now by default; Client.Now reads it): a range's end, WithClosedOnly,
// the trading day of a quote that carries no time, the day of the splits
// WithSplitAdjusted uses. A test pins it, with the
// simulator's: markettest's Server.Client gives its clients the server's
// clock. Retries, pacing, timeouts and a Stream's heartbeat measure real
// elapsed time.
//
// # Batching
//
// The batch calls (Quotes, Depths, Klines, Ticks) take any number of codes.
// Codes are trimmed and de-duplicated, keeping their case; an empty code or
// one with a comma is ErrInvalidArgument and nothing is sent. The codes are
// split into chunks of the plan's batch size (WithPlan, WithBatchSize), and
// up to WithConcurrency chunks are in flight at once. The results come back
// in one map keyed by the trimmed code; a code the service leaves out is
// absent, not an error.
//
// When the codes fit in one chunk, that chunk's error comes back as it is.
// With several chunks, the results that arrived come back with a
// *BatchError naming the codes that did not (FailedCodes), and errors.Is
// and errors.As see through it to each chunk's error. A failure that every
// chunk would meet stops the batch early: a refused token or a plan limit
// sends no further chunk and comes back alone, with no results; a 429
// whose Retry-After is not waited for sends no further chunk, and the
// chunks not sent carry that 429.
//
// # Backfilling
//
// KlineRange and KlinesRange return every candle with from <= Time < to,
// oldest first with no duplicates, however many requests that takes; a to
// after the client's now means now. They page back from to in pages of
// WithPageSize candles, and codes whose next pages end close together share
// a request, so products whose newest candles differ still cost about one
// request per page per chunk. A page of bad data (a code's candles closer
// together than their interval) ends that code's range with an *APIError
// rather than a wrong series: a range is complete, or its code is in the
// error; so does a full page that brings nothing older (the service
// ignored et), rather than pass for the end of the history. A failure
// returns what arrived with a *BatchError naming the codes whose ranges
// are incomplete, and WithResume(have) completes such a result, or brings
// a store up to date, asking only for what is missing at both ends (and
// the newest candle held again, which may have been forming).
// WithClosedOnly, on any kline call, leaves out the candle still forming on
// the client's clock, and WithSplitAdjusted, on any stock kline call,
// adjusts candles for the region's splits. The [backfill guide] has the
// rest: what counts as bad data, what a resume costs, how candles are
// aligned and adjusted.
//
// # Streaming
//
// Client.Stream opens the live feed of one asset class. Subscribe to
// products and channels (ChannelQuote, ChannelTick, ChannelDepth,
// ChannelKline), and read QuoteEvent, TickEvent, DepthEvent and KlineEvent
// values from Events.
//
// The Stream keeps itself connected: it pings, notices a silent or lost
// connection (WithHeartbeat), reconnects with jittered backoff
// (WithReconnectBackoff), authenticates and renews every subscription, and
// reports each outage as a GapEvent once the connection is renewed; pushes
// in the gap are lost, so fetch what is needed over REST. Products are
// spread over as many connections as the per-connection limit needs,
// within the connection cap. The event buffer never blocks the socket
// reader: when the consumer falls behind, the overflow policy (WithBuffer;
// DropOldest by default) drops events and Dropped counts them. Events are
// read in the order they happened, and the policy never drops a
// DisconnectEvent, GapEvent or ErrorEvent: a connection's DisconnectEvent
// comes before any push of its renewed connection.
//
// Products are told apart ignoring case, as the service does: "xauusd$gb"
// is the product subscribed as "XAUUSD$GB", and its events keep the form
// it was first subscribed in. New products go to the first connection with
// room, and to a new connection when every one is full; a Subscribe that
// would pass the connection or product cap subscribes nothing and sends
// nothing. A subscription made while its connection is down is sent when
// the connection is back, unless an Unsubscribe withdraws it first. When
// Subscribe's ctx ends before the request is sent, nothing is subscribed;
// when it ends after, the acknowledgement still decides: the Stream keeps,
// counts and renews what the service accepted, exactly as the service
// holds it.
//
// # Errors
//
// A call's error matches, with errors.Is, one of the sentinels:
// ErrInvalidArgument for input refused before anything is sent (a nil
// context too), ErrUnauthorized for a refused token, ErrRateLimited for a
// spent quota, ErrNotFound for an unknown product, and ErrPlanLimit for
// more than the plan allows. What the service answered is an *APIError
// (errors.As), with the HTTP status, the envelope's code and message, the
// Retry-After it asked for, and bounded evidence of the response with the
// token taken out. A response counts as success only when its status is
// 2xx, its body is a whole envelope whose code is 0 (or 200), and its
// message carries none of the service's error texts; a gateway's body or
// one that does not parse is an error, never an empty success.
//
// Transport errors and HTTP 429, 500, 502, 503 and 504 are retried
// (WithRetries) with jittered exponential backoff (WithBackoff), honouring
// a Retry-After of up to a minute; every attempt waits on the limiter
// first. Cancelling the context stops every wait at once, and the error
// then matches ctx.Err() (context.Canceled or context.DeadlineExceeded)
// and the context's cause, if it has one (context.WithCancelCause,
// WithTimeoutCause). A wait that would pass the deadline (a Retry-After,
// a backoff, the limiter's next slot) is not started: the call ends at
// once with an error matching context.DeadlineExceeded that keeps the
// *APIError of the response that asked for the wait; a spent quota (a
// 429, the limiter) matches ErrRateLimited too. The token never appears
// in an error, a log line or a printed value.
//
// [guides]: https://github.com/d19c4e34/itick/tree/main/docs
// [backfill guide]: https://github.com/d19c4e34/itick/blob/main/docs/backfill.md
package itick
