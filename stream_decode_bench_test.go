package itick_test

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/d19c4e34/itick"
)

// replayFramesHandler speaks enough of the service's protocol to
// authenticate and acknowledge subscriptions, then, from the first
// subscription on, writes frames round and round as fast as the client
// reads them. The frames are encoded once, so writing them costs the
// server a few large writes: what is measured is the client.
func replayFramesHandler(frames [][]byte) *replayHandler {
	var batches [][]byte // whole frames, about 32 KiB a write
	var cur []byte
	for _, f := range frames {
		cur = appendServerFrame(cur, f)
		if len(cur) >= 32<<10 {
			batches, cur = append(batches, cur), nil
		}
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return &replayHandler{pump: func(write func([]byte) error, done <-chan struct{}) {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			if write(batches[i%len(batches)]) != nil {
				return
			}
		}
	}}
}

// replayHandler is a WebSocket service that speaks enough of the
// service's protocol to authenticate, answer pings and acknowledge
// subscriptions. After a connection's first acknowledged subscription it
// runs pump in a goroutine of its own: write sends whole, already encoded
// frames, one writer at a time, and done closes when the connection ends.
// Close waits for the pumps to return.
type replayHandler struct {
	pump func(write func([]byte) error, done <-chan struct{})
	wg   sync.WaitGroup
}

func (h *replayHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Sec-WebSocket-Key")
	nc, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer nc.Close()
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	var mu sync.Mutex // one writer at a time, whole frames
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := nc.Write(b)
		return err
	}
	hello := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"
	msgs := appendServerFrame(nil, []byte(`{"code":1,"msg":"Connected Successfully"}`))
	msgs = appendServerFrame(msgs, []byte(`{"code":1,"resAc":"auth","msg":"authenticated"}`))
	if write(append([]byte(hello), msgs...)) != nil {
		return
	}
	done := make(chan struct{})
	defer close(done)
	var once sync.Once
	for {
		op, msg, err := readClientFrame(brw.Reader)
		if err != nil || op == 8 {
			return
		}
		var req struct{ Ac, Params string }
		if op != 1 || json.Unmarshal(msg, &req) != nil {
			continue
		}
		switch req.Ac {
		case "ping":
			write(appendServerFrame(nil, []byte(`{"resAc":"pong","data":{"params":"`+req.Params+`"}}`)))
		case "subscribe", "unsubscribe":
			write(appendServerFrame(nil, []byte(`{"code":1,"resAc":"`+req.Ac+`","msg":"`+req.Ac+` Successfully"}`)))
			once.Do(func() {
				h.wg.Add(1)
				go func() {
					defer h.wg.Done()
					h.pump(write, done)
				}()
			})
		}
	}
}

// Close waits for the pumps, which end with their connections.
func (h *replayHandler) Close() { h.wg.Wait() }

// appendServerFrame appends p as one unmasked text frame.
func appendServerFrame(dst, p []byte) []byte {
	switch n := len(p); {
	case n < 126:
		dst = append(dst, 0x81, byte(n))
	case n < 1<<16:
		dst = append(dst, 0x81, 126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0x81, 127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	return append(dst, p...)
}

// readClientFrame reads one masked frame from a client: its opcode and
// unmasked payload. Clients here send each message as one frame.
func readClientFrame(r *bufio.Reader) (op byte, p []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var e [2]byte
		_, err = io.ReadFull(r, e[:])
		n = uint64(binary.BigEndian.Uint16(e[:]))
	case 127:
		var e [8]byte
		_, err = io.ReadFull(r, e[:])
		n = binary.BigEndian.Uint64(e[:])
	}
	if err != nil {
		return 0, nil, err
	}
	if n > 1<<20 {
		return 0, nil, fmt.Errorf("client frame of %d bytes", n)
	}
	var mask [4]byte
	if h[1]&0x80 != 0 {
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return 0, nil, err
		}
	}
	p = make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	for i := range p {
		p[i] ^= mask[i%4]
	}
	return h[0] & 0x0f, p, nil
}

