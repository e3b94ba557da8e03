package itick

import (
	"errors"
	"fmt"
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
