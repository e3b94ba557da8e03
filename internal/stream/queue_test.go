package stream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ev is a test event: data in lower case, disconnects and gaps in upper
// case, errors "ERR <text>".
type ev string

func errEvent(_ int, err error) ev { return ev("ERR " + err.Error()) }

func drain(b *buffer[ev]) []ev {
	var out []ev
	for {
		select {
		case e := <-b.ch:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestBufferBoundsDataEventsByCountAndBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		maxData    int
		maxBytes   int64
		dropNewest bool
		put        []ev
		size       int64
		want       []ev
		dropped    int
	}{
		{"count, drop oldest", 3, 1 << 20, false, []ev{"a", "b", "c", "d", "e"}, 10, []ev{"c", "d", "e"}, 2},
		{"count, drop newest", 3, 1 << 20, true, []ev{"a", "b", "c", "d", "e"}, 10, []ev{"a", "b", "c"}, 2},
		{"bytes, drop oldest", 100, 100, false, []ev{"a", "b", "c", "d"}, 40, []ev{"c", "d"}, 2},
		{"bytes, drop newest", 100, 100, true, []ev{"a", "b", "c", "d"}, 40, []ev{"a", "b"}, 2},
		{"one event over the bytes still goes when alone", 10, 5, false, []ev{"a", "b"}, 40, []ev{"b"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBuffer(tc.maxData, tc.maxBytes, tc.dropNewest, errEvent)
			dropped := 0
			for _, e := range tc.put {
				dropped += b.putData(e, tc.size)
			}
			if diff := cmp.Diff(tc.want, drain(b)); diff != "" || dropped != tc.dropped {
				t.Errorf("held (-want +got):\n%s\ndropped %d, want %d", diff, dropped, tc.dropped)
			}
		})
	}
}

// Control events pass both bounds, are never dropped and are never moved:
// while one waits, the policy drops the arriving data event, whatever it
// is, so that nothing put after it is read before it. Once the consumer has
// taken it, DropOldest drops the oldest again.
func TestBufferKeepsControlEventsInTheirPlace(t *testing.T) {
	t.Parallel()
	for _, dropNewest := range []bool{false, true} {
		b := newBuffer(2, 1<<20, dropNewest, errEvent)
		b.putData("a", 1)
		b.putData("b", 1)
		b.putEvent(t.Context(), "DOWN") // past the data bound: room of its own
		if n := b.putData("c", 1); n != 1 {
			t.Errorf("dropNewest %v: %d dropped for c, want 1 (the arriving one)", dropNewest, n)
		}
		b.putError(0, errors.New("bad frame"))
		b.putEvent(t.Context(), "GAP")
		want := []ev{"a", "b", "DOWN", "ERR bad frame", "GAP"}
		if diff := cmp.Diff(want, drain(b)); diff != "" {
			t.Errorf("dropNewest %v: held (-want +got):\n%s", dropNewest, diff)
		}
	}

	b := newBuffer(2, 1<<20, false, errEvent)
	b.putEvent(t.Context(), "DOWN")
	b.putData("a", 1)
	b.putData("b", 1)
	b.putData("c", 1) // DOWN waits at the front: c goes
	if got := <-b.ch; got != "DOWN" {
		t.Fatalf("first %q, want DOWN", got)
	}
	b.putData("d", 1) // the oldest goes again
	if diff := cmp.Diff([]ev{"b", "d"}, drain(b)); diff != "" {
		t.Errorf("after the consumer took DOWN (-want +got):\n%s", diff)
	}
}

// A flood of errors at a consumer that reads nothing takes no more than
// the errors' room: the rest are counted in one error event put before
// the next disconnect, which always finds room, as does its gap.
func TestBufferSummarisesAnErrorFlood(t *testing.T) {
	t.Parallel()
	b := newBuffer(4, 1<<20, false, errEvent)
	for i := range 1100 {
		b.putError(0, fmt.Errorf("frame %d", i))
	}
	b.putEvent(t.Context(), "DOWN")
	b.putEvent(t.Context(), "GAP")
	got := drain(b)
	if len(got) != errRoom+2 {
		t.Fatalf("%d events held, want %d errors and a disconnect and gap", len(got), errRoom)
	}
	summary := fmt.Sprintf("ERR itick: stream: %d error(s) left out while the consumer was behind; the last: frame 1099", 1100-(errRoom-1))
	want := []ev{ev("ERR frame " + strconv.Itoa(errRoom-2)), ev(summary), "DOWN", "GAP"}
	if diff := cmp.Diff(want, got[errRoom-2:]); diff != "" {
		t.Errorf("the end of the flood (-want +got):\n%s", diff)
	}

	// A summary waits for room, and data pass it meanwhile.
	b = newBuffer(8, 1<<20, false, errEvent)
	for i := range errRoom + 10 {
		b.putError(1, fmt.Errorf("frame %d", i))
	}
	b.putData("a", 1) // the summary of 11 takes the errors' last place
	for i := range 5 {
		b.putError(1, fmt.Errorf("late %d", i))
	}
	b.putData("b", 1)
	for range 3 {
		<-b.ch
	}
	b.putData("c", 1)
	got = drain(b)
	leftOut := func(n int, last string) ev {
		return ev(fmt.Sprintf("ERR itick: stream: %d error(s) left out while the consumer was behind; the last: %s", n, last))
	}
	want = []ev{leftOut(11, "frame 265"), "a", "b", leftOut(5, "late 4"), "c"}
	if diff := cmp.Diff(want, got[len(got)-5:]); diff != "" {
		t.Errorf("after the consumer took some (-want +got):\n%s", diff)
	}
}

// A disconnect that finds the channel full waits for the consumer, and
// nothing put meanwhile gets in before it; the end of its context ends
// the wait.
func TestBufferDisconnectWaitsForRoom(t *testing.T) {
	t.Parallel()
	b := newBufferRoom(2, 1<<20, false, errEvent, 2, 2)
	b.putData("a", 1)
	b.putData("b", 1)
	b.putEvent(t.Context(), "D1")
	b.putEvent(t.Context(), "D2") // the channel is full now
	sent := make(chan bool)
	go func() { sent <- b.putEvent(t.Context(), "D3") }()
	for { // until D3 waits
		b.mu.Lock()
		waiting := b.unsent
		b.mu.Unlock()
		if waiting == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if n := b.putData("c", 1); n != 1 {
		t.Errorf("data while D3 waits: %d dropped, want 1", n)
	}
	b.putError(0, errors.New("late"))
	if got := <-b.ch; got != "a" {
		t.Fatalf("first %q, want a", got)
	}
	if !<-sent {
		t.Fatal("D3 was not put")
	}
	b.putData("d", 1)
	want := []ev{"b", "D1", "D2", "D3"}
	if diff := cmp.Diff(want, drain(b)); diff != "" {
		t.Errorf("held (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithCancel(t.Context())
	full := newBufferRoom(1, 1<<20, false, errEvent, 1, 1)
	full.putData("a", 1)
	full.putEvent(ctx, "D1")
	go func() { sent <- full.putEvent(ctx, "D2") }()
	cancel()
	if <-sent {
		t.Error("a wait whose context ended reported D2 put")
	}
	full.putData("b", 1)
	if diff := cmp.Diff([]ev{"a", "D1"}, drain(full)); diff != "" {
		t.Errorf("after the wait ended (-want +got):\n%s", diff)
	}
}

// Whatever the policy, and while the consumer reads and falls behind now
// and then, events are read in the order they were put: the numbers read
// only grow, and every disconnect and gap is read.
func TestBufferNeverReorders(t *testing.T) {
	t.Parallel()
	for _, dropNewest := range []bool{false, true} {
		b := newBufferRoom(8, 1<<20, dropNewest, errEvent, 8, 4)
		read := make(chan []ev)
		go func() {
			var got []ev
			for e := range b.ch {
				got = append(got, e)
				if len(got)%7 == 0 {
					time.Sleep(10 * time.Microsecond)
				}
			}
			read <- got
		}()
		for i := range 20000 {
			switch {
			case i%100 == 50:
				b.putEvent(t.Context(), ev("E"+strconv.Itoa(i)))
			case i%300 == 10:
				b.putError(0, errors.New(strconv.Itoa(i)))
			default:
				b.putData(ev(strconv.Itoa(i)), 1)
			}
		}
		b.close()
		got := <-read
		last, events := -1, 0
		for _, e := range got {
			s := string(e)
			if strings.Contains(s, "left out") {
				continue
			}
			if s[0] == 'E' && !strings.HasPrefix(s, "ERR ") {
				events++
			}
			n, err := strconv.Atoi(strings.TrimLeft(s, "ER "))
			if err != nil {
				t.Fatalf("read %q", s)
			}
			if n <= last {
				t.Fatalf("dropNewest %v: %s read after %d", dropNewest, s, last)
			}
			last = n
		}
		if events != 200 {
			t.Errorf("dropNewest %v: %d disconnects and gaps read, want every one of 200", dropNewest, events)
		}
	}
}

// The accounts follow what the consumer takes, while it takes it.
func TestBufferAccountsForWhatTheConsumerTakes(t *testing.T) {
	t.Parallel()
	b := newBuffer(8, 64, false, errEvent)
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-b.ch:
			case <-done:
				return
			}
		}
	}()
	for i := range 20000 {
		if i%100 == 0 {
			b.putEvent(t.Context(), "X")
		}
		if i%150 == 0 {
			b.putError(0, errors.New("x"))
		}
		b.putData("d", 8)
	}
	close(done)
	wg.Wait()
	drain(b)
	b.mu.Lock()
	b.sync()
	data, bytes, errs, events := b.data, b.bytes, b.errs, b.events
	b.mu.Unlock()
	if data != 0 || bytes != 0 || errs != 0 || events != 0 {
		t.Errorf("after the consumer took everything: data %d, bytes %d, errors %d, events %d; want 0", data, bytes, errs, events)
	}
}
