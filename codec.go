package itick

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/d19c4e34/itick/internal/wire"
)

// Every model is decoded and encoded through one table of its wire
// fields: the field's name, how its value is read into the model and how
// it is written back. REST responses and stream pushes read the same
// tables over the wire scanner; MarshalJSON writes the same tables. Adding
// a field to a model is one entry in its table.
//
// The readers follow the service's tolerant wire types: numbers may
// arrive as JSON strings, "" and null read as zero, strings may arrive as
// bare numbers, and keys match as encoding/json matches struct fields.

// field is one member of a model's wire form.
type field[T any] struct {
	name string
	want string // what the value must be, for a refusal's message
	dec  func(st *fastState, v *T, key string) error
	enc  func(b []byte, v *T) ([]byte, error)
}

// model is a table of fields. scratch, when set, gives the state's own
// value to decode into, so that decoding the hot models allocates nothing;
// the others are decoded into a new value.
type model[T any] struct {
	fields  []field[T]
	names   *wire.Fields
	scratch func(st *fastState) *T
}

func newModel[T any](scratch func(*fastState) *T, fields ...field[T]) *model[T] {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return &model[T]{fields: fields, names: wire.NewFields(names...), scratch: scratch}
}

// read decodes the value at the scanner: null is the zero T, anything but
// an object is refused. key is the map key the value came under, if any.
func (m *model[T]) read(st *fastState, key string) (T, error) {
	var zero T
	var p *T
	if m.scratch != nil {
		p = m.scratch(st)
		*p = zero
	} else {
		p = new(T)
	}
	if err := m.into(st, p, key); err != nil {
		return zero, err
	}
	return *p, nil
}