func replaySubscription() []string {
	syms := make([]string, itick.ReplaySymbols)
	for i := range syms {
		syms[i] = fmt.Sprintf("S%03d$US", i)
	}
	return syms
}

// BenchmarkStreamDecode measures the cost of one pushed event, from the
// frame on the socket to the typed value in the consumer's hands, against
// a replay server whose cost is the same for both sides: sdk through
// Client.Stream, baseline a hand-written coder/websocket reader decoding
// with encoding/json into structs with the wire's field names.
func BenchmarkStreamDecode(b *testing.B) {
	frames := itick.ReplayFrames()
	b.Run("sdk", func(b *testing.B) {
		s := replayStream(b, httptest.NewServer(replayFramesHandler(frames)), itick.DefaultStreamBuffer, itick.DropNewest)
		for range 1000 { // warm up
			<-s.Events()
		}
		dropped := s.Dropped()
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for b.Loop() {
			ev, ok := <-s.Events()
			if !ok {
				b.Fatalf("stream ended: %v", s.Err())
			}
			if _, bad := ev.(itick.ErrorEvent); bad {
				b.Fatalf("error event: %v", ev)
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(s.Dropped()-dropped)/float64(n), "dropped/event")
	})
	b.Run("baseline", func(b *testing.B) {
		h := replayFramesHandler(frames)
		srv := httptest.NewServer(h)
		b.Cleanup(func() {
			srv.Close()
			h.Close()
		})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/stock",
			&websocket.DialOptions{HTTPHeader: http.Header{"token": {simToken}}})
		if err != nil {
			b.Fatal(err)
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		sub := `{"ac":"subscribe","params":"` + strings.Join(replaySubscription(), ",") + `","types":"quote,tick,depth,kline@1"}`
		if err := c.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
			b.Fatal(err)
		}
		read := func() *plainPush {
			for {
				_, msg, err := c.Read(ctx)
				if err != nil {
					b.Fatal(err)
				}
				var m plainPush
				if err := json.Unmarshal(msg, &m); err != nil {
					b.Fatal(err)
				}
				if m.Data != nil && m.Data.Type != "" {
					return &m
				}
			}
		}
		for range 1000 { // warm up
			read()
		}
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		for b.Loop() {
			if read().Data.S == "" {
				b.Fatal("push without a symbol")
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	})
}

// replayStream opens a stream to the replay server srv, as a user would,
// subscribed to every product it replays on every channel; newServerClient
// closes srv when the test ends.
func replayStream(tb testing.TB, srv *httptest.Server, buffer int, policy itick.Overflow) *itick.Stream {
	tb.Helper()
	c := newServerClient(tb, srv, simToken)
	s, err := c.Stream(within(tb), "stock", itick.WithStreamURL(srv.URL), itick.WithDialTimeout(5*time.Second),
		itick.WithMaxSymbols(itick.ReplaySymbols), itick.WithBuffer(buffer, policy))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	err = s.Subscribe(within(tb), replaySubscription(), itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// plainLevel and plainPush are what a user writes by hand to read pushes:
// the wire's field names, encoding/json's types.
type plainLevel struct {
	Po int     `json:"po"`
	P  float64 `json:"p"`
	V  float64 `json:"v"`
	O  float64 `json:"o"`
}

type plainPush struct {
	Code  int    `json:"code"`
	ResAc string `json:"resAc"`
	Msg   string `json:"msg"`
	Data  *struct {
		S    string       `json:"s"`
		R    string       `json:"r"`
		Type string       `json:"type"`
		Ld   float64      `json:"ld"`
		O    float64      `json:"o"`
		P    float64      `json:"p"`
		H    float64      `json:"h"`
		L    float64      `json:"l"`
		C    float64      `json:"c"`
		T    int64        `json:"t"`
		V    float64      `json:"v"`
		Tu   float64      `json:"tu"`
		Ts   int          `json:"ts"`
		A    []plainLevel `json:"a"`
		B    []plainLevel `json:"b"`
	} `json:"data"`
}
