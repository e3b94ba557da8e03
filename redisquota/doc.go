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
//	...
//	client, err := itick.NewClient(token, itick.WithPlan(itick.PlanBase), itick.WithLimiter(lim))
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
// oldest call leaves. Only the Redis server's clock decides, so clocks that
// drift between machines do not matter. A caller that must wait sleeps
// that long, honouring its context, and asks again; nothing polls. The key
// expires one window after the last call it recorded, so nothing stays in
// Redis once the fleet stops. When Redis is reachable, a Wait that is not
// held back costs one round trip (EVALSHA; the script is sent once per
// server with EVAL when the server does not know it yet).
//
// # Contexts and errors
//
// A Wait that ends with its context takes nothing from the quota: a call is
// recorded only by the script, never while sleeping, and one the script
// recorded for a context that ended meanwhile is removed again. When the
// next slot lies past the context's deadline, Wait returns at once with an
// error wrapping context.DeadlineExceeded.
//
// go-redis applies a context's deadline to its network reads and writes
// only when the client's options set ContextTimeoutEnabled; set it so that a
// Wait against a Redis that hangs ends with its context rather than after
// the client's ReadTimeout.
//
// When Redis fails, Wait fails closed: it returns an error wrapping the one
// from go-redis (errors.Is and errors.As find it, *net.OpError or
// redis.Error included), never a context error unless the context was the
// reason. WithFallback chooses to go on instead, under a local limiter at a
// stated share of the quota, logging when it switches and when Redis is
// back.
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
// Every process sharing a quota must use the same key, perMinute and
// window. Keys are cheap: use one per iTick token.
package redisquota
