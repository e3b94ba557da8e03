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
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/d19c4e34/itick"
	"github.com/d19c4e34/itick/internal/wssim"
)

// Benchmarks of the Stream against hand-written readers (events per
// second, the cost of a push, latency), and tests of what they assume.

// BenchmarkStreamEvents measures how many events a Stream decodes and
// delivers per second when the simulator pushes as fast as it is read:
// a mix of quotes, ticks, five-level depth books and candles for 50
// products on one connection.
func BenchmarkStreamEvents(b *testing.B) {
	c := newServerClient(b, httptest.NewServer(streamSim(wssim.Config{PushInterval: -1})), simToken)
	s := openStream(b, c, "stock", itick.WithBuffer(itick.DefaultStreamBuffer, itick.DropNewest))
	syms := make([]string, 50)
	for i := range syms {
		syms[i] = fmt.Sprintf("S%02d$US", i)
	}
	if err := s.Subscribe(within(b), syms, itick.ChannelQuote, itick.ChannelTick, itick.ChannelDepth, itick.ChannelKline(itick.OneMinute)); err != nil {
		b.Fatal(err)
	}
	for range 100 { // warm up
		<-s.Events()
	}
	dropped := s.Dropped()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if _, ok := <-s.Events(); !ok {
			b.Fatalf("stream ended: %v", s.Err())
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(s.Dropped()-dropped)/float64(n), "dropped/event")
}

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
		allocs := countAllocs()
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
		b.ReportMetric(allocs()/float64(n), "allocs/event")
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
		allocs := countAllocs()
		n := 0
		for b.Loop() {
			if read().Data.S == "" {
				b.Fatal("push without a symbol")
			}
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(allocs()/float64(n), "allocs/event")
	})
}

// countAllocs starts counting the process's heap allocations, the
// replaying server's included as allocs/op counts them, and returns how
// many there have been since: allocs/op rounds the mean to a whole number.
func countAllocs() func() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := m.Mallocs
	return func() float64 {
		runtime.ReadMemStats(&m)
		return float64(m.Mallocs - start)
	}
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

// The latency benchmark writes the replay frames at a fixed pace and times
// each event from just before its frame is written to when the consumer
// holds it. Every frame carries its sequence number in a field both
// readers decode anyway, in a fixed number of digits so the frames keep
// their size: t (Unix ms) of quotes, ticks and candles is seqTimeBase plus
// the number, and the order count of a book's best ask is seqOrdersBase
// plus it. A side table indexed by the number holds when it was written.
const (
	latencyRate   = 20_000  // events a second offered
	latencyEvents = 200_000 // measured events per benchmark iteration
	latencyWarm   = 2_000   // events written and received before measuring

	seqDigits     = 7
	seqLimit      = 10_000_000    // 10^seqDigits
	seqTimeBase   = 1731880000000 // ms, 2024-11-17, a round number ending in seqDigits zeros
	seqOrdersBase = 10_000_000
)

// latencyFrame is a replay frame encoded for the wire, with the offset of
// the seqDigits digits that take its sequence number.
type latencyFrame struct {
	enc  []byte
	slot int
}

// latencyFrames rewrites replayFrames (the mix BenchmarkStreamDecode reads)
// to carry a sequence number.
func latencyFrames(tb testing.TB) []latencyFrame {
	tb.Helper()
	reT := regexp.MustCompile(`"t":\d+`)
	reO := regexp.MustCompile(`"o":\d+`) // in a book, the first is the best ask's
	var out []latencyFrame
	for _, f := range itick.ReplayFrames() {
		s := string(f)
		re, repl := reT, fmt.Sprintf(`"t":%d`, int64(seqTimeBase))
		if strings.Contains(s, `"type":"depth"`) {
			re, repl = reO, fmt.Sprintf(`"o":%d`, seqOrdersBase)
		}
		loc := re.FindStringIndex(s)
		if loc == nil {
			tb.Fatalf("no field for the sequence number in %s", s)
		}
		s = s[:loc[0]] + repl + s[loc[1]:]
		enc := appendServerFrame(nil, []byte(s))
		out = append(out, latencyFrame{enc: enc, slot: len(enc) - len(s) + loc[0] + len(repl) - seqDigits})
	}
	return out
}

