package codec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Describe returns the model of the struct type T, read once from the
// itick tags of its fields: `itick:"key"` gives a field's wire key, and
// `itick:"key,kind"` names one of the kinds (kinds.go) where the Go type
// alone does not say how the service sends it, such as "unixms" for a
// time in Unix milliseconds. A key "a.b" is the member b of the nested
// object a. `itick:",inline"` reads the fields of a struct-typed field
// as the object's own; where inlined models share a key, its value is
// read once and stored in each, and a field of T's own takes precedence.
// `itick:"-"` and unexported untagged fields are not on the wire.
//
// parts give the models of the types fields list or inline, fields read
// by hand (replacing the described field of the same name, or added),
// and Together. A tag Describe cannot use panics: models are described
// when the package starts, so any test finds it.
func Describe[T any](parts ...Part) *Model[T] {
	typ := reflect.TypeFor[T]()
	b := builder{models: map[reflect.Type]modelPart{}}
	var custom []field
	var together []string
	for _, p := range parts {
		switch p := p.(type) {
		case Field[T]:
			custom = append(custom, handField(p))
		case togetherPart:
			together = append(together, p...)
		case modelPart:
			b.models[p.typ()] = p
		default:
			panic(fmt.Sprintf("codec: Describe[%v] cannot use a %T", typ, p))
		}
	}
	if typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("codec: Describe[%v]: not a struct", typ))
	}
	b.fields(typ, 0, 0)
	for _, f := range custom {
		b.add(entry{path: []string{f.name}, f: f, depth: -1})
	}
	var lists lists
	if len(together) > 0 {
		lists = b.together(typ, together)
	}
	described.Lock()
	described.types = append(described.types, typ)
	described.Unlock()
	return &Model[T]{t: b.table(typ, b.entries, lists), list: NewBuffer[T]()}
}

var described struct {
	sync.Mutex
	types []reflect.Type
}

// Described lists the types Describe has described, in that order: what
// the tests hold to encoding/json, a model added included.
func Described() []reflect.Type {
	described.Lock()
	defer described.Unlock()
	return slices.Clone(described.types)
}

// modelPart is a model as a Part: the element of a list field or an
// inlined struct.
type modelPart interface {
	Part
	typ() reflect.Type
	tbl() *table
	listKind() kind
	together(offs []uintptr) (lists, func(i int) func(st *State, p unsafe.Pointer, key string) error)
}

func (m *Model[E]) typ() reflect.Type { return m.t.typ }

func (m *Model[E]) tbl() *table { return m.t }

// listKind reads and writes a []E: null is a nil slice, [] an empty one,
// and a nil slice is written as null.
func (m *Model[E]) listKind() kind {
	return kind{want: "an array",
		dec: func(st *State, p unsafe.Pointer, _ string) (err error) {
			*(*[]E)(p), err = m.List(st)
			return err
		},
		enc:  func(b []byte, p unsafe.Pointer) ([]byte, error) { return appendList(b, *(*[]E)(p), m) },
		copy: copyOf[[]E]}
}

// appendList writes list with elem's writer; nil is null.
func appendList[E any](b []byte, list []E, elem *Model[E]) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = elem.Append(b, &list[i]); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// handField is a Field as a table's field, at the object's own place.
func handField[T any](f Field[T]) field {
	out := field{name: f.Name, kind: "by hand", want: f.Want,
		dec: func(st *State, p unsafe.Pointer, key string) error { return f.Dec(st, (*T)(p), key) }}
	if f.Enc != nil {
		out.enc = func(b []byte, p unsafe.Pointer) ([]byte, error) { return f.Enc(b, (*T)(p)) }
	}
	return out
}

// entry is a field on its way into a table: path holds the keys of the
// objects it is nested in, then its own; depth is 0 for T's own fields,
// more for inlined ones, -1 for fields by hand.
type entry struct {
	path  []string
	f     field
	depth int
	elem  modelPart // a list field's element model
	fan   []field   // the inlined fields that share the key, past the first
}

type builder struct {
	models  map[reflect.Type]modelPart
	entries []entry
}

