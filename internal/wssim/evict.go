package wssim

import "github.com/coder/websocket"

// The plan's cap on connections per token. The service drops a token's
// current connection when another arrives past the cap (SERVICE-EXTRA.md)
// rather than refusing the newcomer, so two processes sharing a token
// evict each other in turn; so does the simulator.

// Evictions is the number of connections dropped since the start because
// a newer connection of their token passed MaxConns.
func (s *Server) Evictions() int64 { return s.evicted.Load() }

// admit counts c, just authenticated with token, among its token's
// connections and drops the oldest of them while they are more than
// MaxConns. The close handshakes run on their own, so c goes on at once.
func (s *Server) admit(c *conn, token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	c.token = token
	held := append(s.tokens[token], c)
	for s.cfg.MaxConns > 0 && len(held) > s.cfg.MaxConns {
		old := held[0]
		held = held[1:]
		s.evicted.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			old.ws.Close(websocket.StatusPolicyViolation, MsgConnLimit)
		}()
	}
	s.tokens[token] = held
}

// release takes c off its token's connections.
func (s *Server) release(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.tokens[c.token]
	for i, h := range held {
		if h == c {
			held = append(held[:i:i], held[i+1:]...)
			break
		}
	}
	if len(held) == 0 {
		delete(s.tokens, c.token)
	} else {
		s.tokens[c.token] = held
	}
}
