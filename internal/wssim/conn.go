package wssim

import (
	"context"
	"encoding/json"
	"github.com/d19c4e34/itick/internal/wait"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// symbol is a product as subscribed: code$REGION, or code$EXCHANGE$REGION
// for a stock of a secondary exchange.
type symbol struct{ code, exchange, region string }

// key is the product s names, whatever its case: AAPL$US and aapl$us are
// one product, as they are to the service.
func (s symbol) key() symbol {
	return symbol{strings.ToUpper(s.code), strings.ToUpper(s.exchange), strings.ToUpper(s.region)}
}

func (s symbol) String() string {
	if s.exchange != "" {
		return s.code + "$" + s.exchange + "$" + s.region
	}
	return s.code + "$" + s.region
}

// conn is one client connection.
type conn struct {
	srv   *Server
	class string
	token string // set once authenticated; the server's mu guards it

	// seq serialises what a client must see in order: a subscription is
	// registered and acknowledged under it, and a product's pushes are
	// read and written under it, so no push overtakes its acknowledgement.
	seq sync.Mutex

	mu    sync.Mutex
	ws    *websocket.Conn                // set once after the upgrade; mu guards it for DropAll
	subs  map[symbol]map[string]struct{} // product (its key) -> subscribed types
	names map[symbol]symbol              // product (its key) -> the form it was first subscribed in
	order []symbol                       // subscription order, for stable pushes
}

const writeTimeout = 10 * time.Second

func (c *conn) serve(ctx context.Context, token string) {
	defer c.ws.CloseNow()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if !c.send(ctx, []byte(`{"code":1,"msg":"`+MsgConnected+`"}`)) {
		return
	}
	if c.srv.refuse.Load() || token == "" || !c.srv.cfg.Authorize(token) {
		c.send(ctx, []byte(`{"code":0,"resAc":"auth","msg":"`+MsgAuthFailed+`"}`))
		c.ws.Close(websocket.StatusPolicyViolation, MsgAuthFailed)
		return
	}
	// Counted before the client hears it is in, so connections are
	// evicted in the order their clients saw them authenticated.
	c.srv.admit(c, token)
	if !c.send(ctx, []byte(`{"code":1,"resAc":"auth","msg":"`+MsgAuthOK+`"}`)) {
		return
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		c.push(ctx)
	}()
	c.read(ctx)
	cancel()
	<-done
}

// send writes one message unless the server is silent. It reports false
// once the connection is unusable.
func (c *conn) send(ctx context.Context, msg []byte) bool {
	if c.srv.silent.Load() {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, msg) == nil
}

type request struct {
	Ac     string `json:"ac"`
	Params string `json:"params"`
	Types  string `json:"types"`
}

func (c *conn) read(ctx context.Context) {
	for {
		rctx, cancel := context.WithTimeout(ctx, c.srv.cfg.PingTimeout)
		_, msg, err := c.ws.Read(rctx)
		cancel()
		if err != nil {
			return
		}
		var req request
		if err := json.Unmarshal(msg, &req); err != nil {
			req.Ac = ""
		}
		var reply []byte
		switch req.Ac {
		case "ping":
			c.srv.pings.Add(1)
			if c.srv.noPong.Load() {
				continue
			}
			p, _ := json.Marshal(req.Params)
			reply = []byte(`{"resAc":"pong","data":{"params":` + string(p) + `}}`)
		case "subscribe", "unsubscribe":
			c.seq.Lock()
			ok := c.send(ctx, c.subscribe(req))
			c.seq.Unlock()
			if !ok {
				return
			}
			continue
		default:
			reply = ack(0, req.Ac, MsgBadAction)
		}
		if !c.send(ctx, reply) {
			return
		}
	}
}

func ack(code int, action, msg string) []byte {
	b, _ := json.Marshal(struct {
		Code  int    `json:"code"`
		ResAc string `json:"resAc"`
		Msg   string `json:"msg"`
	}{code, action, msg})
	return b
}

// subscribe applies a subscribe or unsubscribe request and returns the
// acknowledgement.
func (c *conn) subscribe(req request) []byte {
	syms, types, bad := parseRequest(req)
	if bad != "" {
		return ack(0, req.Ac, bad)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.Ac == "unsubscribe" {
		for _, s := range syms {
			k := s.key()
			set := c.subs[k]
			for _, t := range types {
				delete(set, t)
			}
			if len(set) == 0 || len(types) == 0 {
				delete(c.subs, k)
				delete(c.names, k)
			}
		}
		c.order = c.order[:0]
		for s := range c.subs {
			c.order = append(c.order, s)
		}
		return ack(1, req.Ac, "unsubscribe Successfully")
	}
	if len(types) == 0 {
		return ack(0, req.Ac, "types is empty")
	}
	if exists := c.srv.cfg.Exists; exists != nil {
		for _, s := range syms {
			if !exists(c.class, s.code, s.region) {
				return ack(0, req.Ac, MsgNotFound)
			}
		}
	}
	added := 0
	for _, s := range syms {
		if _, ok := c.subs[s.key()]; !ok {
			added++
		}
	}
	if len(c.subs)+added > c.srv.cfg.MaxSymbols {
		return ack(0, req.Ac, MsgLimit)
	}
	for _, s := range syms {
		k := s.key()
		set, ok := c.subs[k]
		if !ok {
			set = make(map[string]struct{})
			c.subs[k] = set
			c.names[k] = s
			c.order = append(c.order, k)
		}
		for _, t := range types {
			set[t] = struct{}{}
		}
	}
	return ack(1, req.Ac, "subscribe Successfully")
}

func parseRequest(req request) (syms []symbol, types []string, bad string) {
	seen := make(map[symbol]bool)
	for _, p := range strings.Split(req.Params, ",") {
		p = strings.TrimSpace(p)
		parts := strings.Split(p, "$")
		if len(parts) < 2 || len(parts) > 3 || slices.Contains(parts, "") {
			return nil, nil, "cannot be resolved symbol " + strconv.Quote(p)
		}
		s := symbol{code: parts[0], region: parts[len(parts)-1]}
		if len(parts) == 3 {
			s.exchange = parts[1]
		}
		if !seen[s.key()] {
			seen[s.key()] = true
			syms = append(syms, s)
		}
	}
	if strings.TrimSpace(req.Types) == "" {
		return syms, nil, ""
	}
	for _, t := range strings.Split(req.Types, ",") {
		t = strings.TrimSpace(t)
		if klineType(t) == 0 && t != "quote" && t != "tick" && t != "depth" {
			return nil, nil, "cannot be resolved type " + strconv.Quote(t)
		}
		types = append(types, t)
	}
	return syms, types, ""
}

// klineType returns the kType of "kline@<n>", or 0.
func klineType(t string) int {
	n, ok := strings.CutPrefix(t, "kline@")
	if !ok {
		return 0
	}
	k, err := strconv.Atoi(n)
	if err != nil || k < 1 || k > 10 {
		return 0
	}
	return k
}

// push sends a round of pushes every PushInterval until ctx ends.
func (c *conn) push(ctx context.Context) {
	var buf []byte
	var round []symbol
	for {
		if d := c.srv.cfg.PushInterval; d > 0 {
			if !wait.Sleep(ctx, d) {
				return
			}
		} else if ctx.Err() != nil {
			return
		}
		if c.srv.paused.Load() || c.srv.silent.Load() {
			if d := c.srv.cfg.PushInterval; d < 0 && !wait.Sleep(ctx, time.Millisecond) {
				return
			}
			continue
		}
		c.mu.Lock()
		round = append(round[:0], c.order...)
		c.mu.Unlock()
		if len(round) == 0 && c.srv.cfg.PushInterval < 0 && !wait.Sleep(ctx, time.Millisecond) {
			return
		}
		for _, s := range round {
			if !c.pushProduct(ctx, s, &buf) {
				return
			}
		}
	}
}

// pushProduct sends one round of pushes for the product whose key is k,
// unless it has no types any more, and reports false once the connection
// is unusable.
func (c *conn) pushProduct(ctx context.Context, k symbol, buf *[]byte) bool {
	c.seq.Lock()
	defer c.seq.Unlock()
	c.mu.Lock()
	types := sortedTypes(c.subs[k])
	s := c.names[k]
	c.mu.Unlock()
	if len(types) == 0 {
		return true
	}
	now := c.srv.cfg.Clock()
	if live := c.srv.cfg.Live; live != nil && !live(c.class, s.code, s.region, now) {
		return true
	}
	var bar Bar
	m := c.srv.cfg.Market
	if m == nil {
		bar = c.srv.source.Next(s.code, s.region, now)
	}
	for _, t := range types {
		if m != nil {
			*buf = c.srv.appendMarketPush((*buf)[:0], m, c.class, s, t, now)
		} else {
			*buf = c.srv.appendPush((*buf)[:0], s, t, bar)
		}
		if c.srv.paused.Load() {
			break
		}
		c.srv.pushes.Add(1) // before the send, so a client never counts more
		if !c.send(ctx, *buf) {
			return false
		}
	}
	return true
}

var typeOrder = []string{"quote", "tick", "depth", "kline@1", "kline@2", "kline@3", "kline@4", "kline@5",
	"kline@6", "kline@7", "kline@8", "kline@9", "kline@10"}

func sortedTypes(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for _, t := range typeOrder {
		if _, ok := set[t]; ok {
			out = append(out, t)
		}
	}
	return out
}
