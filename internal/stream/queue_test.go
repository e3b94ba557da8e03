package stream

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ev is a test event: control ones are upper case.
type ev string

func isControl(e ev) bool { return e != "" && e[0] >= 'A' && e[0] <= 'Z' }

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
			b := newBuffer(tc.maxData, tc.maxBytes, tc.dropNewest, isControl)
			dropped := 0
			for _, e := range tc.put {
				dropped += b.put(e, tc.size, false)
			}
			if diff := cmp.Diff(tc.want, drain(b)); diff != "" || dropped != tc.dropped {
				t.Errorf("held (-want +got):\n%s\ndropped %d, want %d", diff, dropped, tc.dropped)
			}
		})
	}
}

// Control events pass both bounds and are never dropped: a data event
// makes room instead, and a control event in the way of the oldest data
// event keeps its place among the control events, behind the data.
func TestBufferNeverDropsControlEvents(t *testing.T) {
	t.Parallel()
	for _, dropNewest := range []bool{false, true} {
		b := newBuffer(2, 1<<20, dropNewest, isControl)
		b.put("a", 1, false)
		b.put("b", 1, false)
		b.put("DOWN", 0, true) // past the data bound: room of its own
		b.put("c", 1, false)   // the policy drops a data event
		b.put("GAP", 0, true)
		want := []ev{"b", "DOWN", "c", "GAP"}
		if dropNewest {
			want = []ev{"a", "b", "DOWN", "GAP"}
		}
		if diff := cmp.Diff(want, drain(b)); diff != "" {
			t.Errorf("dropNewest %v: held (-want +got):\n%s", dropNewest, diff)
		}
	}

	b := newBuffer(2, 1<<20, false, isControl)
	b.put("DOWN", 0, true)
	b.put("a", 1, false)
	b.put("b", 1, false)
	if dropped := b.put("c", 1, false); dropped != 1 {
		t.Errorf("dropped %d, want 1", dropped)
	}
	if diff := cmp.Diff([]ev{"b", "DOWN", "c"}, drain(b)); diff != "" {
		t.Errorf("a control event at the front (-want +got):\n%s", diff)
	}
}

// Only a flood of control events at a consumer that reads nothing fills
// their room; then an arriving one is dropped and counted, and the memory
// held stays bounded.
func TestBufferControlRoomIsBounded(t *testing.T) {
	t.Parallel()
	b := newBuffer(4, 1<<20, false, isControl)
	dropped := 0
	for range controlRoom + 4 + 10 {
		dropped += b.put("ERR", 0, true)
	}
	if n := len(drain(b)); n != controlRoom+4 || dropped != 10 {
		t.Errorf("held %d and dropped %d, want %d and 10", n, dropped, controlRoom+4)
	}
}

// The accounts follow what the consumer takes, while it takes it.
func TestBufferAccountsForWhatTheConsumerTakes(t *testing.T) {
	t.Parallel()
	b := newBuffer(8, 64, false, isControl)
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
			b.put("X", 0, true)
		}
		b.put("d", 8, false)
	}
	close(done)
	wg.Wait()
	drain(b)
	b.mu.Lock()
	b.sync()
	data, bytes, controls := b.data, b.bytes, b.controls
	b.mu.Unlock()
	if data != 0 || bytes != 0 || controls != 0 {
		t.Errorf("after the consumer took everything: data %d, bytes %d, controls %d; want 0", data, bytes, controls)
	}
}