// putSeq writes n into dst as seqDigits decimal digits.
func putSeq(dst []byte, n int) {
	for i := seqDigits - 1; i >= 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
}

// latencySchedule says when each frame is due: frame i at i/rate after the
// start, whatever happened to the frames before it.
type latencySchedule struct{ rate int64 }

// due is when frame i is due, after the start.
func (s latencySchedule) due(i int) time.Duration {
	return time.Duration(int64(i) * int64(time.Second) / s.rate)
}

// dueBy is how many frames are due at d after the start: the count of i
// with due(i) <= d.
func (s latencySchedule) dueBy(d time.Duration) int {
	if d < 0 {
		return 0
	}
	return int(((int64(d)+1)*s.rate + int64(time.Second) - 1) / int64(time.Second))
}

// maxFramesPerWrite bounds a batch after a stall, so one write stays a few
// hundred kilobytes at most.
const maxFramesPerWrite = 256

// pace hands frames [0, total) to send in order, none before it is due:
// it reads the clock, sends every frame already due in one batch and waits
// until the next is due. A late batch does not move the frames after it;
// they are due when the schedule says, and go out together with it. It
// stops early when wait or send returns false.
func pace(sched latencySchedule, total int, now func() time.Duration,
	wait func(time.Duration) bool, send func(from, to int) bool) {
	for next := 0; next < total; {
		el := now()
		n := min(sched.dueBy(el), total, next+maxFramesPerWrite)
		if n <= next {
			if !wait(sched.due(next) - el) { // positive: frame next is not due yet
				return
			}
			continue
		}
		if !send(next, n) {
			return
		}
		next = n
	}
}

// latencyRun is one paced stream of total frames, the first warm of them
// not measured.
type latencyRun struct {
	sched       latencySchedule
	frames      []latencyFrame
	warm, total int

	t0    time.Time     // every time below is a duration since t0
	start chan struct{} // closed when the reader is subscribed
	began atomic.Int64  // when frame 0 was due
	sent  []atomic.Int64
	write atomic.Int64 // writes made
}

func newLatencyRun(frames []latencyFrame, r, warm, n int) *latencyRun {
	return &latencyRun{
		sched:  latencySchedule{rate: int64(r)},
		frames: frames,
		warm:   warm,
		total:  warm + n,
		t0:     time.Now(),
		start:  make(chan struct{}),
		sent:   make([]atomic.Int64, warm+n),
	}
}

func (r *latencyRun) since() time.Duration { return time.Since(r.t0) }

// handler is the replay service that writes r's frames to the first
// connection to subscribe once r.start is closed.
func (r *latencyRun) handler() *replayHandler {
	var claimed atomic.Bool
	return &replayHandler{pump: func(write func([]byte) error, done <-chan struct{}) {
		if claimed.Swap(true) {
			return // a second connection would only repeat sequence numbers
		}
		select {
		case <-r.start:
		case <-done:
			return
		}
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		began := r.since()
		r.began.Store(int64(began))
		var buf []byte
		pace(r.sched, r.total,
			func() time.Duration { return r.since() - began },
			func(d time.Duration) bool {
				timer.Reset(d)
				select {
				case <-timer.C:
					return true
				case <-done:
					return false
				}
			},
			func(from, to int) bool {
				buf = buf[:0]
				for i := from; i < to; i++ {
					f := r.frames[i%len(r.frames)]
					at := len(buf) + f.slot
					buf = append(buf, f.enc...)
					putSeq(buf[at:at+seqDigits], i)
				}
				ts := int64(max(r.since(), 1)) // 0 is "not written"
				for i := from; i < to; i++ {
					r.sent[i].Store(ts)
				}
				r.write.Add(1)
				return write(buf) == nil
			})
	}}
}

// latencyReader subscribes to the replay server's products and returns a
// function that blocks for the next push and returns the sequence number
// it carries, and one that counts the events the reader discarded.
type latencyReader func(tb testing.TB, ctx context.Context, srv *httptest.Server, buffer int) (next func() (int, error), dropped func() uint64)

