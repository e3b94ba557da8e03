package codec

import (
	"reflect"
	"strings"
	"unsafe"
)

// Together is a Part of Describe: the list fields it names, all of one
// element type, are read into the State's scratch and copied out when
// their object ends, in one allocation, each capped at its length: a
// book's two sides cost one allocation, not two.
func Together(names ...string) Part { return togetherPart(names) }

type togetherPart []string

func (togetherPart) part() {}

// lists reads some list fields of an object together: begin when the
// object opens, each list's own reader as its key comes, end when the
// object closes, which stores them in the object at p.
type lists interface {
	begin(st *State)
	end(st *State, p unsafe.Pointer)
}

// together makes the fields of typ named in names read together.
func (b *builder) together(typ reflect.Type, names []string) lists {
	var elem modelPart
	var at []int
	for _, name := range names {
		i := -1
		for j, e := range b.entries {
			if len(e.path) == 1 && e.path[0] == name && e.elem != nil && e.depth == 0 {
				i = j
			}
		}
		if i < 0 {
			panic("codec: " + typ.String() + " has no list field " + name + " to read together")
		}
		if elem != nil && b.entries[i].elem != elem {
			panic("codec: " + typ.String() + " reads lists of different types together: " + strings.Join(names, ", "))
		}
		elem = b.entries[i].elem
		at = append(at, i)
	}
	offs := make([]uintptr, len(at))
	for k, i := range at {
		offs[k] = b.entries[i].f.off
	}
	ls, reader := elem.together(offs)
	for k, i := range at {
		b.entries[i].f.dec = reader(k)
	}
	return ls
}

// listsOf reads lists of E together, in scratch of their own.
type listsOf[E any] struct {
	m       *Model[E]
	offs    []uintptr // where each list sits in its object
	scratch *Scratch[spans[E]]
}

// spans are the elements of one object's lists, each list's at its span.
type spans[E any] struct {
	elems []E
	at    []span
}

// span is where one list sits in the scratch; isSet tells an array (even
// empty) from null or absence, which leave nil.
type span struct {
	start, end int
	isSet      bool
}

func (m *Model[E]) together(offs []uintptr) (lists, func(i int) func(st *State, p unsafe.Pointer, key string) error) {
	l := &listsOf[E]{m: m, offs: offs, scratch: NewScratch[spans[E]]()}
	return l, l.reader
}

// begin empties the scratch for the next object, dropping a buffer a
// hostile one grew past what a State keeps.
func (l *listsOf[E]) begin(st *State) {
	s := l.scratch.Get(st)
	if cap(s.elems) > MaxScratch {
		s.elems = nil
	}
	s.elems = s.elems[:0]
	if s.at == nil {
		s.at = make([]span, len(l.offs))
	}
	clear(s.at)
}

// reader returns the reader of the i-th list, which reads an array of E
// into the scratch and notes where it sits.
func (l *listsOf[E]) reader(i int) func(st *State, p unsafe.Pointer, key string) error {
	return func(st *State, _ unsafe.Pointer, _ string) error {
		s := l.scratch.Get(st)
		sp := span{start: len(s.elems), isSet: true}
		var zero E
		isNull, err := EachElem(&st.D, func() error {
			s.elems = append(s.elems, zero)
			return l.m.Into(st, &s.elems[len(s.elems)-1], "")
		})
		if isNull || err != nil {
			s.at[i] = span{}
			return err
		}
		sp.end = len(s.elems)
		s.at[i] = sp
		return nil
	}
}

// end copies the lists out of the scratch into one allocation, each capped
// at its length; a list that was null or absent is nil. When none was
// set, the object's lists are left as they are.
func (l *listsOf[E]) end(st *State, p unsafe.Pointer) {
	s := l.scratch.Get(st)
	n, set := 0, false
	for _, sp := range s.at {
		n += sp.end - sp.start
		set = set || sp.isSet
	}
	if !set {
		return
	}
	all := make([]E, n)
	at := 0
	for i, sp := range s.at {
		dst := (*[]E)(unsafe.Add(p, l.offs[i]))
		if !sp.isSet {
			*dst = nil
			continue
		}
		k := copy(all[at:], s.elems[sp.start:sp.end])
		*dst = all[at : at+k : at+k]
		at += k
	}
}
