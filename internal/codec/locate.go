package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"
)

// A decode failure names where it happened: the JSON path of the value
// from the body's root (data.700.ld, data[3].t), the value's byte offset in
// the body, and its JSON type. It never quotes the value: a server may
// echo the token in any field, in a form or a fragment too short for
// redaction to recognise.
//
// The decoder's own errors say where: a *wire.Error is a body that is not
// JSON at its offset, and a *ValueError a value of the wrong type or range
// at its offset. From the offset, locate walks the body to name the path
// and the type. Client.Get decodes into the caller's types with
// encoding/json, whose errors are placed by placeJSONError.

// ValueError is a value the decoder refuses: Off is where it starts (or
// the whitespace before it), Want what the field takes.
type ValueError struct {
	Off  int
	Want string
	buf  []byte // what Off counts from, when not the whole body (see WithBuffer)
}

func (e *ValueError) Error() string {
	return "itick: value at byte " + strconv.Itoa(e.Off) + " is not " + e.Want
}

// Refusal turns a field reader's error into one that says where the value
// started and what was wanted; errors that already say where pass through.
func Refusal(start int, err error, want string) error {
	switch err.(type) {
	case *wire.Error, *ValueError:
		return err
	}
	switch {
	case err == ErrNotInteger:
		want = "an integer"
	case err == ErrTimeRange:
		want = "a timestamp before year 10000"
	case wire.NotFinite(err):
		want = "a finite number"
	}
	return &ValueError{Off: start, Want: want}
}

// WithBuffer records, in a *ValueError from decoding b on its own (a
// model's UnmarshalJSON), that its offset counts from b, so that it can be
// placed in a body b is a part of.
func WithBuffer(b []byte, err error) error {
	if ve, ok := err.(*ValueError); ok && ve.buf == nil {
		ve.buf = b
	}
	return err
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

// Detail describes err, an error decoding body, or data (a part of
// it) for Client.Get, for an error message: where in the body it
// happened, the type found there and what was wanted, without the value.
// The path is redacted and bounded.
func Detail(body, data []byte, err error, red *redact.Redactor) string {
	var we *wire.Error
	var ve *ValueError
	switch {
	case errors.As(err, &we):
		pl := locate(body, we.Offset)
		return appendPath(fmt.Sprintf("%s at byte %d", we.Msg, we.Offset), pl.path, red)
	case errors.As(err, &ve):
		if pl, ok := placeValue(body, ve); ok {
			return prefixPath(pl.path, red) + fmt.Sprintf("got %s at byte %d, want %s", withArticle(pl.kind), pl.start, ve.Want)
		}
		return "a value is not " + ve.Want
	}
	pl, ok := placeJSONError(body, data, err)
	want := ""
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		want = te.Type.String()
	}
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
	return red.String(err.Error())
}

// placeValue finds the value a *ValueError refused in body.
func placeValue(body []byte, ve *ValueError) (place, bool) {
	off := ve.Off
	if ve.buf != nil {
		base, ok := subOffset(body, ve.buf)
		if !ok {
			return place{}, false
		}
		off += base
	}
	for off < len(body) && (body[off] == ' ' || body[off] == '\t' || body[off] == '\n' || body[off] == '\r') {
		off++
	}
	pl := locate(body, off)
	return pl, !pl.broken && pl.kind != "" && pl.start == off
}

func prefixPath(path string, red *redact.Redactor) string {
	if path == "" {
		return ""
	}
	return red.Bound(path, maxPathText) + ": "
}

func appendPath(s, path string, red *redact.Redactor) string {
	if path == "" {
		return s
	}
	return s + " in " + red.Bound(path, maxPathText)
}

// maxPathText bounds a path in a message, so that what follows it (type,
// offset, reason) fits in the message's own bound.
const maxPathText = 96

// placeJSONError finds where an error of encoding/json, decoding data (a
// part of body), happened in body. An UnmarshalTypeError's offset is
// trusted only when the value it lands on has the type the error names and
// ends there, so that an error from a decoder of the caller's that
// unmarshals a buffer of its own is not misplaced.
func placeJSONError(body, data []byte, err error) (place, bool) {
	base, ok := subOffset(body, data)
	var te *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case !ok:
	case errors.As(err, &te) && te.Offset > 0:
		end := base + int(te.Offset)
		kind := strings.Fields(te.Value + " ?")[0]
		if kind == "bool" {
			kind = "boolean"
		}
		pl := locate(body, end-1)
		// encoding/json's offset is past a scalar, or past the brace of a
		// container it refused on sight.
		if !pl.broken && pl.kind == kind && (end == pl.end || end == pl.start+1) {
			return pl, true
		}
	case errors.As(err, &syn):
		if pl := locate(body, base+int(syn.Offset)); pl.broken {
			return pl, true
		}
	}
	return place{}, false
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
