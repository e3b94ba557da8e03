package stream

import "sync"

// buffer is the channel events wait on for the consumer, bounded in data
// events and in the bytes they were decoded from, whichever bound comes
// first. The socket readers never block on it: when a data event would
// pass a bound, the overflow policy drops one (the oldest waiting, or the
// arriving one). Control events (disconnects, gaps, errors) are never
// dropped by the policy: they pass both bounds, into room of their own
// beside the data events. One that stands in the way of the oldest data
// event is moved behind the data events waiting, among the other control
// events in their order. Only a server that floods errors at a consumer
// that has stopped reading fills their room; one arriving then is dropped
// and counted.
//
// The consumer reads the channel directly. The buffer learns what it took
// from the channel's length: sizes lists the entries it put, oldest first,
// and whatever the channel no longer holds of them was taken.
type buffer[E any] struct {
	ch        chan E
	isControl func(E) bool

	mu       sync.Mutex
	sizes    []entry // the entries in ch, oldest first: a ring from head
	head     int
	data     int   // data events in ch
	bytes    int64 // their bytes
	controls int   // control events in ch

	maxData    int
	maxBytes   int64
	dropNewest bool
}

type entry struct {
	size    int64
	control bool
}

// controlRoom is the room control events have beside the data events.
const controlRoom = 1024

func newBuffer[E any](maxData int, maxBytes int64, dropNewest bool, isControl func(E) bool) *buffer[E] {
	return &buffer[E]{ch: make(chan E, maxData+controlRoom), isControl: isControl,
		sizes:   make([]entry, 0, min(maxData+controlRoom, 1024)),
		maxData: maxData, maxBytes: maxBytes, dropNewest: dropNewest}
}

// put hands ev, decoded from size bytes, to the consumer, and returns how
// many events it dropped to do so (the arriving one included).
func (b *buffer[E]) put(ev E, size int64, control bool) (dropped int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	var kept []E // control events taken from the front while making room
	if control {
		// Make room by dropping the oldest data event, if there is one.
		for len(b.ch)+len(kept) >= cap(b.ch) && b.data > 0 {
			if b.evict(&kept) {
				dropped++
			}
		}
	} else {
		for b.data > 0 && (b.data >= b.maxData || b.bytes+size > b.maxBytes) {
			if b.dropNewest {
				b.putBack(kept)
				return dropped + 1
			}
			if b.evict(&kept) {
				dropped++
			} else if len(b.ch) == 0 {
				break
			}
		}
	}
	b.putBack(kept)
	if !b.send(ev, size, control) {
		dropped++
	}
	return dropped
}

// sync forgets the entries the consumer has taken.
func (b *buffer[E]) sync() {
	for taken := len(b.sizes) - b.head - len(b.ch); taken > 0; taken-- {
		b.forget()
	}
}

// forget removes the oldest entry from the accounts.
func (b *buffer[E]) forget() {
	e := b.sizes[b.head]
	b.head++
	if e.control {
		b.controls--
	} else {
		b.data--
		b.bytes -= e.size
	}
	if b.head > cap(b.sizes)/2 { // compact the ring's dead front
		b.sizes = append(b.sizes[:0], b.sizes[b.head:]...)
		b.head = 0
	}
}

// evict takes the oldest event off the channel: a data event is dropped
// (true), a control event kept to be put back behind the others. The
// consumer may take events meanwhile; sync accounts for both.
func (b *buffer[E]) evict(kept *[]E) bool {
	select {
	case ev := <-b.ch:
		b.sync()
		if b.isControl(ev) {
			*kept = append(*kept, ev)
			return false
		}
		return true
	default:
		b.sync()
		return false
	}
}

// putBack sends control events taken while making room, in their order.
func (b *buffer[E]) putBack(kept []E) {
	for _, ev := range kept {
		b.send(ev, 0, true)
	}
}

// send puts ev on the channel if it has room.
func (b *buffer[E]) send(ev E, size int64, control bool) bool {
	select {
	case b.ch <- ev:
		b.sizes = append(b.sizes, entry{size: size, control: control})
		if control {
			b.controls++
		} else {
			b.data++
			b.bytes += size
		}
		return true
	default:
		return false
	}
}