// sdkLatencyReader reads through Client.Stream, as a user would.
func sdkLatencyReader(tb testing.TB, ctx context.Context, srv *httptest.Server, buffer int) (func() (int, error), func() uint64) {
	s := replayStream(tb, srv, buffer, itick.DropOldest)
	next := func() (int, error) {
		var ev itick.Event
		select {
		case e, ok := <-s.Events():
			if !ok {
				return 0, fmt.Errorf("stream ended: %w", s.Err())
			}
			ev = e
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		switch e := ev.(type) {
		case itick.QuoteEvent:
			return int(e.Quote.Time.UnixMilli() - seqTimeBase), nil
		case itick.TickEvent:
			return int(e.Tick.Time.UnixMilli() - seqTimeBase), nil
		case itick.KlineEvent:
			return int(e.Kline.Time.UnixMilli() - seqTimeBase), nil
		case itick.DepthEvent:
			if len(e.Depth.Asks) == 0 {
				return 0, fmt.Errorf("book without asks: %+v", e)
			}
			return int(e.Depth.Asks[0].Orders) - seqOrdersBase, nil
		}
		return 0, fmt.Errorf("unexpected event %T: %v", ev, ev)
	}
	return next, s.Dropped
}

// baselineLatencyReader reads with coder/websocket and decodes each frame
// with encoding/json into plainPush; the socket is its only buffer, so
// it drops nothing.
func baselineLatencyReader(tb testing.TB, ctx context.Context, srv *httptest.Server, _ int) (func() (int, error), func() uint64) {
	c, _, err := websocket.Dial(within(tb), "ws"+strings.TrimPrefix(srv.URL, "http")+"/stock",
		&websocket.DialOptions{HTTPHeader: http.Header{"token": {simToken}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.CloseNow() })
	c.SetReadLimit(1 << 20)
	sub := `{"ac":"subscribe","params":"` + strings.Join(replaySubscription(), ",") + `","types":"quote,tick,depth,kline@1"}`
	if err := c.Write(within(tb), websocket.MessageText, []byte(sub)); err != nil {
		tb.Fatal(err)
	}
	read := func() (*plainPush, error) {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return nil, err
		}
		var m plainPush
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, err
		}
		return &m, nil
	}
	for { // up to the acknowledgement, as Subscribe waits for it
		m, err := read()
		if err != nil {
			tb.Fatal(err)
		}
		if m.ResAc == "subscribe" {
			break
		}
	}
	next := func() (int, error) {
		for {
			m, err := read()
			if err != nil {
				return 0, err
			}
			if m.Data != nil && m.Data.Type != "" { // not a pong
				return pushSeq(m)
			}
		}
	}
	return next, func() uint64 { return 0 }
}

// pushSeq is the sequence number a decoded push carries.
func pushSeq(m *plainPush) (int, error) {
	if m.Data.Type != "depth" {
		return int(m.Data.T - seqTimeBase), nil
	}
	if len(m.Data.A) == 0 {
		return 0, fmt.Errorf("book without asks")
	}
	return int(m.Data.A[0].O) - seqOrdersBase, nil
}

// latencyResult is what one run measured over its frames after the warm-up.
type latencyResult struct {
	lat      []time.Duration // each event's, sorted
	late     []time.Duration // how long after its due time each frame was written, sorted
	missing  int             // measured frames never received
	repeats  int             // events received more than once
	dropped  uint64          // what the reader counted as discarded
	span     time.Duration   // from the first measured event received to the last
	received int             // measured events received
	writes   int64           // writes the server made, warm-up included
	sent     []time.Duration // when each frame was written, warm-up included
	due      []time.Duration // when each frame was due, warm-up included
}

