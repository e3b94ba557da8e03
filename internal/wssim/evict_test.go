package wssim

import (
	"errors"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// alive reports whether c still answers a ping.
func alive(t *testing.T, c *websocket.Conn) bool {
	t.Helper()
	if err := c.Write(bounded(t), websocket.MessageText, []byte(`{"ac":"ping","params":"1"}`)); err != nil {
		return false
	}
	_, b, err := c.Read(bounded(t))
	return err == nil && string(b) == `{"resAc":"pong","data":{"params":"1"}}`
}

// evictedClose reads c until it ends and returns the error that ended it.
func evictedClose(t *testing.T, c *websocket.Conn) error {
	t.Helper()
	for {
		if _, _, err := c.Read(bounded(t)); err != nil {
			return err
		}
	}
}

func TestMaxConnsEvictsTheOldest(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{MaxConns: 2})
	first := authedAs(t, url+"/stock", "tok")
	second := authedAs(t, url+"/crypto", "tok") // the cap counts every class
	other := authedAs(t, url+"/stock", "other") // and one token's connections only
	if n := s.Evictions(); n != 0 {
		t.Fatalf("Evictions = %d at the cap, want 0", n)
	}
	third := authedAs(t, url+"/forex", "tok")

	err := evictedClose(t, first)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != MsgConnLimit {
		t.Errorf("the oldest connection ended with %v, want a close with StatusPolicyViolation and %q", err, MsgConnLimit)
	}
	for name, c := range map[string]*websocket.Conn{"second": second, "third": third, "other token's": other} {
		if !alive(t, c) {
			t.Errorf("the %s connection was dropped too", name)
		}
	}
	if n := s.Evictions(); n != 1 {
		t.Errorf("Evictions = %d, want 1", n)
	}

	// The next newcomer drops the oldest left, second.
	authedAs(t, url+"/stock", "tok")
	if err := evictedClose(t, second); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("the second connection ended with %v, want an eviction", err)
	}
	if !alive(t, third) {
		t.Error("the third connection was dropped before an older one")
	}
	if n := s.Evictions(); n != 2 {
		t.Errorf("Evictions = %d, want 2", n)
	}
}

// TestMaxConnsCountsAuthenticatedOnly: a connection whose token is refused
// takes no place under the cap and drops nobody.
func TestMaxConnsCountsAuthenticatedOnly(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{Token: "tok", MaxConns: 1})
	kept := authedAs(t, url+"/stock", "tok")
	bad := dial(t, url+"/stock", "nope")
	readJSON(t, bad)
	if got := readJSON(t, bad)["msg"]; got != MsgAuthFailed {
		t.Fatalf("wrong token: %v, want %q", got, MsgAuthFailed)
	}
	evictedClose(t, bad) // answer the refusal's close, so the server lets it go
	if !alive(t, kept) || s.Evictions() != 0 {
		t.Errorf("a refused connection evicted one (Evictions = %d)", s.Evictions())
	}
	// A connection that ended frees its place.
	kept.Close(websocket.StatusNormalClosure, "")
	for s.Conns() != 0 {
		if bounded(t).Err() != nil {
			t.Fatal("the closed connection stays counted")
		}
		time.Sleep(time.Millisecond)
	}
	next := authedAs(t, url+"/stock", "tok")
	if !alive(t, next) || s.Evictions() != 0 {
		t.Errorf("after the only connection closed, a new one: Evictions = %d, want 0", s.Evictions())
	}
}

func TestNoCapWithoutMaxConns(t *testing.T) {
	t.Parallel()
	s, url := start(t, Config{})
	conns := make([]*websocket.Conn, 20)
	for i := range conns {
		conns[i] = authedAs(t, url+"/stock", "tok")
	}
	for i, c := range conns {
		if !alive(t, c) {
			t.Fatalf("connection %d dropped with no cap", i)
		}
	}
	if s.Evictions() != 0 {
		t.Errorf("Evictions = %d with no cap", s.Evictions())
	}
}

func TestExistsRefusesUnknownProducts(t *testing.T) {
	t.Parallel()
	exists := func(class, code, region string) bool {
		return class == "stock" && region != "USA" && code != "NOSUCHCODE"
	}
	s, url := start(t, Config{Exists: exists, PushInterval: time.Hour})
	c := authedAs(t, url+"/stock", "tok")
	refused := map[string]any{"code": 0.0, "resAc": "subscribe", "msg": MsgNotFound}
	steps := []struct {
		send string
		want map[string]any
	}{
		{`{"ac":"subscribe","params":"AAPL$USA","types":"quote"}`, refused},
		{`{"ac":"subscribe","params":"AAPL$US,NOSUCHCODE$US","types":"quote"}`, refused},
		{`{"ac":"subscribe","params":"AAPL$US","types":"quote"}`,
			map[string]any{"code": 1.0, "resAc": "subscribe", "msg": "subscribe Successfully"}},
		{`{"ac":"unsubscribe","params":"NOSUCHCODE$US"}`,
			map[string]any{"code": 1.0, "resAc": "unsubscribe", "msg": "unsubscribe Successfully"}},
	}
	for _, st := range steps {
		send(t, c, st.send)
		if diff := cmp.Diff(st.want, readJSON(t, c)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.send, diff)
		}
	}
	want := []map[string][]string{{"AAPL$US": {"quote"}}}
	if diff := cmp.Diff(want, s.ConnSubscriptions()); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
}