// fields adds the tagged fields of struct type typ, which sits at off in
// the described value, at depth.
func (b *builder) fields(typ reflect.Type, off uintptr, depth int) {
	for i := range typ.NumField() {
		sf := typ.Field(i)
		tag, tagged := sf.Tag.Lookup("itick")
		if tag == "-" || (!tagged && !sf.IsExported()) {
			continue
		}
		where := typ.String() + "." + sf.Name
		if !tagged {
			panic("codec: " + where + " has no itick tag")
		}
		key, opt, _ := strings.Cut(tag, ",")
		if opt == "inline" {
			m := b.models[sf.Type]
			if m == nil {
				panic("codec: " + where + " is inlined but no model of " + sf.Type.String() + " was given")
			}
			if m.tbl().together != nil {
				panic("codec: " + where + " inlines a model that reads lists together")
			}
			for _, f := range m.tbl().fields {
				if f.copy == nil {
					panic("codec: " + where + " inlines a field " + f.name + " that cannot be shared")
				}
				f.off += off + sf.Offset
				b.add(entry{path: []string{f.name}, f: f, depth: depth + 1})
			}
			continue
		}
		name, k, elem := b.kind(where, sf.Type, opt)
		path := strings.Split(key, ".")
		if slices.Contains(path, "") {
			panic("codec: " + where + " has an empty key in its tag")
		}
		f := field{name: path[len(path)-1], kind: name, want: k.want, off: off + sf.Offset, dec: k.dec, enc: k.enc, copy: k.copy}
		b.add(entry{path: path, f: f, depth: depth, elem: elem})
	}
}

// kind is the kind of a field of type t whose tag names opt (or none),
// with its name; a list's also gives its element's model.
func (b *builder) kind(where string, t reflect.Type, opt string) (string, kind, modelPart) {
	if opt == "" {
		if name, ok := kindOfType(t); ok {
			return name, kinds[name], nil
		}
		if t.Kind() == reflect.Slice {
			if m := b.models[t.Elem()]; m != nil {
				return "list of " + t.Elem().String(), m.listKind(), m
			}
		}
		panic("codec: " + where + " is a " + t.String() + ", which needs a kind in its tag or a model given")
	}
	k, ok := kinds[opt]
	if !ok {
		panic("codec: " + where + " names an unknown kind " + opt)
	}
	if !k.fits(t) {
		panic("codec: " + where + " is a " + t.String() + ", which is not of kind " + opt)
	}
	return opt, k, nil
}

// add adds e, or settles which field a key already taken reads into: the
// shallower one, or all of them at one inlined depth when they are of one
// kind.
func (b *builder) add(e entry) {
	key := strings.Join(e.path, ".")
	i := slices.IndexFunc(b.entries, func(o entry) bool { return strings.Join(o.path, ".") == key })
	switch {
	case i < 0:
		b.entries = append(b.entries, e)
	case e.depth < b.entries[i].depth:
		b.entries[i] = e
	case e.depth > b.entries[i].depth:
	case e.depth > 0 && e.f.kind == b.entries[i].f.kind:
		b.entries[i].fan = append(b.entries[i].fan, e.f)
	default:
		panic("codec: two fields take the key " + key)
	}
}

// table builds the table of the entries, nesting those under a key in an
// object field of that key, at the place of its first member.
func (b *builder) table(typ reflect.Type, entries []entry, lists lists) *table {
	var fields []field
	done := map[string]bool{}
	for _, e := range entries {
		if len(e.path) == 1 {
			fields = append(fields, fanOut(e))
			continue
		}
		name := e.path[0]
		if done[name] {
			continue
		}
		done[name] = true
		var sub []entry
		for _, o := range entries {
			if len(o.path) > 1 && o.path[0] == name {
				o.path = o.path[1:]
				sub = append(sub, o)
			}
		}
		t := b.table(typ, sub, nil)
		fields = append(fields, field{name: name, kind: "object", want: "an object",
			dec: t.into, enc: t.append})
	}
	return newTable(typ, fields, lists)
}

// fanOut is e's field, storing what it reads in every inlined field that
// shares its key too.
func fanOut(e entry) field {
	if len(e.fan) == 0 {
		return e.f
	}
	first, rest := e.f, e.fan
	f := first
	f.off, f.copy = 0, nil
	f.dec = func(st *State, p unsafe.Pointer, key string) error {
		src := unsafe.Add(p, first.off)
		err := first.dec(st, src, key)
		for _, o := range rest {
			o.copy(unsafe.Add(p, o.off), src)
		}
		return err
	}
	if first.enc != nil {
		f.enc = func(b []byte, p unsafe.Pointer) ([]byte, error) { return first.enc(b, unsafe.Add(p, first.off)) }
	}
	return f
}
