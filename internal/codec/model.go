package codec

import (
	"reflect"
	"unsafe"

	"github.com/d19c4e34/itick/internal/wire"
)

// Model is how one type is read and written: the table of its wire
// fields, built by Describe from the type's tags.
type Model[T any] struct {
	t    *table
	list Buffer[T]
}

// Field is a member of a model's wire form read and written by hand, for
// Describe: its name, what its value must be (for a refusal's message),
// how it is read into T and written back (nil: never written). Dec
// receives the key the whole value came under in a map, if any.
type Field[T any] struct {
	Name string
	Want string
	Dec  func(st *State, v *T, key string) error
	Enc  func(b []byte, v *T) ([]byte, error)
}

// A Part is what Describe takes beside the tags: the model of a type that
// a field lists or inlines, or a Field read and written by hand.
type Part interface{ part() }

func (*Model[T]) part() {}

func (Field[T]) part() {}

// field is one member of a table: where its value sits in the object
// (off) and its kind's reader and writer, which take that place.
type field struct {
	name string
	kind string // the kind's name, to tell fields that can share a key
	want string
	off  uintptr
	dec  func(st *State, p unsafe.Pointer, key string) error
	enc  func(b []byte, p unsafe.Pointer) ([]byte, error) // nil: not written
	copy func(dst, src unsafe.Pointer)                    // copies the value, for a key shared by inlined models
}

// table is the wire form of one struct type, or of one nested object of
// it: its fields, their names for the scanner, and the lists it reads
// together (nil: none).
type table struct {
	typ      reflect.Type
	fields   []field
	names    *wire.Fields
	together lists
}

func newTable(typ reflect.Type, fields []field, together lists) *table {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return &table{typ: typ, fields: fields, names: wire.NewFields(names...), together: together}
}

// into decodes the object at the scanner into the value at p, over what
// it holds, as encoding/json decodes into a struct: null leaves it as it
// is, anything but an object is refused where it starts. key is the map
// key the value came under, if any.
func (t *table) into(st *State, p unsafe.Pointer, key string) error {
	d := &st.D
	empty, err := Enter(d, '{')
	if err != nil || empty {
		return err
	}
	if t.together != nil {
		t.together.begin(st)
	}
	prev := -1 // keys mostly come in the table's order
	for more := true; more; {
		k, err := d.Key()
		if err != nil {
			return err
		}
		if i := t.names.IndexAfter(k, prev); i < 0 {
			err = d.Skip()
		} else {
			prev = i
			f := &t.fields[i]
			start := d.Offset()
			if err = f.dec(st, unsafe.Add(p, f.off), key); err != nil {
				err = Refusal(start, err, f.want)
			}
		}
		if err != nil {
			return err
		}
		if more, err = d.Next('}'); err != nil {
			return err
		}
	}
	if t.together != nil {
		t.together.end(st, p)
	}
	return nil
}

