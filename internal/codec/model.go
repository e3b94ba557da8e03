package codec

import (
	"github.com/d19c4e34/itick/internal/wire"
)

// Field is one member of a model's wire form: its name, what its value
// must be (for a refusal's message), how it is read into T and written
// back. Dec receives the key the whole value came under in a map, if any.
type Field[T any] struct {
	Name string
	Want string
	Dec  func(st *State, v *T, key string) error
	Enc  func(b []byte, v *T) ([]byte, error)
}

// Model is a table of fields: how one type is read and written.
type Model[T any] struct {
	fields []Field[T]
	names  *wire.Fields
	list   Buffer[T]
}

// NewModel returns the model of T with the given fields, written in their
// order.
func NewModel[T any](fields ...Field[T]) *Model[T] {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return &Model[T]{fields: fields, names: wire.NewFields(names...), list: NewBuffer[T]()}
}

// Into decodes the object at the scanner into v, over what v holds, as
// encoding/json decodes into a struct: null leaves v as it is, anything
// but an object is refused where it starts. key is the map key the value
// came under, if any.
func (m *Model[T]) Into(st *State, v *T, key string) error {
	d := &st.D
	empty, err := Enter(d, '{')
	if err != nil || empty {
		return err
	}
	prev := -1 // keys mostly come in the table's order
	for more := true; more; {
		k, err := d.Key()
		if err != nil {
			return err
		}
		if i := m.names.IndexAfter(k, prev); i < 0 {
			err = d.Skip()
		} else {
			prev = i
			start := d.Offset()
			if err = m.fields[i].Dec(st, v, key); err != nil {
				err = Refusal(start, err, m.fields[i].Want)
			}
		}
		if err != nil {
			return err
		}
		if more, err = d.Next('}'); err != nil {
			return err
		}
	}
	return nil
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

// Append appends v's wire form: every field, in the table's order.
func (m *Model[T]) Append(b []byte, v *T) ([]byte, error) {
	b = append(b, '{')
	for i := range m.fields {
		f := &m.fields[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.Name...)
		b = append(b, '"', ':')
		var err error
		if b, err = f.Enc(b, v); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// Marshal is a model's MarshalJSON.
func (m *Model[T]) Marshal(v *T) ([]byte, error) { return m.Append(make([]byte, 0, 128), v) }

// Unmarshal is a model's UnmarshalJSON: the whole of b is one value, read
// into a zero T that replaces v only when all of b decoded.
func (m *Model[T]) Unmarshal(b []byte, v *T) error { return Unmarshal(b, v, m.Into) }

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
