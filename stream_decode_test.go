package itick

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/d19c4e34/itick/internal/codec"
)

func TestPushDecoderInternsBounded(t *testing.T) {
	t.Parallel()
	p := newPushDecoder(nil)
	frame := func(code string) []byte {
		return []byte(`{"code":1,"data":{"s":"` + code + `","r":"US","type":"tick","ld":1,"t":1765526889000}}`)
	}
	code := func(b []byte) string {
		kind, ev, err := p.decode(b)
		if kind != msgPush || err != nil {
			t.Fatalf("decode(%s) = %v, %v, %v", b, kind, ev, err)
		}
		return ev.(TickEvent).Code
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
	p := newPushDecoder(nil)
	frames := replayFrames()
	for _, f := range frames { // interns the codes
		if _, _, err := p.decode(f); err != nil {
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
	p := newPushDecoder(nil)
	for _, m := range []string{
		`{"code":1,"msg":"Connected Successfully"}`,
		`{"code":1,"resAc":"auth","msg":"authenticated","data":{"params":"x"}}`,
		`{"resAc":"pong","data":{"params":"1731888000000"}}`,
		`{"code":"E003","resAc":"subscribe","msg":"exceeding the maximum subscription limit"}`,
		`{"code":1,"RESAC":"subscribe","data":[]}`,
		`{"code":0,"msg":"auth failed","data":null}`,
		`{"code":1,"data":{"params":"x"}}`,
	} {
		if kind, ev, err := p.decode([]byte(m)); kind != msgReply {
			t.Errorf("decode(%s) = %v, %v, %v, want a reply", m, kind, ev, err)
		}
	}
	for _, m := range []string{`{"code":1,"data":[]}`, `{"data":{"s":"A","type":"quote","ld":"x"}}`, `[]`, `{"data":{}`} {
		if kind, ev, err := p.decode([]byte(m)); kind != msgPush || err == nil {
			t.Errorf("decode(%s) = %v, %v, %v, want a failed push", m, kind, ev, err)
		}
	}
}
