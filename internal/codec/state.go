// Package codec decodes and encodes the service's JSON through tables of
// each model's wire fields, over the wire scanner.
//
// A model is a Model[T], built once by Describe from the itick tags of
// T's fields: the tag names the wire key and, where the Go type alone
// does not say how the service sends the value, its kind (kinds.go). Each
// field of the table says where its value sits in T and how it is read
// and written back. Responses, stream pushes and each model's
// UnmarshalJSON read through the same tables; MarshalJSON writes them.
// The kinds follow the service's tolerant wire types: numbers may arrive
// as JSON strings, "" and null read as zero, strings may arrive as bare
// numbers, and keys match as encoding/json matches struct fields.
//
// Around the models: the envelope every response comes in and the success
// rule (envelope.go), and naming where a decode failed without quoting
// what was there (locate.go).
package codec

import (
	"sync"
	"sync/atomic"

	"github.com/d19c4e34/itick/internal/wire"
)

// State is one decode: the scanner, and scratch kept between decodes so
// that a result is built in reused buffers and copied out at its final
// size. Get hands out pooled States for one response each; a stream
// connection keeps its own, which interns the strings it reads.
type State struct {
	D wire.Decoder

	names Interner // nil: no interning
	slots []any    // by Scratch id: each a *T of that Scratch
	big   bool     // a slot grew past maxScratch: not pooled again
}

var statePool = sync.Pool{New: func() any { return new(State) }}

// MaxScratch bounds, in elements, the buffers a pooled State keeps.
const MaxScratch = 1 << 16

// Get returns a pooled State over b.
func Get(b []byte) *State {
	st := statePool.Get().(*State)
	st.D.Reset(b)
	return st
}

// GetBlocks returns a pooled State over a document held in blocks.
func GetBlocks(blocks [][]byte) *State {
	st := statePool.Get().(*State)
	st.D.ResetBlocks(blocks)
	return st
}

// Put gives a State from Get back, unless its scratch grew too large to
// keep.
func Put(st *State) {
	st.D.Reset(nil)
	if st.big || st.names != nil {
		return
	}
	statePool.Put(st)
}

// NewState returns a State of its own, for a caller that decodes many
// documents in turn (one stream connection) and reuses the strings they
// repeat. Reset it with st.D.Reset for each document.
func NewState() *State { return &State{names: make(Interner)} }

// Interned is how many strings st keeps for reuse.
func (st *State) Interned() int { return len(st.names) }

// Str returns b as a string: s itself when they are equal (a symbol is
// usually the key it came under), else the interned copy when the State
// interns, else a new string.
func (st *State) Str(b []byte, s string) string {
	if string(b) == s {
		return s
	}
	if st.names != nil {
		return st.names.Get(b)
	}
	return string(b)
}

// Scratch is a value of T that every State keeps for reuse, such as the
// buffer a list is read into before it is copied out. Make one per use,
// at package level.
type Scratch[T any] struct {
	id int
}

var slots atomic.Int32

// NewScratch returns a new kind of scratch value.
func NewScratch[T any]() *Scratch[T] { return &Scratch[T]{id: int(slots.Add(1)) - 1} }

// Get returns st's value of this kind, made on first use.
func (s *Scratch[T]) Get(st *State) *T {
	if s.id >= len(st.slots) {
		st.slots = append(st.slots, make([]any, s.id+1-len(st.slots))...)
	}
	v, ok := st.slots[s.id].(*T)
	if !ok {
		v = new(T)
		st.slots[s.id] = v
	}
	return v
}

// Buffer is a slice of E every State keeps for reuse.
type Buffer[E any] struct{ s *Scratch[[]E] }

// NewBuffer returns a new kind of buffer.
func NewBuffer[E any]() Buffer[E] { return Buffer[E]{NewScratch[[]E]()} }

// Take returns st's buffer, empty.
func (b Buffer[E]) Take(st *State) []E { return (*b.s.Get(st))[:0] }

// Keep stores s, the buffer Take returned after appending to it, for the
// next Take; its elements are cleared so that it holds on to nothing.
func (b Buffer[E]) Keep(st *State, s []E) {
	clear(s)
	if cap(s) > MaxScratch {
		st.big = true
	}
	*b.s.Get(st) = s[:0]
}

// MaxInterned bounds the strings an Interner keeps, so that a server
// sending ever new symbols costs an allocation each, not memory without
// limit.
const MaxInterned = 4096

// maxInternedLen bounds the length of a string an Interner keeps.
const maxInternedLen = 64

// Interner returns one string per distinct short byte sequence it has
// seen: codes and regions repeat in every push of a connection.
type Interner map[string]string

// Get returns b as a string, the same one each time while the Interner
// has room.
func (in Interner) Get(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in) < MaxInterned && len(b) <= maxInternedLen {
		in[s] = s
	}
	return s
}
