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
// What depends on the date or the hour reads the client's clock (WithClock,
// time.Now by default; Client.Now reads it): a range's end, WithClosedOnly,
// the trading day of a quote that carries no time. A test pins it, with the
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
// after the client's now means now, and a code with no candle in the range
// is absent from KlinesRange's map.
//
// They ask for pages of WithPageSize candles (DefaultPageSize, the
// service's bound of MaxKlineLimit) ending just before to, then just before
// each code's oldest candle so far, until a page reaches from. Codes whose
// next pages end close together share a request that ends at the latest of
// their ends: a code joins when the candles it already holds between the
// two ends, which come again and are dropped, are at most a tenth of a
// page. So products whose newest candles differ (illiquid or halted ones)
// cost about one request per page per chunk. Requests go out as a batch
// call's chunks do, and each waits on the client's limiter. A service that
// treats et as inclusive or exclusive, or answers with pages that overlap
// or are shorter than asked, gets the same result. A page that brings a
// code nothing older ends its range (its history ran out), so a call never
// loops.
//
// A candle outside [from, to) is ignored. One just before from shows that
// a page reached it; one more than 31 days (or three intervals) before from
// is taken for a stray and does not end the range. A page is refused for a
// code whose candles in it are closer together than their interval allows
// (the interval up to an hour, an hour less for 2h, 4h and 1d, which a
// change of daylight saving time can shorten), or that brings more week or
// month candles than [from, to) can hold (one per calendar week or month it
// touches): the code's range ends with an *APIError naming the code and
// saying why, keeping the pages before. A range is complete, or its code is
// in the error.
//
// A failed request ends its codes' ranges; a 429 that was not waited out,
// or the end of ctx, ends every range. What arrived comes back, each code's
// candles being the newest part of its range, with a *BatchError naming the
// codes whose ranges are incomplete. When the codes fit in one chunk a
// failed request's error comes as it is (a refused code is always in a
// *BatchError), and ErrUnauthorized and ErrPlanLimit always do, with no
// results. WithEnd is ErrInvalidArgument in a range call, as are
// from >= to, a zero from or to, and an unknown interval. WithProgress
// reports each page, and each page is a debug line in the client's log.
//
// WithResume(have) completes a partial result: call again with the same
// from, to and options, and have; to must be a fixed instant, as candles
// after have's newest are not asked for again. A code in have is asked only for
// [from, its oldest candle), in shared requests as above; a code absent
// from have, or with no candle in [from, to), for the whole range; have's
// candles outside [from, to) are dropped, and the result holds the rest of
// them and the new ones. have must hold each code's candles from its oldest
// up to to, as a range call returns them; candles in it that a page would
// be refused for are ErrInvalidArgument. A code whose oldest candle is at
// from, or so close after it that no candle fits between, costs nothing;
// any other costs a request to learn that nothing older is left, so after
// a *BatchError ask for its FailedCodes only and merge:
//
//	got, err := c.Stock.KlinesRange(ctx, itick.RegionUS, codes, itick.OneDay, from, to, itick.WithClosedOnly())
//	var be *itick.BatchError
//	if errors.As(err, &be) { // later, once the quota allows
//		var more map[string][]itick.Kline
//		more, err = c.Stock.KlinesRange(ctx, itick.RegionUS, be.FailedCodes(), itick.OneDay, from, to,
//			itick.WithClosedOnly(), itick.WithResume(got))
//		maps.Copy(got, more)
//	}
//
// WithClosedOnly, on any kline call, leaves out the candle whose interval
// has not ended at the time of the call, on the client's clock, so a store
// keeps only final candles; a range ends before it, and a Kline or Klines
// call asks for candles up to the newest closed one, so it still returns
// limit of them. The service documents t only as the candle's time, which
// the SDK takes as the start of its interval; it does not say at which
// instant a day candle of a market outside UTC starts (midnight UTC or
// midnight in the market's zone), how week and month candles are aligned,
// nor whether prices are adjusted for splits, and it has no parameter for
// adjustment: compare candles across the ExDate of a Stock.Splits record
// and adjust by its Ratio where needed. The markettest simulator starts
// candles at multiples of their Duration since the Unix epoch (a day at
// 00:00 UTC, a week on a Thursday, a month every 30 days) and adjusts
// nothing. So the SDK assumes no alignment: a week candle has closed 7
// days after it starts and a month candle 31 days after, the longest a
// calendar month can be.
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
// DropOldest by default) drops events and Dropped counts them.
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
package itick