// into decodes the object at the scanner into v, over what v holds, as
// encoding/json decodes into a struct: null leaves v as it is.
func (m *model[T]) into(st *fastState, v *T, key string) error {
	d := &st.d
	empty, err := enter(d, '{')
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
			if err = m.fields[i].dec(st, v, key); err != nil {
				err = refusal(start, err, m.fields[i].want)
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

// enter opens the object or array (open) at the scanner. A null is an
// empty container; a value of another type is refused where it starts.
func enter(d *wire.Decoder, open byte) (empty bool, err error) {
	if d.Null() {
		return true, nil
	}
	if c := d.Peek(); c != open && c != 0 {
		want := "an object"
		if open == '[' {
			want = "an array"
		}
		return false, &valueError{off: d.Offset(), want: want}
	}
	return d.Enter(open)
}

// eachElem calls elem for every element of the array at the scanner, the
// scanner at the element's start; null is no array at all (isNull), and
// any other type is refused where it starts.
func eachElem(d *wire.Decoder, elem func() error) (isNull bool, err error) {
	if d.Null() {
		return true, nil
	}
	empty, err := enter(d, '[')
	for more := !empty; more && err == nil; {
		if err = elem(); err == nil {
			more, err = d.Next(']')
		}
	}
	return false, err
}

// eachMember calls member for every member of the object at the scanner,
// with its key (valid until the next read) and the scanner at its value;
// null is no object at all (isNull).
func eachMember(d *wire.Decoder, member func(key []byte) error) (isNull bool, err error) {
	if d.Null() {
		return true, nil
	}
	empty, err := enter(d, '{')
	for more := !empty; more && err == nil; {
		var k []byte
		if k, err = d.Key(); err == nil {
			if err = member(k); err == nil {
				more, err = d.Next('}')
			}
		}
	}
	return false, err
}

// encode appends v's wire form: every field, in the table's order.
func (m *model[T]) encode(b []byte, v *T) ([]byte, error) {
	b = append(b, '{')
	for i := range m.fields {
		f := &m.fields[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		var err error
		if b, err = f.enc(b, v); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// marshal is a model's MarshalJSON.
func (m *model[T]) marshal(v *T) ([]byte, error) { return m.encode(make([]byte, 0, 128), v) }

// unmarshal is a model's UnmarshalJSON: the whole of b is one value.
func (m *model[T]) unmarshal(b []byte, v *T) error {
	st := getState(b)
	defer putState(st)
	got, err := m.read(st, "")
	if err == nil {
		err = st.d.End()
	}
	if err != nil {
		return withBuffer(b, err)
	}
	*v = got
	return nil
}

// valueError is a value the decoder refuses: off is where it starts (or
// the whitespace before it), want what the field takes.
type valueError struct {
	off  int
	want string
	buf  []byte // what off counts from, when not the whole body (see withBuffer)
}

func (e *valueError) Error() string {
	return "itick: value at byte " + strconv.Itoa(e.off) + " is not " + e.want
}

// refusal turns a field reader's error into one that says where the value
// started and what was wanted; errors that already say where pass through.
func refusal(start int, err error, want string) error {
	switch err.(type) {
	case *wire.Error, *valueError:
		return err
	}
	switch {
	case err == errNotInteger:
		want = "an integer"
	case err == errTimeRange:
		want = "a timestamp before year 10000"
	case wire.NotFinite(err):
		want = "a finite number"
	}
	return &valueError{off: start, want: want}
}

// The field kinds. Each takes the name and where the field lives in T.

func numField[T any](name string, p func(*T) *float64) field[T] {
	return field[T]{name: name, want: "a number",
		dec: func(st *fastState, v *T, _ string) (err error) { *p(v), err = st.d.Num(); return err },
		enc: func(b []byte, v *T) ([]byte, error) { return appendNum(b, *p(v)) }}
}

func intField[T any, I ~int](name string, p func(*T) *I) field[T] {
	return field[T]{name: name, want: "an integer",
		dec: func(st *fastState, v *T, _ string) error {
			n, err := readInt(&st.d)
			*p(v) = I(n)
			return err
		},
		enc: func(b []byte, v *T) ([]byte, error) { return strconv.AppendInt(b, int64(*p(v)), 10), nil }}
}

// strField reads a string as the map key it came under when they are
// equal (a symbol), else as the state's interned copy.
func strField[T any, S ~string](name string, p func(*T) *S) field[T] {
	return field[T]{name: name, want: "a string",
		dec: func(st *fastState, v *T, key string) error {
			b, err := st.d.Str()
			*p(v) = S(st.str(b, key))
			return err
		},
		enc: func(b []byte, v *T) ([]byte, error) { return appendString(b, string(*p(v))), nil }}
}

func millisField[T any](name string, p func(*T) *time.Time) field[T] {
	return field[T]{name: name, want: "a timestamp",
		dec: func(st *fastState, v *T, _ string) (err error) { *p(v), err = readMillis(&st.d); return err },
		enc: func(b []byte, v *T) ([]byte, error) { return appendUnix(b, *p(v), time.Time.UnixMilli), nil }}
}

func secondsField[T any](name string, p func(*T) *time.Time) field[T] {
	return field[T]{name: name, want: "a timestamp",
		dec: func(st *fastState, v *T, _ string) (err error) { *p(v), err = readSeconds(&st.d); return err },
		enc: func(b []byte, v *T) ([]byte, error) { return appendUnix(b, *p(v), time.Time.Unix), nil }}
}

func boolField[T any](name string, p func(*T) *bool) field[T] {
	return field[T]{name: name, want: "a boolean",
		dec: func(st *fastState, v *T, _ string) (err error) { *p(v), err = readBool(&st.d); return err },
		enc: func(b []byte, v *T) ([]byte, error) { return strconv.AppendBool(b, *p(v)), nil }}
}

// listField is an array of another model's values: null is a nil slice,
// [] an empty one, and a nil slice is written as null.
func listField[T, E any](name string, elem *model[E], p func(*T) *[]E) field[T] {
	return field[T]{name: name, want: "an array",
		dec: func(st *fastState, v *T, _ string) (err error) { *p(v), err = readList(st, elem); return err },
		enc: func(b []byte, v *T) ([]byte, error) { return appendList(b, *p(v), elem) }}
}

// objectField is a nested object whose fields (sub) are T's own: it is
// decoded over what T holds, as encoding/json decodes a struct field.
func objectField[T any](name string, sub *model[T]) field[T] {
	return field[T]{name: name, want: "an object",
		dec: func(st *fastState, v *T, key string) error { return sub.into(st, v, key) },
		enc: func(b []byte, v *T) ([]byte, error) { return sub.encode(b, v) }}
}

// readList reads an array of elem's values into a slice of its length.
func readList[E any](st *fastState, elem *model[E]) ([]E, error) {
	out := []E{}
	isNull, err := eachElem(&st.d, func() error {
		e, err := elem.read(st, "")
		out = append(out, e)
		return err
	})
	if isNull || err != nil {
		return nil, err
	}
	return out, nil
}

func appendList[E any](b []byte, list []E, elem *model[E]) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = elem.encode(b, &list[i]); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// The scalar readers.

func readInt(d *wire.Decoder) (int, error) {
	f, err := d.Num()
	if err != nil {
		return 0, err
	}
	n, ok := intFromFloat(f)
	if !ok {
		return 0, errNotInteger
	}
	return n, nil
}

func readMillis(d *wire.Decoder) (time.Time, error) {
	f, err := d.Num()
	if err != nil {
		return time.Time{}, err
	}
	t, ok := timeFromMillis(f)
	if !ok {
		return time.Time{}, errTimeRange
	}
	return t, nil
}

func readSeconds(d *wire.Decoder) (time.Time, error) {
	f, err := d.Num()
	if err != nil {
		return time.Time{}, err
	}
	if math.Abs(f) > maxUnixSeconds {
		return time.Time{}, errTimeRange
	}
	if f = math.Floor(f); f == 0 {
		return time.Time{}, nil
	}
	return time.Unix(int64(f), 0).UTC(), nil
}

// readBool takes a boolean as the service sends it: true or false, as
// they are or in a string, 0 or 1 likewise, and null or "" for false.
func readBool(d *wire.Decoder) (bool, error) {
	raw, err := d.Raw()
	if err != nil {
		return false, err
	}
	switch string(raw) {
	case "true", `"true"`, "1", `"1"`:
		return true, nil
	case "false", `"false"`, "0", `"0"`, "null", `""`:
		return false, nil
	}
	return false, errNotBool
}

// The writers, which write what encoding/json writes.

// appendNum writes f as encoding/json writes a float64, so whole numbers
// come out as integers (616, not 6.16e+02), as the service sends them.
func appendNum(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-07 becomes e-7, as encoding/json writes it.
		if l := len(b); l-n >= 4 && b[l-4] == 'e' && b[l-3] == '-' && b[l-2] == '0' {
			b[l-2] = b[l-1]
			b = b[:l-1]
		}
	}
	return b, nil
}

// appendUnix writes t as a Unix count (unix gives it); the zero Time is 0.
func appendUnix(b []byte, t time.Time, unix func(time.Time) int64) []byte {
	if t.IsZero() {
		return append(b, '0')
	}
	return strconv.AppendInt(b, unix(t), 10)
}

// appendString writes s as encoding/json does, escaping <, > and & for
// HTML; text that needs any escape at all is left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
