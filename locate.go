package itick

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	redactpkg "github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// A decode failure names where it happened: the JSON path of the value
// from the body's root (data.700.ld, data[3].t), the value's byte offset in
// the body, and its JSON type. It never quotes the value: a server may
// echo the token in any field, in a form or a fragment too short for
// redaction to recognise.
//
// encoding/json gives little of that itself: no map keys or indexes in
// UnmarshalTypeError.Field, offsets that count from whichever buffer the
// innermost json.Unmarshal read, and nothing at all for an error an
// UnmarshalJSON method returns. So the SDK's wire types return a
// *valueError holding the bytes they refused, which alias the body, and
// the models' UnmarshalJSON methods decode through unmarshalNested, whose
// *nestedError keeps the buffer encoding/json's offsets count from. From
// either, placeError finds an offset in the body and then walks the body to
// it to name the path and the type.

// valueError is a value a wire type cannot take.
type valueError struct {
	raw  []byte // the value as sent; it aliases the buffer being decoded
	want string // what the type takes, such as "a number"
}

func badValue(raw []byte, want string) error { return &valueError{raw: raw, want: want} }

func (e *valueError) Error() string {
	return "itick: got " + withArticle(jsonKind(e.raw)) + ", want " + e.want
}

// nestedError is an error from a json.Unmarshal of buf inside a model's
// UnmarshalJSON; encoding/json's offsets in it count from buf.
type nestedError struct {
	buf []byte
	err error
}

func (e *nestedError) Error() string { return e.err.Error() }
func (e *nestedError) Unwrap() error { return e.err }

// unmarshalNested is json.Unmarshal for a model's UnmarshalJSON: an error
// keeps b, so that where it happened can be placed in the whole body.
func unmarshalNested(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return &nestedError{buf: b, err: err}
	}
	return nil
}

// jsonKind names the JSON type of a value by its first byte.
func jsonKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "empty value"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func withArticle(kind string) string {
	switch kind[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + kind
	}
	return "a " + kind
}

// place is where a decode failure happened in a body.
type place struct {
	path   string // from the body's root; "" is the root
	kind   string // JSON type of the value there; "" where the body breaks
	start  int    // byte offset of the value, or of the break
	end    int    // byte offset just past the value
	broken bool   // the body is not JSON there
}

// decodeDetail describes err, an error decoding root (the whole body, or
// its data, which may be a copy of part of it), for an error message:
// where in the body it happened, the type found there and what was wanted,
// without the value. The path is redacted and bounded.
func decodeDetail(body, root []byte, err error, red *redactpkg.Redactor) string {
	pl, ok := placeError(body, root, err)
	want := wantOf(err)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		// A syntax error's own text names at most one byte of the body.
		if ok {
			return appendPath(fmt.Sprintf("%s at byte %d", syn.Error(), pl.start), pl.path, red)
		}
		return syn.Error()
	case ok && want != "":
		return prefixPath(pl.path, red) + fmt.Sprintf("got %s at byte %d, want %s", withArticle(pl.kind), pl.start, want)
	case ok:
		return prefixPath(pl.path, red) + fmt.Sprintf("%s at byte %d: %s", withArticle(pl.kind), pl.start, red.String(err.Error()))
	}
	var ve *valueError
	if errors.As(err, &ve) {
		return ve.Error()
	}
	return red.String(err.Error())
}

func prefixPath(path string, red *redactpkg.Redactor) string {
	if path == "" {
		return ""
	}
	return red.Bound(path, maxPathText) + ": "
}

func appendPath(s, path string, red *redactpkg.Redactor) string {
	if path == "" {
		return s
	}
	return s + " in " + red.Bound(path, maxPathText)
}

// maxPathText bounds a path in a message, so that what follows it (type,
// offset, reason) fits in the message's own bound.
const maxPathText = 96

// wantOf names what the innermost failing decoder wanted, or "".
func wantOf(err error) string {
	want := ""
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *valueError:
			want = x.want
		case *json.UnmarshalTypeError:
			if x.Type != nil {
				want = x.Type.String()
			}
		}
	}
	return want
}

// placeError finds where err happened in body. It follows err's chain
// outward-in, placing each *nestedError's buffer, each *valueError's value
// and each encoding/json offset it can, and takes the innermost place it
// can trust. An UnmarshalTypeError's offset is trusted only when the value
// it lands on has the type the error names and ends there, so an error
// from a decoder outside the SDK that unmarshals a buffer of its own is
// not misplaced.
func placeError(body, root []byte, err error) (place, bool) {
	rootOff := dataOffset(body, root)
	offsetOf := func(b []byte) (int, bool) {
		if off, ok := subOffset(body, b); ok {
			return off, true
		}
		if off, ok := subOffset(root, b); ok && rootOff >= 0 {
			return rootOff + off, true
		}
		return 0, false
	}
	type anchor struct {
		p      int    // a byte of the value
		end    int    // where encoding/json said the value ended; -1: not checked
		kind   string // the type encoding/json named; "" for none
		broken bool   // a syntax error at p
	}
	var anchors []anchor
	baseOff, baseOK := rootOff, rootOff >= 0
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *nestedError:
			baseOff, baseOK = offsetOf(x.buf)
			if baseOK {
				anchors = append(anchors, anchor{p: baseOff, end: -1})
			}
		case *valueError:
			if off, ok := offsetOf(x.raw); ok && len(bytes.TrimSpace(x.raw)) > 0 {
				anchors = append(anchors, anchor{p: off, end: -1})
			}
			// Whatever it wraps read a buffer of its own.
			baseOK = false
		case *json.UnmarshalTypeError:
			if baseOK && x.Offset > 0 {
				end := baseOff + int(x.Offset)
				anchors = append(anchors, anchor{p: end - 1, end: end, kind: strings.Fields(x.Value + " ?")[0]})
			}
		case *json.SyntaxError:
			if baseOK {
				anchors = append(anchors, anchor{p: baseOff + int(x.Offset), end: -1, broken: true})
			}
		}
	}
	for i := len(anchors) - 1; i >= 0; i-- {
		a := anchors[i]
		if a.p < 0 || a.p > len(body) {
			continue
		}
		pl := locate(body, a.p)
		if a.broken {
			if !pl.broken {
				continue
			}
			return pl, true
		}
		if pl.broken || pl.kind == "" {
			continue
		}
		if a.kind != "" {
			kind := a.kind
			if kind == "bool" {
				kind = "boolean"
			}
			// encoding/json's offset is past a scalar, or past the brace
			// of a container it refused on sight.
			if kind != pl.kind || (a.end != pl.end && a.end != pl.start+1) {
				continue
			}
		}
		return pl, true
	}
	return place{}, false
}

