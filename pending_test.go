package itick_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
)

func wsSend(ctx context.Context, c *websocket.Conn, msg string) error {
	return c.Write(ctx, websocket.MessageText, []byte(msg))
}

// wsAnswer serves a connection's requests until it ends: a pong for a
// ping, an acknowledgement for the rest; then calls after(req), if set.
func wsAnswer(ctx context.Context, c *websocket.Conn, after func(req string)) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var req struct{ Ac, Params string }
		if json.Unmarshal(b, &req) != nil {
			return
		}
		if req.Ac == "ping" {
			wsSend(ctx, c, `{"resAc":"pong","data":{"params":"`+req.Params+`"}}`)
			continue
		}
		wsSend(ctx, c, `{"code":1,"resAc":"`+req.Ac+`","msg":"ok"}`)
		if after != nil {
			after(req.Ac)
		}
	}
}

const wsAuthOK = `{"code":1,"resAc":"auth","msg":"authenticated"}`

func quotePush(last int) string {
	return fmt.Sprintf(`{"code":1,"data":{"s":"700","r":"HK","type":"quote","ld":%d,"t":1765526889000}}`, last)
}

// nextOf waits for the next event of type T, skipping others, and returns
// it with the events skipped.
func nextOf[T itick.Event](t *testing.T, s *itick.Stream) (T, []itick.Event) {
	t.Helper()
	var skipped []itick.Event
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				var zero T
				t.Fatalf("the stream ended (%v) before a %T", s.Err(), zero)
			}
			if v, ok := ev.(T); ok {
				return v, skipped
			}
			skipped = append(skipped, ev)
		case <-deadline:
			var zero T
			t.Fatalf("no %T in time; had %v", zero, skipped)
		}
	}
}

// streamOf opens a stock Stream on c that reconnects at once and lives
// until the test ends.
func streamOf(t *testing.T, c *itick.Client, opts ...itick.StreamOption) *itick.Stream {
	t.Helper()
	s, err := c.Stream(context.Background(), itick.AssetStock,
		append([]itick.StreamOption{itick.WithReconnectBackoff(0, 2*time.Millisecond), itick.WithDialTimeout(10 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
