package redisquota

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
)

// script keeps the quota in the sorted set KEYS[1], on the Redis server's
// clock, in microseconds, which stay exact in Lua's doubles (2^53 µs is
// 285 years). The set holds three kinds of member, apart by score:
//
//   - a recorded call: its member, scored when the script recorded it (> 0);
//   - the window the key counts in: "window:<µs>", scored 0, so that a
//     Limiter with another window, which would drop calls this one still
//     counts, is refused rather than let through;
//   - a call given back: its member, scored minus when it was given back
//     (< 0). It counts for nothing, and it stops a script for that call
//     that reaches the server late, after its caller gave up, from
//     recording it. It is dropped a window later.
//
// ARGV: the window (µs), calls per window, the member of the call to take
// or "" to take none, then the members of calls to give back. It answers
// {0, 0} when the call is recorded (or was, by an earlier run), {1, µs}
// when the window is full for that long (at least 1, at most the window),
// {2, 0} when the call was given back already, and {3, µs} when the key
// counts in another window.
var script = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local member = ARGV[3]
local ttl = math.ceil(window / 1000)
-- Give back: a recorded call stops counting; one not recorded yet never will be.
if #ARGV > 3 then
  for i = 4, #ARGV do
    redis.call('ZADD', key, -now, ARGV[i])
  end
  if redis.call('PTTL', key) < ttl then
    redis.call('PEXPIRE', key, ttl)
  end
end
if member == '' then
  return {0, 0}
end
-- The key counts in one window.
local mark = 'window:' .. ARGV[1]
local marks = redis.call('ZRANGEBYSCORE', key, 0, 0, 'LIMIT', 0, 1)
if marks[1] == nil then
  redis.call('ZADD', key, 0, mark)
elseif marks[1] ~= mark then
  return {3, tonumber(string.sub(marks[1], 8)) or 0}
end
-- Calls ahead of the clock (it stepped back, or a failover reached a
-- server whose clock is behind) count as made now.
local ahead = redis.call('ZRANGEBYSCORE', key, now + 1, '+inf')
for _, m in ipairs(ahead) do
  redis.call('ZADD', key, now, m)
end
-- Drop the calls that left the window, and the give-backs a window old.
redis.call('ZREMRANGEBYSCORE', key, 1, now - window)
redis.call('ZREMRANGEBYSCORE', key, -(now - window), -1)
-- A call given back, or taken by an earlier run (go-redis may send it again).
local score = redis.call('ZSCORE', key, member)
if score then
  if tonumber(score) < 0 then
    return {2, 0}
  end
  return {0, 0}
end
local count = redis.call('ZCOUNT', key, 1, '+inf')
if count < limit then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, ttl)
  return {0, 0}
end
local oldest = redis.call('ZRANGEBYSCORE', key, 1, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
local wait = tonumber(oldest[2]) + window - now
if wait < 1 then wait = 1 end
if wait > window then wait = window end
return {1, wait}
`)

// What the script answers.
const (
	granted     = 0
	full        = 1
	givenBack   = 2
	otherWindow = 3
)

// reply is the script's answer, or the error that came instead.
type reply struct {
	code, value int64
	err         error
}

// run sends the script once: to take member's call ("" takes none) and to
// give back the calls in back.
func (l *Limiter) run(ctx context.Context, member string, back []string) reply {
	args := make([]any, 0, 3+len(back))
	args = append(args, l.window.Microseconds(), l.perMinute, member)
	for _, m := range back {
		args = append(args, m)
	}
	vals, err := script.Run(ctx, l.rdb, []string{l.key}, args...).Int64Slice()
	if err != nil {
		return reply{err: err}
	}
	if len(vals) != 2 {
		return reply{err: errors.New("unexpected reply from the quota script")}
	}
	return reply{code: vals[0], value: vals[1]}
}

// unsent reports an error that says the script did not run on the
// server: the connection could not be made, the client is closed, or the
// server answered with an error, which the script meets before it writes
// anything. (With go-redis's retries on, an earlier try may have reached
// the server before the connection was lost; a call it recorded then
// counts until it leaves the window.)
func unsent(err error) bool {
	var opErr *net.OpError
	var rerr redis.Error
	return errors.As(err, &rerr) || (errors.As(err, &opErr) && opErr.Op == "dial") ||
		errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout)
}
