// Package redisquota paces every process of a fleet to one iTick quota,
// through the Redis the fleet already runs.
//
// The quota is per token, so ten bots each with its own client-side limiter
// let ten times the quota through, and the service answers 429 to all of
// them. A Limiter from New satisfies itick.Limiter and counts calls in one
// Redis key shared by every process that names it:
//
//	rdb := redis.NewClient(&redis.Options{Addr: "10.0.0.5:6379", ContextTimeoutEnabled: true})
//	lim, err := redisquota.New(rdb, "itick:quota:{account-1}", redisquota.PerMinute(itick.PlanBase))
//	if err != nil {
//		log.Fatal(err)
//	}
//	client, err := itick.NewClient(os.Getenv("ITICK_TOKEN"), itick.WithPlan(itick.PlanBase), itick.WithLimiter(lim))
//	if err != nil {
//		log.Fatal(err)
//	}
//	quotes, err := client.Stock.Quotes(context.Background(), itick.RegionHK, []string{"700", "9988"})
//	if err != nil {
//		log.Fatal(err) // a Redis that failed too: the limiter fails closed
//	}
//	fmt.Println(quotes["700"].Last)
//
// Use one key per token, and the same perMinute and window in every
// process on it. PerMinute gives the plans' documented quotas (5, 120, 600
// and 1200 calls a minute); for itick.PlanEnterprise it gives 0, which New
// refuses: pass the contract's figure.
//
// The package is a module of its own, so that programs using the SDK
// without it have no Redis client in their module graph:
//
//	go get github.com/d19c4e34/itick/redisquota
//
// The repository's examples/sharedquota runs four workers, each with its
// own client and Limiter, on one key against the simulator or, with
// ITICK_TOKEN set, the service; it uses REDIS_URL when set and otherwise
// starts redis-server from PATH.
//
// # Semantics
//
// The limit is the one the SDK's own plan limiter applies, fleet-wide: the
// whole quota may go at once when the window is empty, and no window ever
// holds more than perMinute calls, counted across every process on the
// key. The window is a minute plus the SDK's margin (DefaultWindow) unless
// WithWindow sets it.
//
// Each Wait runs one Lua script, atomically on the Redis server: it reads
// the server's clock (TIME), drops the calls that have left the window from
// a sorted set, and either records this call or answers how long until the
// oldest call leaves. A caller that must wait sleeps that long, honouring
// its context, and asks again; nothing polls. The key expires one window
// after the last call it recorded, so nothing stays in Redis once the fleet
// stops. When Redis is reachable, a Wait that is not held back costs one
// round trip (EVALSHA; the script is sent once per server with EVAL when
// the server does not know it yet).
//
// # Clocks
//
// Only the Redis server's clock decides, so clocks that drift between the
// fleet's machines do not matter. When the server's clock steps back (an
// NTP step, or a failover onto a replica whose clock is behind), calls
// recorded in its future count as made at its present: they hold the quota
// for one window, not for the size of the step. When it steps forward, the
// calls of the last window look older than they are and leave early, so up
// to a quota's worth more may go within the service's own window.
//
// # One window per key
//
// A key counts calls in one window: the first Limiter to write it marks it
// with its window, and a Wait by a Limiter with another window fails with
// an error matching ErrWindowConflict, taking nothing and leaving
// WithFallback out of it, until the key expires a window after its last
// call. Two windows on one key would each drop calls the other still
// counts. The processes on a key should use the same perMinute too: each
// holds the shared count to its own, so the largest lets that many through.
//
// # Contexts and errors
//
// Wait returns within moments of its context ending, whatever Redis does,
// with the context's error: it never waits on Redis past that, nor past
// the Limiter's timeout (WithRedisTimeout, DefaultRedisTimeout unless set).
// A request it stops waiting for goes on in the background. When the next
// slot lies past the context's deadline, Wait returns at once with an
// error wrapping context.DeadlineExceeded.
//
// A Wait that ends with its context, or fails, takes nothing from the
// quota. A call is recorded only by the script, never while sleeping. One
// the script recorded for a Wait that has ended is given back as soon as
// the answer arrives. One whose answer never came (none within the
// timeout, or the connection broke on the way), which Redis may have
// recorded or may still record, is given back with the Limiter's next
// request to Redis, which also marks it so that a script for it that Redis
// runs later records nothing; until that request it counts as a call
// made. A Limiter keeps up to 256 calls to give back.
//
// When Redis fails or does not answer within the timeout, Wait fails
// closed: it returns an error wrapping the one from go-redis (errors.Is and
// errors.As find it, *net.OpError or redis.Error included) or
// ErrRedisTimeout, never a context error unless the context was the
// reason. go-redis dials a down server again until the request's deadline
// and then reports only the deadline; New's hook on the client notes each
// dial, so ErrRedisTimeout then wraps the refused dial too. WithFallback
// chooses to go on instead, under a local limiter at a stated share of the
// quota (1/n for a fleet of n processes), logging when it switches (Warn)
// and when Redis is back (Info) through WithLogger, and trying Redis again
// about once a second. A Limiter with a fallback waits for Redis at most half of the time
// left before a caller's deadline (but at least 50 ms, and at most the
// timeout) before it counts Redis as failing, so that the fallback can
// still grant the call in time.
//
// # What runs in the background
//
// A request a Wait stopped waiting for ends when Redis answers, when the
// client is closed, or when its deadline passes: the Limiter's timeout,
// counted from when it was sent. Giving back a call it recorded is one more
// request with the same bound. go-redis applies a deadline to its reads
// and writes only when the client's options set ContextTimeoutEnabled;
// otherwise its ReadTimeout and WriteTimeout (3 s each by default) bound
// them instead, and a ReadTimeout of -1 (none) leaves them to Redis's
// answer or the client's Close. With ContextTimeoutEnabled set, nothing a
// Limiter starts lives longer than about twice its timeout, so a
// goroutine-leak check (such as go.uber.org/goleak) in a test finds nothing
// of the Limiter's once Redis answers, the client is closed, or that bound
// has passed; go-redis's own goroutines end with the client's Close. A
// Limiter holds nothing else and has no Close of its own.
//
// # Redis Cluster and Sentinel
//
// New takes any redis.UniversalClient: a single node, a Sentinel failover
// client, a Cluster or a Ring. The state is one key, so on a Cluster it
// lives on one slot and the script never crosses slots. To keep the quota's
// key on the same slot as other keys a program runs scripts or
// transactions over, put the shared part in a hash tag: only the part
// between the first "{" and the next "}" is hashed, so "itick:{acct-1}:quota"
// and "itick:{acct-1}:jobs" share a slot.
//
// Keys are cheap: use one per iTick token.
package redisquota