// append appends the wire form of the value at p: every written field, in
// the table's order.
func (t *table) append(b []byte, p unsafe.Pointer) ([]byte, error) {
	b = append(b, '{')
	first := true
	for i := range t.fields {
		f := &t.fields[i]
		if f.enc == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		var err error
		if b, err = f.enc(b, unsafe.Add(p, f.off)); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// Into decodes the object at the scanner into v, over what v holds, as
// encoding/json decodes into a struct: null leaves v as it is, anything
// but an object is refused where it starts. key is the map key the value
// came under, if any.
func (m *Model[T]) Into(st *State, v *T, key string) error {
	return m.t.into(st, unsafe.Pointer(v), key)
}

// Ptr reads the object at the scanner into a new T; null is nil.
func (m *Model[T]) Ptr(st *State) (*T, error) {
	if st.D.Null() {
		return nil, nil
	}
	v := new(T)
	if err := m.Into(st, v, ""); err != nil {
		return nil, err
	}
	return v, nil
}

// List reads an array of T into a slice of its length, each element read
// into the State's buffer and the whole copied out once: null is a nil
// slice, [] an empty one.
func (m *Model[T]) List(st *State) ([]T, error) {
	return ReadList(st, m.list, m.Into)
}

// Append appends v's wire form: every field, in the table's order.
func (m *Model[T]) Append(b []byte, v *T) ([]byte, error) { return m.t.append(b, unsafe.Pointer(v)) }

// Marshal is a model's MarshalJSON.
func (m *Model[T]) Marshal(v *T) ([]byte, error) { return m.Append(make([]byte, 0, 128), v) }

// Unmarshal is a model's UnmarshalJSON: the whole of b is one value, read
// into a zero T that replaces v only when all of b decoded.
func (m *Model[T]) Unmarshal(b []byte, v *T) error { return Unmarshal(b, v, m.Into) }

// ReadList reads the array at the scanner with elem, each element into
// buf's scratch, and returns a copy of its length: null is a nil slice,
// [] an empty one. elem must not read into buf itself.
func ReadList[E any](st *State, buf Buffer[E], elem func(st *State, e *E, key string) error) ([]E, error) {
	es := buf.Take(st)
	defer func() { buf.Keep(st, es) }()
	var zero E
	isNull, err := EachElem(&st.D, func() error {
		es = append(es, zero)
		return elem(st, &es[len(es)-1], "")
	})
	if isNull || err != nil {
		return nil, err
	}
	out := make([]E, len(es))
	copy(out, es)
	return out, nil
}

// Map reads objects keyed by code, each value with one reader.
type Map[V any] struct {
	value func(st *State, v *V, key string) error
	pairs Buffer[keyed[V]]
}

type keyed[V any] struct {
	k string
	v V
}

// NewMap returns the reader of objects whose members are each read by
// value.
func NewMap[V any](value func(st *State, v *V, key string) error) *Map[V] {
	return &Map[V]{value: value, pairs: NewBuffer[keyed[V]]()}
}

// Read reads the object at the scanner into a map made at its final size;
// a later duplicate key wins, and null is a nil map. Its keys are codes, at
// most MaxCode bytes.
func (m *Map[V]) Read(st *State) (map[string]V, error) {
	pairs := m.pairs.Take(st)
	defer func() { m.pairs.Keep(st, pairs) }()
	isNull, err := eachMember(&st.D, MaxCode, func(k []byte) error {
		key := string(k)
		pairs = append(pairs, keyed[V]{k: key})
		return m.value(st, &pairs[len(pairs)-1].v, key)
	})
	if isNull || err != nil {
		return nil, err
	}
	out := make(map[string]V, len(pairs))
	for _, p := range pairs {
		out[p.k] = p.v
	}
	return out, nil
}

// Enter opens the object or array (open) at the scanner. A null is an
// empty container; a value of another type is refused where it starts.
func Enter(d *wire.Decoder, open byte) (empty bool, err error) {
	if d.Null() {
		return true, nil
	}
	if c := d.Peek(); c != open && c != 0 {
		want := "an object"
		if open == '[' {
			want = "an array"
		}
		return false, &ValueError{Off: d.Offset(), Want: want}
	}
	return d.Enter(open)
}

// EachElem calls elem for every element of the array at the scanner, the
// scanner at the element's start; null is no array at all (isNull), and
// any other type is refused where it starts.
func EachElem(d *wire.Decoder, elem func() error) (isNull bool, err error) {
	if d.Null() {
		return true, nil
	}
	empty, err := Enter(d, '[')
	for more := !empty; more && err == nil; {
		if err = elem(); err == nil {
			more, err = d.Next(']')
		}
	}
	return false, err
}

// EachMember calls member for every member of the object at the scanner,
// with its key (valid until the next read) and the scanner at its value;
// null is no object at all (isNull).
func EachMember(d *wire.Decoder, member func(key []byte) error) (isNull bool, err error) {
	return eachMember(d, -1, member)
}

// eachMember is EachMember refusing keys longer than keyLimit (when >= 0).
func eachMember(d *wire.Decoder, keyLimit int, member func(key []byte) error) (isNull bool, err error) {
	if d.Null() {
		return true, nil
	}
	empty, err := Enter(d, '{')
	for more := !empty; more && err == nil; {
		var k []byte
		if k, err = d.KeyMax(keyLimit); err == nil {
			if err = member(k); err == nil {
				more, err = d.Next('}')
			}
		}
	}
	return false, err
}

// Unmarshal reads the whole of b as one value with into, and stores it in v
// only when it decoded.
func Unmarshal[T any](b []byte, v *T, into func(st *State, v *T, key string) error) error {
	st := Get(b)
	defer Put(st)
	got := new(T)
	err := into(st, got, "")
	if err == nil {
		err = st.D.End()
	}
	if err != nil {
		return WithBuffer(b, err)
	}
	*v = *got
	return nil
}