// runLatency serves one paced run to the reader and measures it. It fails
// tb on any event it cannot match to a written frame.
func runLatency(tb testing.TB, frames []latencyFrame, warm, n int, read latencyReader, buffer int,
	timing func(on bool)) latencyResult {
	tb.Helper()
	if warm+n > seqLimit {
		tb.Fatalf("%d frames do not fit %d digits", warm+n, seqDigits)
	}
	r := newLatencyRun(frames, latencyRate, warm, n)
	h := r.handler()
	srv := httptest.NewServer(h)
	tb.Cleanup(func() {
		srv.Close()
		h.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), r.sched.due(r.total)+2*time.Minute)
	defer cancel()
	next, dropped := read(tb, ctx, srv, buffer)
	seen := make([]bool, r.total)
	res := latencyResult{lat: make([]time.Duration, 0, n)}
	var first, last time.Duration
	var drop0 uint64
	timing(true)
	close(r.start)
	for {
		seq, err := next()
		at := r.since()
		if err != nil {
			tb.Fatalf("after %d events: %v", res.received, err)
		}
		if seq < 0 || seq >= r.total {
			tb.Fatalf("event with sequence number %d, outside [0, %d)", seq, r.total)
		}
		sent := time.Duration(r.sent[seq].Load())
		if sent == 0 {
			tb.Fatalf("event %d received before its frame was written", seq)
		}
		if seen[seq] {
			res.repeats++
			continue
		}
		seen[seq] = true
		if seq == warm-1 || (warm == 0 && seq == 0) {
			drop0 = dropped()
		}
		if seq >= warm {
			if res.received == 0 {
				first = at
			}
			last = at
			res.received++
			res.lat = append(res.lat, at-sent)
		}
		if seq == r.total-1 {
			break // the last frame; nothing follows it
		}
	}
	timing(false)
	res.dropped = dropped() - drop0
	res.missing = n - res.received
	res.span = last - first
	res.writes = r.write.Load()
	began := time.Duration(r.began.Load())
	for i := range r.total {
		s, d := time.Duration(r.sent[i].Load()), began+r.sched.due(i)
		res.sent = append(res.sent, s)
		res.due = append(res.due, d)
		if i >= warm {
			res.late = append(res.late, s-d)
		}
	}
	slices.Sort(res.lat)
	slices.Sort(res.late)
	return res
}

// quantile is the q-quantile of sorted (the smallest value at or above a
// fraction q of them).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// BenchmarkStreamLatency measures, at latencyRate events a second offered
// over one connection, the time from just before a push's frame is written
// to when the consumer holds it: sdk from Client.Stream's Events channel,
// baseline a hand-written coder/websocket reader with encoding/json. The
// server writes the frames of BenchmarkStreamDecode on an absolute
// schedule (frame i at i/rate), every frame already due in one write, and
// sleeps until the next is due. Each iteration measures latencyEvents
// events after a warm-up; run it with -benchtime=1x.
func BenchmarkStreamLatency(b *testing.B) {
	frames := latencyFrames(b)
	for _, c := range []struct {
		name string
		read latencyReader
	}{{"sdk", sdkLatencyReader}, {"baseline", baselineLatencyReader}} {
		b.Run(c.name, func(b *testing.B) {
			b.StopTimer()
			n := b.N * latencyEvents
			res := runLatency(b, frames, latencyWarm, n, c.read, itick.DefaultStreamBuffer, func(on bool) {
				if on {
					b.StartTimer()
				} else {
					b.StopTimer()
				}
			})
			if res.repeats != 0 {
				b.Fatalf("%d events received twice", res.repeats)
			}
			us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
			b.ReportMetric(us(quantile(res.lat, 0.50)), "p50-µs")
			b.ReportMetric(us(quantile(res.lat, 0.99)), "p99-µs")
			b.ReportMetric(us(quantile(res.lat, 0.999)), "p99.9-µs")
			b.ReportMetric(us(res.lat[len(res.lat)-1]), "max-µs")
			b.ReportMetric(us(quantile(res.late, 0.99)), "late-p99-µs")
			b.ReportMetric(float64(res.received-1)/res.span.Seconds(), "events/s")
			b.ReportMetric(float64(res.missing), "dropped")
			b.ReportMetric(float64(len(res.sent))/float64(res.writes), "frames/write")
		})
	}
}

