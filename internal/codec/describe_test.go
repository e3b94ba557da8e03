package codec

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

type level struct {
	Po int     `itick:"po"`
	P  float64 `itick:"p"`
}

type book struct {
	S    string  `itick:"s,code"`
	A    []level `itick:"a"`
	B    []level `itick:"b"`
	Page int     `itick:"page.n"`
	Last bool    `itick:"page.last"`
}

type priced struct {
	S  string    `itick:"s,code"`
	Ld float64   `itick:"ld"`
	T  time.Time `itick:"t,unix"`
}

type traded struct {
	Ld float64 `itick:"ld"`
	V  float64 `itick:"v"`
}

// both inlines two models that share ld; its own s hides priced's.
type both struct {
	S    string `itick:"s"`
	p    priced `itick:",inline"`
	t    traded `itick:",inline"`
	seen int
}

var (
	levelModel  = Describe[level]()
	bookModel   = Describe[book](levelModel, Together("a", "b"))
	pricedModel = Describe[priced]()
	tradedModel = Describe[traded]()
	bothModel   = Describe[both](pricedModel, tradedModel, Field[both]{Name: "n", Want: "an integer",
		Dec: func(st *State, v *both, _ string) (err error) { v.seen, err = ReadInt(&st.D); return err }})
)

// TestDescribeReadsAndWritesByTag: lists, nested objects, lists read
// together into one allocation, inlined models sharing a key, a field by
// hand, and the wire form written back in the tags' order.
func TestDescribeReadsAndWritesByTag(t *testing.T) {
	t.Parallel()
	var b book
	in := `{"s":"X","a":[{"po":1,"p":"2.5"}],"b":[{"po":1,"p":2}],"page":{"n":"3"},"page":{"last":true},"x":[1]}`
	if err := bookModel.Unmarshal([]byte(in), &b); err != nil {
		t.Fatal(err)
	}
	want := book{S: "X", A: []level{{1, 2.5}}, B: []level{{1, 2}}, Page: 3, Last: true}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("book (-want +got):\n%s", diff)
	}
	if cap(b.A) != 1 || cap(b.B) != 1 || unsafe.Add(unsafe.Pointer(&b.A[0]), unsafe.Sizeof(level{})) != unsafe.Pointer(&b.B[0]) {
		t.Errorf("sides not one allocation, each capped at its length: cap %d and %d", cap(b.A), cap(b.B))
	}
	out, err := bookModel.Marshal(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `{"s":"X","a":[{"po":1,"p":2.5}],"b":[{"po":1,"p":2}],"page":{"n":3,"last":true}}`; got != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	// An empty side is empty, a null or absent one nil.
	if err := bookModel.Unmarshal([]byte(`{"a":[],"b":null}`), &b); err != nil || b.A == nil || len(b.A) != 0 || b.B != nil {
		t.Errorf("book %+v, error %v; want an empty a and a nil b", b, err)
	}

	var v both
	if err := bothModel.Unmarshal([]byte(`{"s":"A","ld":"7","v":2,"t":1700000000,"n":4}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.S != "A" || v.p.S != "" || v.p.Ld != 7 || v.t.Ld != 7 || v.t.V != 2 || v.seen != 4 ||
		!v.p.T.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("inlined models read as %+v", v)
	}
}

// TestDescribeRefusesWhatItCannotUse: a tag Describe cannot use panics
// when the model is described, naming the field.
func TestDescribeRefusesWhatItCannotUse(t *testing.T) {
	t.Parallel()
	type untagged struct{ A string }
	type timeNoKind struct {
		T time.Time `itick:"t"`
	}
	type unknownKind struct {
		A string `itick:"a,nope"`
	}
	type wrongKind struct {
		A float64 `itick:"a,unixms"`
	}
	type listNoModel struct {
		A []level `itick:"a"`
	}
	type twice struct {
		A string `itick:"a"`
		B string `itick:"a"`
	}
	type clash struct {
		P priced `itick:",inline"`
		Q struct {
			T string `itick:"ld"`
		} `itick:",inline"`
	}
	for _, tc := range []struct {
		name, want string
		describe   func()
	}{
		{"an exported field with no tag", "untagged.A has no itick tag", func() { Describe[untagged]() }},
		{"a time with no kind", "needs a kind", func() { Describe[timeNoKind]() }},
		{"an unknown kind", "unknown kind nope", func() { Describe[unknownKind]() }},
		{"a kind of another type", "not of kind unixms", func() { Describe[wrongKind]() }},
		{"a list with no model", "needs a kind in its tag or a model given", func() { Describe[listNoModel]() }},
		{"a key twice", "two fields take the key a", func() { Describe[twice]() }},
		{"an inlined struct with no model", "no model of", func() { Describe[clash](pricedModel) }},
		{"lists together that are not there", "no list field c", func() { Describe[book](levelModel, Together("c")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want one saying %q", r, tc.want)
				}
			}()
			tc.describe()
		})
	}
}