// dataOffset returns where data starts in body: data may alias body, or
// be the copy encoding/json made of the envelope's data. -1 if neither.
func dataOffset(body, data []byte) int {
	if off, ok := subOffset(body, data); ok {
		return off
	}
	if len(data) == 0 {
		return -1
	}
	st := getState(body)
	defer putState(st)
	var e scannedEnvelope
	if scanEnvelope(st, kindNone, &e) != nil || !bytes.Equal(e.data, data) {
		return -1
	}
	if off, ok := subOffset(body, e.data); ok {
		return off
	}
	return -1
}

// subOffset returns where inner starts in outer when inner is a part of
// outer's memory (not merely equal to some part of it).
func subOffset(outer, inner []byte) (int, bool) {
	if len(inner) == 0 || len(outer) == 0 {
		return 0, false
	}
	off := cap(outer) - cap(inner)
	if off < 0 || off+len(inner) > len(outer) || &outer[off] != &inner[0] {
		return 0, false
	}
	return off, true
}

// locate walks body to byte p and returns the innermost value holding it,
// or, if the body breaks first, the path to where it broke.
func locate(body []byte, p int) place {
	l := locator{p: p}
	l.d.Reset(body)
	switch err := l.value(); {
	case err == errFound:
		return l.found
	case err == errPast:
		return place{}
	case err != nil:
		off := l.d.Offset()
		var we *wire.Error
		if errors.As(err, &we) {
			off = we.Offset
		}
		return place{path: l.path(), start: off, end: off, broken: true}
	}
	if err := l.d.End(); err != nil {
		return place{path: "", start: l.d.Offset(), end: l.d.Offset(), broken: true}
	}
	return place{}
}

var (
	errFound = errors.New("found")
	errPast  = errors.New("past")
)

type step struct {
	key   []byte // aliases the body unless the key had escapes
	index int    // -1 for an object member
}

type locator struct {
	d     wire.Decoder
	p     int
	steps []step
	found place
}

// value reads one value, and returns errFound once the innermost value
// holding p is recorded, errPast if the value starts after p.
func (l *locator) value() error {
	l.d.Mark() // past the whitespace
	start := l.d.Offset()
	if start > l.p {
		return errPast
	}
	c := l.d.Peek()
	kind := jsonKind([]byte{c})
	switch c {
	case '{':
		empty, err := l.d.Enter('{')
		if err != nil {
			return err
		}
		for more := !empty; more; {
			k, err := l.d.Key()
			if err != nil {
				return err
			}
			l.steps = append(l.steps, step{key: k, index: -1})
			if err := l.child(kind, start); err != nil {
				return err
			}
			if more, err = l.d.Next('}'); err != nil {
				return err
			}
		}
	case '[':
		empty, err := l.d.Enter('[')
		if err != nil {
			return err
		}
		for i, more := 0, !empty; more; i++ {
			l.steps = append(l.steps, step{index: i})
			if err := l.child(kind, start); err != nil {
				return err
			}
			if more, err = l.d.Next(']'); err != nil {
				return err
			}
		}
	default:
		if err := l.d.Skip(); err != nil {
			return err
		}
	}
	if end := l.d.Offset(); l.p < end {
		l.record(kind, start, end)
		return errFound
	}
	return nil
}

// child reads the member whose step was just pushed, in a container of
// kind that starts at start.
func (l *locator) child(kind string, start int) error {
	err := l.value()
	if err == errPast {
		// p is between the container's members: it is the innermost.
		l.steps = l.steps[:len(l.steps)-1]
		l.record(kind, start, -1)
		return errFound
	}
	if err == nil {
		l.steps = l.steps[:len(l.steps)-1]
	}
	return err
}

func (l *locator) record(kind string, start, end int) {
	l.found = place{path: l.path(), kind: kind, start: start, end: end}
}

// path writes the steps as data.700.ld or data[3].t; a key that is not a
// plain name is quoted: data["a.b"].
func (l *locator) path() string {
	var b strings.Builder
	for _, s := range l.steps {
		switch {
		case s.index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case plainKey(s.key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.Write(s.key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(string(s.key)))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func plainKey(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
