package itick

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/stream"
)

// frameDecoder decodes one connection's messages as the engine's reader
// does: with its own interning State and a push decoder.
type frameDecoder struct {
	st *codec.State
	pd *pushDecoder
}

func newFrameDecoder(match stream.Matcher) *frameDecoder {
	return &frameDecoder{st: codec.NewState(), pd: newPushDecoder(match, redact.New(""))}
}

func (f *frameDecoder) decode(frame []byte) stream.Frame[Event] {
	return stream.Decode[Event](f.st, f.pd, frame)
}

// decodePushJSON decodes one push's data on its own.
func decodePushJSON(data []byte, match stream.Matcher) (Event, error) {
	f := newFrameDecoder(match)
	f.st.D.Reset(data)
	err := f.pd.Data(f.st)
	if err == nil {
		err = f.st.D.End()
	}
	if err != nil {
		return nil, fmt.Errorf("itick: stream push: %w", err)
	}
	ev, isPush, err := f.pd.Event()
	if err == nil && !isPush {
		return nil, errors.New("itick: stream push names no product, type or candle")
	}
	return ev, err
}

func TestPushDecoderInternsBounded(t *testing.T) {
	t.Parallel()
	p := newFrameDecoder(nil)
	frame := func(code string) []byte {
		return []byte(`{"code":1,"data":{"s":"` + code + `","r":"US","type":"tick","ld":1,"t":1765526889000}}`)
	}
	code := func(b []byte) string {
		f := p.decode(b)
		if !f.Push || f.Err != nil {
			t.Fatalf("decode(%s) = %+v", b, f)
		}
		return f.Event.(TickEvent).Code
	}
	a, b := code(frame("AAPL")), code(frame("AAPL"))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("a repeated code is not reused")
	}
	for i := range 3 * codec.MaxInterned {
		if got, want := code(frame(fmt.Sprintf("C%d", i))), fmt.Sprintf("C%d", i); got != want {
			t.Fatalf("code %q, want %q", got, want)
		}
	}
	if n := p.st.Interned(); n > codec.MaxInterned {
		t.Errorf("%d strings kept, want at most %d", n, codec.MaxInterned)
	}
}

func TestPushDecoderAllocations(t *testing.T) {
	p := newFrameDecoder(nil)
	frames := replayFrames()
	for _, f := range frames { // interns the codes
		if err := p.decode(f).Err; err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	allocs := testing.AllocsPerRun(len(frames), func() {
		p.decode(frames[i%len(frames)])
		i++
	})
	// One for the event in its interface, one more for a depth book's
	// levels.
	if allocs > 1.5 {
		t.Errorf("%.2f allocations a push, want at most 1.5", allocs)
	}
}

func TestPushDecoderRoutesReplies(t *testing.T) {
	t.Parallel()
	p := newFrameDecoder(nil)
	for _, m := range []string{
		`{"code":1,"msg":"Connected Successfully"}`,
		`{"code":1,"resAc":"auth","msg":"authenticated","data":{"params":"x"}}`,
		`{"resAc":"pong","data":{"params":"1731888000000"}}`,
		`{"code":"E003","resAc":"subscribe","msg":"exceeding the maximum subscription limit"}`,
		`{"code":1,"RESAC":"subscribe","data":[]}`,
		`{"code":0,"msg":"auth failed","data":null}`,
		`{"code":1,"data":{"params":"x"}}`,
	} {
		if f := p.decode([]byte(m)); f.Push {
			t.Errorf("decode(%s) = %+v, want a reply", m, f)
		}
	}
	for _, m := range []string{`{"code":1,"data":[]}`, `{"data":{"s":"A","type":"quote","ld":"x"}}`, `[]`, `{"data":{}`} {
		if f := p.decode([]byte(m)); !f.Push || f.Err == nil {
			t.Errorf("decode(%s) = %+v, want a failed push", m, f)
		}
	}
}

// replaySymbols is how many products the replayed stream carries.
const replaySymbols = 300

// replayFrames builds the pushes a replay server writes, in the shapes the
// service sends: per ten frames, four depth books (ten levels a side, s
// with its $REGION suffix), three quotes, two ticks and one kline@1 candle,
// spread over replaySymbols products.
func replayFrames() [][]byte {
	const ms = 1731888000000
	frames := make([][]byte, 0, replaySymbols*10)
	for i := range replaySymbols * 10 {
		sym := fmt.Sprintf("S%03d", (i*7)%replaySymbols)
		p := 100 + float64(i%997)/8
		var f string
		switch i % 10 {
		case 0, 1, 2, 3:
			var a, b strings.Builder
			for l := 1; l <= 10; l++ {
				if l > 1 {
					a.WriteByte(',')
					b.WriteByte(',')
				}
				fmt.Fprintf(&a, `{"po":%d,"p":%g,"v":%g,"o":%d}`, l, p+float64(l)/100, 0.5+float64(l)*1.25, l+2)
				fmt.Fprintf(&b, `{"po":%d,"p":%g,"v":%g,"o":%d}`, l, p-float64(l)/100, 0.75+float64(l)*1.5, l+4)
			}
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s$US","type":"depth","a":[%s],"b":[%s]}}`, sym, a.String(), b.String())
		case 4, 5, 6:
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s","r":"US","type":"quote","ld":%g,"o":%g,"h":%g,"l":%g,"t":%d,"v":%d,"tu":%g}}`,
				sym, p, p-1.5, p+2.25, p-2.75, ms+i, 120000+i, p*float64(120000+i))
		case 7, 8:
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s","r":"US","type":"tick","ld":%g,"v":%d,"t":%d,"tu":%g,"ts":0}}`,
				sym, p, 100+i%50, ms+i, p*float64(100+i%50))
		case 9:
			f = fmt.Sprintf(`{"code":1,"data":{"s":"%s","r":"US","type":"kline@1","o":%g,"h":%g,"l":%g,"c":%g,"v":%d,"tu":%g,"t":%d}}`,
				sym, p-0.5, p+0.75, p-1, p, 2300+i, p*float64(2300+i), ms-60000+i)
		}
		frames = append(frames, []byte(f))
	}
	return frames
}