// TestStreamLatencyPremises runs the latency benchmark's machinery on a
// short run for both readers: every event comes back matched to the frame
// that carried it, once, none missing, and the frames went out no earlier
// than the schedule says, at its rate.
func TestStreamLatencyPremises(t *testing.T) {
	frames := latencyFrames(t)
	kinds := map[string]int{}
	for i, f := range frames {
		enc := slices.Clone(f.enc)
		seq := 1234567 + i
		putSeq(enc[f.slot:f.slot+seqDigits], seq)
		payload := enc[2:]
		if enc[1] == 126 {
			payload = enc[4:]
		}
		var m plainPush
		if err := json.Unmarshal(payload, &m); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got, err := pushSeq(&m); err != nil || got != seq {
			t.Fatalf("frame %d carries %d (%v), want %d", i, got, err, seq)
		}
		kinds[m.Data.Type]++
	}
	if want := map[string]int{"depth": 1200, "quote": 900, "tick": 600, "kline@1": 300}; fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("frame mix %v, want %v", kinds, want)
	}
	const warm, n = 100, 2000
	for _, c := range []struct {
		name string
		read latencyReader
	}{{"sdk", sdkLatencyReader}, {"baseline", baselineLatencyReader}} {
		t.Run(c.name, func(t *testing.T) {
			// A buffer larger than the run: a slow consumer (the race
			// detector) delays events but cannot lose any.
			res := runLatency(t, frames, warm, n, c.read, 4*(warm+n), func(bool) {})
			if res.received != n || res.missing != 0 || res.repeats != 0 || res.dropped != 0 || len(res.lat) != n {
				t.Fatalf("received %d of %d (missing %d, twice %d, dropped %d, timed %d)",
					res.received, n, res.missing, res.repeats, res.dropped, len(res.lat))
			}
			if res.lat[0] < 0 {
				t.Errorf("an event received %v before its frame was written", -res.lat[0])
			}
			for i := range res.sent {
				if res.sent[i] < res.due[i] {
					t.Fatalf("frame %d written %v before it was due", i, res.due[i]-res.sent[i])
				}
				if i > 0 && res.sent[i] < res.sent[i-1] {
					t.Fatalf("frame %d written before frame %d", i, i-1)
				}
			}
			if res.writes < 1 || res.writes > int64(len(res.sent)) {
				t.Errorf("%d writes for %d frames", res.writes, len(res.sent))
			}
			span := res.due[len(res.due)-1] - res.due[0]
			if got := float64(len(res.due)-1) / span.Seconds(); got < latencyRate*0.999 || got > latencyRate*1.001 {
				t.Errorf("schedule offers %.0f events/s, want %d", got, latencyRate)
			}
		})
	}
}

// TestLatencyPace drives pace with a clock of its own: frames go out in
// order, each once and never before it is due; a stalled write does not
// move the frames after it, which go out in the next batch; and pace never
// waits for nothing.
func TestLatencyPace(t *testing.T) {
	for _, r := range []int64{20_000, 7, 3_000_017} {
		s := latencySchedule{rate: r}
		for i := range 1000 {
			if got := s.dueBy(s.due(i)); got != i+1 {
				t.Fatalf("rate %d: dueBy(due(%d)) = %d, want %d", r, i, got, i+1)
			}
			if got := s.dueBy(s.due(i+1) - 1); got != i+1 {
				t.Fatalf("rate %d: dueBy(due(%d)-1) = %d, want %d", r, i+1, got, i+1)
			}
		}
	}
	s := latencySchedule{rate: latencyRate}
	const total = 5000
	var clock time.Duration
	var waits, sends int
	sentAt := make([]time.Duration, 0, total)
	pace(s, total, func() time.Duration { return clock },
		func(d time.Duration) bool {
			if d <= 0 {
				t.Fatalf("wait of %v at %v", d, clock)
			}
			waits++
			clock += d + time.Duration(waits%7)*13*time.Microsecond // timers fire late
			return true
		},
		func(from, to int) bool {
			if from != len(sentAt) || to <= from || to-from > maxFramesPerWrite {
				t.Fatalf("sent [%d, %d) after %d frames", from, to, len(sentAt))
			}
			for range to - from {
				sentAt = append(sentAt, clock)
			}
			sends++
			if sends == 10 {
				clock += 20 * time.Millisecond // a write stalls for 400 frames' time
			}
			return true
		})
	if len(sentAt) != total {
		t.Fatalf("sent %d frames, want %d", len(sentAt), total)
	}
	for i, at := range sentAt {
		if at < s.due(i) {
			t.Fatalf("frame %d sent at %v, due at %v", i, at, s.due(i))
		}
	}
	// The frames due during the stall go out in the batches right after
	// it, so by the end frames are on time again, late by no more than
	// the timers' own lateness.
	if late := sentAt[total-1] - s.due(total-1); late > time.Millisecond {
		t.Errorf("last frame %v late: the stall moved the schedule", late)
	}
	if span := s.due(total-1) - s.due(0); span != time.Duration(total-1)*time.Second/latencyRate {
		t.Errorf("schedule spans %v for %d frames", span, total)
	}
	if waits > total {
		t.Errorf("%d waits for %d frames", waits, total)
	}
}
