package codec

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

func TestInternerIsBounded(t *testing.T) {
	t.Parallel()
	in := make(Interner)
	a, b := in.Get([]byte("AAPL")), in.Get([]byte("AAPL"))
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("a repeated string is not reused")
	}
	for i := range 3 * MaxInterned {
		if got, want := in.Get(fmt.Appendf(nil, "C%d", i)), fmt.Sprintf("C%d", i); got != want {
			t.Fatalf("Get = %q, want %q", got, want)
		}
	}
	if len(in) > MaxInterned {
		t.Errorf("%d strings kept, want at most %d", len(in), MaxInterned)
	}
	long := strings.Repeat("x", maxInternedLen+1)
	if in.Get([]byte(long)); len(in) > MaxInterned {
		t.Errorf("a long string was kept")
	}
}

func TestScratchIsPerState(t *testing.T) {
	t.Parallel()
	sc := NewScratch[[]int]()
	s1, s2 := NewState(), NewState()
	*sc.Get(s1) = append(*sc.Get(s1), 1, 2)
	if got := *sc.Get(s2); len(got) != 0 {
		t.Errorf("a second State sees %v, want its own empty scratch", got)
	}
	if got := *sc.Get(s1); len(got) != 2 {
		t.Errorf("the State lost its scratch: %v", got)
	}
}

func TestBufferKeepsItsCapacityAndDropsHugeOnes(t *testing.T) {
	t.Parallel()
	buf := NewBuffer[string]()
	st := Get(nil)
	s := append(buf.Take(st), "a", "b")
	buf.Keep(st, s)
	if got := buf.Take(st); len(got) != 0 || cap(got) < 2 {
		t.Errorf("Take after Keep = len %d cap %d, want empty with the room kept", len(got), cap(got))
	}
	if s[0] != "" {
		t.Error("Keep left a reference in the buffer")
	}
	buf.Keep(st, make([]string, 0, MaxScratch+1))
	if !st.big {
		t.Error("a buffer over MaxScratch does not keep its State out of the pool")
	}
	Put(st)
}
