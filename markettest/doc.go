// Package markettest runs an offline stand-in for iTick's market-data
// service, for tests and examples that must not touch the network or spend
// quota, in the spirit of net/http/httptest.
//
// NewServer starts it on 127.0.0.1. It serves every endpoint the itick SDK
// calls (see Paths) with synthetic, deterministic data in the service's own
// wire form, quirks included: whole prices as JSON integers, fractional
// crypto volumes and order counts, placeholder fund and index levels,
// futures levels without a price, crypto quotes without p, ch and chp,
// stock ticks with their trade direction d, news pt as a number, split
// pages and news cursors.
// Besides market data it serves the reference endpoints: the symbol list
// (and /symbol/info, which the SDK does not model, for Client.Get),
// holiday calendars, market status computed from each market's hours in
// its own time zone on the server's clock, company profiles, IPO pages and
// news articles by id.
//
// It enforces what the service enforces: the token header (HTTP 401 with a
// gateway body), the plan's batch size (an E003 envelope error), required
// parameters (an envelope error with code 400), the products that exist
// (an E001 envelope error, see below), the plan's cap on stream
// connections, and, with WithQuota, a per-minute quota over a sliding
// window (HTTP 429 with Retry-After).
// WithTextCodes sends the published errors with their E-number as a string
// in code ({"code":"E002","msg":"auth failed"}), and WithRegions answers
// requests for markets outside the plan with code 0 and data {}, as the
// service is reported to do.
//
// Codes are one product whatever their case, as they are to the service,
// whose stream pushes name products in lower case: AAPL, aapl and the
// stream's aapl$us have one price at one instant.
//
// Tests can make requests fail on demand with Inject, FailNext, AddLatency
// and SetRandomFaults, then look at what arrived with Requests and Stats.
// Server.Client returns an SDK client already pointed at the server.
// OpenEnv is the switch a program makes between the service and the
// simulator: a client for the service when ITICK_TOKEN is set, for a
// simulator it starts otherwise.
//
//	srv := markettest.NewServer(markettest.WithSeed(7),
//		markettest.WithFixedClock(time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC)))
//	defer srv.Close()
//	client, err := srv.Client()
//	...
//	srv.FailNext(2, http.StatusServiceUnavailable) // retried by the client
//	quotes, err := client.Stock.Quotes(ctx, itick.RegionUS, []string{"AAPL"})
//
// The server also serves the service's WebSocket channel at
// /{stock|forex|indices|crypto|future|fund}, so Client.Stream works against
// it as it is: the same token, the connect and auth messages, subscribe
// acknowledgements and refusals, pongs, and pushes of quotes, ticks, books
// and candles that equal what the REST endpoints answer at the same
// instant. DropStreams, SetStreamPongs, SetStreamSilent and
// SetStreamRefuseAuth inject stream faults; StreamStats counts the traffic.
// Streams are not recorded in Requests and do not count toward the quota.
//
// As the service, the stream pushes a product only while its market
// trades: crypto always, forex and futures on weekdays, stocks, funds and
// indices in their market's regular sessions (not in a lunch break, not
// on a weekend or a holiday). A subscription made while the market is
// closed is acknowledged and stays silent until it opens, so a test that
// expects pushes of a stock pins the clock (see below) inside its market's
// hours, or subscribes to a crypto pair. With WithRegions, a subscription
// to a product of a region outside the plan is acknowledged too, counts
// toward the subscription limit, and is never pushed: the service answers
// such a REST request with success and no data, and the stream is taken
// to be as quiet.
//
// # Pin the clock
//
// The simulator answers as of its clock, the real one unless told
// otherwise, and, like the service, pushes nothing for a closed market. A
// test left on the real clock passes or hangs depending on when it runs:
// one that waits for a US quote passes at 15:30 UTC on a Wednesday and
// waits forever at 06:00, on a Saturday or on a holiday; one that counts
// candles gets another count every hour. Pin the clock at an instant the
// test is about:
//
//	// 11:30 on a Wednesday in New York: US stocks trade, Hong Kong's have closed.
//	at := time.Date(2025, 6, 4, 15, 30, 0, 0, time.UTC)
//	srv := markettest.NewServer(markettest.WithFixedClock(at))
//	client, err := srv.Client() // on the same clock: itick.WithClock(srv.Now)
//
// WithFixedClock stops the clock, so every answer is the same on every
// run; NewManualClock gives a clock the test moves (to the next trading
// day, past a quota window); WithClockFrom pins the date and hour and lets
// the seconds pass in real time. Clients from Client and OpenEnv read the
// server's clock, so what the SDK works out from its own now (a range's
// end, WithClosedOnly) agrees with what the simulator serves; a program
// under test should read Client.Now rather than time.Now for the same
// reason. A program run offline through OpenEnv is pinned with
// ITICK_SIM_TIME.
//
// Data comes from a Generator: prices follow a random walk per product
// and stand still while its market is closed, K-lines are consistent,
// aligned to their interval and nested (a day's range is its hours', a
// week's its days'), quotes agree with the latest K-line, books sit around
// the price, and split records fall on trading days.
//
// Stocks split as on the service: each region has a fixed timeline of
// splits (a pure function of the seed, 2000 to 2059; the documentation's
// familiar codes, AAPL or 700, never split), Splits lists those of the
// last year up to now, and a stock's raw prices, books, ticks and candles
// jump at each of its ex-dates: a "4:1" split divides its price by four
// and multiplies its volume by four from the ex-date on (UTC midnight), so
// the ex-date's own candle trades at the new shares. A quote's PrevClose
// on an ex-date is at the new shares, as exchanges publish it. Prices are
// at the generated level on 2025-01-01: a split before then raises the
// prices before it. itick.WithSplitAdjusted undoes the jumps of the listed
// splits.
//
// # Products
//
// Each asset class trades in the regions the service's documentation shows
// for it (Regions): stocks in HK, SH, SZ, US, SG, JP, TW, IN, TH, DE, MX,
// MY, TR, ES, NL, GB, ID, VN and IT; crypto in BA, BT and PB; futures in
// US, HK and CN; funds in US; forex and indices in GB. Any code of its
// market's form exists, made-up ones included (Exists): a stock code is
// letters and digits, with "." or "-" inside, of up to five characters in
// US (a share class aside: "BRK.B"), ten in IN ("&" too: "M&M") and eight
// elsewhere; funds are as US stocks; indices and futures up to eight;
// forex up to six; crypto a base and a quote asset (USDT, USDC, FDUSD,
// BUSD, USD, BTC, ETH, BNB or EUR), sixteen at most. Anything else is
// refused as the service refuses a product it does not know: a region its
// class does not have (stock USA, crypto US) and a single product's
// unknown code are E001 (CodeNotFound, MsgNotFound), a batch leaves an
// unknown code out of its data, and a stream subscription naming either is
// refused with code 0 and the E001 text. So a typo fails in a test as it
// does in production.
//
// # Stream connections
//
// The plan caps the stream connections one token holds at once, over
// every class (Free 1, Base 3, Professional 6, Premium 12; see
// WithStreamMaxConns). As on the service, a connection past the cap is
// accepted and the token's oldest connection is dropped, closed with
// status 1008 and MsgStreamConnLimit: two processes sharing a token past
// the cap evict each other each time one reconnects. StreamStats.Evictions
// counts the drops, so a test can check that a fleet shares its
// connections and evicts nobody.
//
// # Adding an endpoint
//
// Endpoints live in one table in routes.go. A new one is a line there,
// naming its path, asset class, required parameters and envelope msg (an
// endpoint every class serves is one perClass line), and a serve function
// that builds its data from the Generator (adding a Generator method when
// no existing one fits) and returns the SDK's model, whose json.Marshal is
// the service's wire form. A path may hold {name} segments, such as
// "/news/{id}", read with call.pathValue. The token, the quota, the batch
// size (for a codes parameter), faults and records apply to every route
// without more code, and the package's tests ask every route.
package markettest
