package stream

import (
	"context"
	"fmt"
	"sync"
)

// buffer is the channel events wait on for the consumer, bounded in data
// events and in the bytes they were decoded from, whichever bound comes
// first. The consumer reads the channel directly, so the order events are
// put in is the order they are read in: nothing is ever moved.
//
// The socket readers never block on it: when a data event would pass a
// bound, the overflow policy drops one, the oldest waiting or the arriving
// one. The oldest is taken off the front of the channel, which is safe
// only while no control event waits there (the consumer may take events
// meanwhile, and a control event taken off the front could not be put
// back in its place). So while a control event waits, even DropOldest
// drops the arriving event: nothing overtakes a disconnect, a gap or an
// error.
//
// Control events have room of their own beside the data events and pass
// both bounds. Errors may take at most errRoom of it: past that, they are
// counted, and one error event saying how many were left out (and the
// last of them) goes in as soon as there is room, before anything else is
// put. Disconnects and gaps are never left out: one that finds the
// channel full waits for the consumer to take an event (its goroutine
// blocks, the readers do not), and until it is in, data events are dropped
// and errors counted, so that nothing overtakes it.
//
// The buffer learns what the consumer took from the channel's length:
// sizes lists the entries put, oldest first, and whatever the channel no
// longer holds of them was taken.
type buffer[E any] struct {
	ch       chan E
	errEvent func(conn int, err error) E

	// turn lets one disconnect or gap at a time wait for room, so they go
	// in in the order they were put.
	turn chan struct{}

	mu     sync.Mutex
	sizes  []entry // the entries in ch, oldest first: a ring from head
	head   int
	data   int   // data events in ch
	bytes  int64 // their bytes
	errs   int   // error events in ch
	events int   // disconnects and gaps in ch
	unsent int   // a disconnect or gap waiting for room: the last entry

	leftOut  int   // errors counted instead of put
	lastConn int   // the last of them
	lastErr  error // its error

	maxData    int
	maxBytes   int64
	errRoom    int
	dropNewest bool
}

type kind uint8

const (
	kindData  kind = iota
	kindError      // an error, which may be left out and counted
	kindEvent      // a disconnect or a gap, which is never left out
)

type entry struct {
	size int64
	kind kind
}

// controlRoom is the room control events have beside the data events, and
// errRoom the part of it errors may take.
const (
	controlRoom = 1024
	errRoom     = 256
)

func newBuffer[E any](maxData int, maxBytes int64, dropNewest bool, errEvent func(conn int, err error) E) *buffer[E] {
	return newBufferRoom(maxData, maxBytes, dropNewest, errEvent, controlRoom, errRoom)
}

func newBufferRoom[E any](maxData int, maxBytes int64, dropNewest bool, errEvent func(conn int, err error) E,
	room, errs int) *buffer[E] {
	return &buffer[E]{ch: make(chan E, maxData+room), errEvent: errEvent, turn: make(chan struct{}, 1),
		sizes:   make([]entry, 0, min(maxData+room, 1024)),
		maxData: maxData, maxBytes: maxBytes, errRoom: errs, dropNewest: dropNewest}
}

// putData hands a data event, decoded from size bytes, to the consumer and
// returns how many events it dropped to do so (the arriving one included).
func (b *buffer[E]) putData(ev E, size int64) (dropped int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	if b.unsent > 0 {
		return 1 // a disconnect or gap waits for room: nothing overtakes it
	}
	b.flushLeftOut(false)
	for b.data > 0 && (b.data >= b.maxData || b.bytes+size > b.maxBytes) {
		if b.dropNewest || b.errs+b.events > 0 {
			return dropped + 1
		}
		if !b.dropOldest() {
			break // the consumer took what was there
		}
		dropped++
	}
	if !b.send(ev, size, kindData) {
		dropped++
	}
	return dropped
}

// putError hands the consumer the error event of err on connection conn,
// or counts it when errors fill their room.
func (b *buffer[E]) putError(conn int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	// Room for this error, and for the summary of those left out before.
	if b.unsent == 0 && b.errs < b.errRoom-1 && b.flushLeftOut(false) && b.send(b.errEvent(conn, err), 0, kindError) {
		return
	}
	b.leftOut++
	b.lastConn, b.lastErr = conn, err
}

// putEvent hands the consumer a disconnect or a gap. It never leaves one
// out: when the channel is full, it waits for the consumer to take an
// event, unless ctx ends first (false).
func (b *buffer[E]) putEvent(ctx context.Context, ev E) bool {
	select {
	case b.turn <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-b.turn }()
	b.mu.Lock()
	b.sync()
	b.flushLeftOut(false)
	if b.send(ev, 0, kindEvent) {
		b.mu.Unlock()
		return true
	}
	b.sizes = append(b.sizes, entry{kind: kindEvent})
	b.events++
	b.unsent++
	b.mu.Unlock()

	sent := false
	select {
	case b.ch <- ev:
		sent = true
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unsent--
	if !sent {
		b.sizes = b.sizes[:len(b.sizes)-1] // nothing was put after it
		b.events--
	}
	return sent
}

// close puts the summary of the errors left out, if there is room for it
// anywhere, and closes the channel. Nothing is put any more.
func (b *buffer[E]) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sync()
	b.flushLeftOut(true)
	close(b.ch)
}

// flushLeftOut puts the error event that counts the errors left out, and
// reports whether none is left to put. Past the errors' room, only when
// closing.
func (b *buffer[E]) flushLeftOut(closing bool) bool {
	if b.leftOut == 0 {
		return true
	}
	if b.unsent > 0 || b.errs >= b.errRoom && !closing {
		return false
	}
	err := fmt.Errorf("itick: stream: %d error(s) left out while the consumer was behind; the last: %w", b.leftOut, b.lastErr)
	if !b.send(b.errEvent(b.lastConn, err), 0, kindError) {
		return false
	}
	b.leftOut, b.lastErr = 0, nil
	return true
}

// sync forgets the entries the consumer has taken.
func (b *buffer[E]) sync() {
	for taken := len(b.sizes) - b.head - len(b.ch) - b.unsent; taken > 0; taken-- {
		b.forget()
	}
}

// forget removes the oldest entry from the accounts.
func (b *buffer[E]) forget() {
	e := b.sizes[b.head]
	b.head++
	switch e.kind {
	case kindData:
		b.data--
		b.bytes -= e.size
	case kindError:
		b.errs--
	case kindEvent:
		b.events--
	}
	if b.head > cap(b.sizes)/2 { // compact the ring's dead front
		b.sizes = append(b.sizes[:0], b.sizes[b.head:]...)
		b.head = 0
	}
}

// dropOldest takes the oldest event off the channel, a data event since no
// control event waits there, and reports whether there was one. The
// consumer may take events meanwhile; sync accounts for both.
func (b *buffer[E]) dropOldest() bool {
	select {
	case <-b.ch:
		b.sync()
		return true
	default:
		b.sync()
		return false
	}
}

// send puts ev on the channel if it has room.
func (b *buffer[E]) send(ev E, size int64, k kind) bool {
	select {
	case b.ch <- ev:
		b.sizes = append(b.sizes, entry{size: size, kind: k})
		switch k {
		case kindData:
			b.data++
			b.bytes += size
		case kindError:
			b.errs++
		case kindEvent:
			b.events++
		}
		return true
	default:
		return false
	}
}
