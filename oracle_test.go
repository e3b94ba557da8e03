package itick

// The oracle: encoding/json, through wire structs the oracle builds from
// the models' itick tags with reflect.StructOf, one field per wire key of
// a type of its own that reads what the tag's kind declares (num,
// integer, str, millis, ...). The equivalence tests and fuzz targets hold
// the decoder and MarshalJSON to it on every input.
//
// The oracle shares only the tags with the decoder: the keys and the kind
// each declares are the description both read. Everything else is its
// own: how a key matches, a later duplicate wins, null and unknown keys
// are read, and nested objects merge is encoding/json's; how each kind's
// value is read and written is the small types below, written from the
// service's rules with strconv, math/big and encoding/json; and where a
// value goes in the model is found by reflect from the field's index,
// not from the codec's offsets. A table the codec built wrong, a kind
// read or written wrong, or a field left out shows as a difference; a
// key named wrong in a tag is the description itself, which the endpoint
// tests check against the fixtures' hand-written values.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/d19c4e34/itick/internal/codec"
	"github.com/d19c4e34/itick/internal/wire"
)

var errOracle = errors.New("oracle: refused")

// refEnvCode is the envelope code as encoding/json reads it.
type refEnvCode codec.Code

// The scalar types below decode what the service is seen to send where a
// number, string, boolean or time is declared: numbers as JSON strings,
// integers where floats are declared, strings where numbers are declared,
// and null for anything. They marshal back to the plain declared form.

// num is a float64 that also arrives as a quoted number, "" or null.
type num float64

func (n *num) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	*n = num(f)
	return err
}

// MarshalJSON writes the number as encoding/json writes a float64, so whole
// numbers come out as integers (616, not 6.16e+02), as the service sends them.
func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-07 becomes e-7, as encoding/json writes it.
		if l := len(b); l >= 4 && b[l-4] == 'e' && b[l-3] == '-' && b[l-2] == '0' {
			b[l-2] = b[l-1]
			b = b[:l-1]
		}
	}
	return b, nil
}

// integer is an int that also arrives quoted or as an integral number in
// any notation (616.0, 6.16e2), whose exact value is within ±2^53: a
// literal a float64 would round, such as 9007199254740993, is refused.
type integer int

func (n *integer) UnmarshalJSON(b []byte) error {
	if _, err := parseNumber(b); err != nil {
		return err
	}
	lit := bytes.Trim(bytes.TrimSpace(b), `"`)
	if lit = bytes.TrimSpace(lit); len(lit) == 0 || string(lit) == "null" {
		*n = 0
		return nil
	}
	r, ok := new(big.Rat).SetString(string(lit))
	limit := new(big.Int).Lsh(big.NewInt(1), 53)
	if !ok || !r.IsInt() || new(big.Int).Abs(r.Num()).Cmp(limit) > 0 {
		return errOracle
	}
	*n = integer(r.Num().Int64())
	return nil
}

func (n integer) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(n), 10), nil
}

// str is a string that also arrives as a bare number (a code like 700).
type str string

func (s *str) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
		return nil
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = str(v)
		return nil
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		if _, err := parseNumber(b); err != nil {
			return err
		}
		*s = str(b)
		return nil
	}
	return errOracle
}

func (s str) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }

// boolean is a bool that also arrives as "true"/"false", 0/1 or null.
type boolean bool

func (v *boolean) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true", `"true"`, "1", `"1"`:
		*v = true
	case "false", `"false"`, "0", `"0"`, "null", `""`:
		*v = false
	default:
		return errOracle
	}
	return nil
}

func (v boolean) MarshalJSON() ([]byte, error) { return strconv.AppendBool(nil, bool(v)), nil }

// millis is a time sent as Unix milliseconds; 0 or null is the zero Time.
type millis time.Time

func (t *millis) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	tt, ok := codec.TimeFromMillis(f)
	if !ok {
		return errOracle
	}
	*t = millis(tt)
	return nil
}

func (t millis) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("0"), nil
	}
	return strconv.AppendInt(nil, tt.UnixMilli(), 10), nil
}

// seconds is a time sent as Unix seconds, as a number or a string.
type seconds time.Time

func (t *seconds) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	if math.Abs(f) > 253402300799 { // year 9999
		return errOracle
	}
	f = math.Floor(f)
	if f == 0 {
		*t = seconds{}
		return nil
	}
	*t = seconds(time.Unix(int64(f), 0).UTC())
	return nil
}

func (t seconds) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("0"), nil
	}
	return strconv.AppendInt(nil, tt.Unix(), 10), nil
}

// parseNumber reads a JSON number, a quoted number, "" or null (both 0).
// NaN and infinities are refused: they cannot be encoded back.
func parseNumber(b []byte) (float64, error) {

	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return 0, nil
	}
	if b[0] == '"' {
		if len(b) < 2 || b[len(b)-1] != '"' {
			return 0, errOracle
		}
		b = bytes.TrimSpace(b[1 : len(b)-1])
		if len(b) == 0 {
			return 0, nil
		}
	}
	if !wire.IsNumberLiteral(b) {
		return 0, errOracle
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, errOracle
	}
	return f, nil
}

// strList is a list of strings whose items may arrive as bare numbers; null
// is an empty list.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	var raw []str
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*l = nil
		return nil
	}
	out := make([]string, len(raw))
	for i, s := range raw {
		out[i] = string(s)
	}
	*l = out
	return nil
}

func (l strList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(l))
}

// year is the holiday year, sent as text ("2025") or a number; empty is 0.
type year int

func (y *year) UnmarshalJSON(b []byte) error {
	var s str
	if err := s.UnmarshalJSON(b); err != nil {
		return err
	}
	t := strings.TrimSpace(string(s))
	if t == "" {
		*y = 0
		return nil
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return errOracle
	}
	*y = year(n)
	return nil
}

// MarshalJSON writes the year as text, as the service sends it; 0 is "".
func (y year) MarshalJSON() ([]byte, error) {
	if y == 0 {
		return []byte(`""`), nil
	}
	return strconv.AppendQuote(nil, strconv.Itoa(int(y))), nil
}

// dateList is a list of calendar dates sent as a string holding a JSON
// array ("[\"2025-01-01\"]"); a plain array is accepted too.
type dateList []time.Time

func (d *dateList) UnmarshalJSON(b []byte) error {
	if err := d.unmarshal(b); err != nil {
		return errOracle
	}
	return nil
}

func (d *dateList) unmarshal(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var inner string
		if err := json.Unmarshal(b, &inner); err != nil {
			return err
		}
		b = bytes.TrimSpace([]byte(inner))
	}
	if len(b) == 0 || string(b) == "null" {
		*d = nil
		return nil
	}
	var raw []str
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*d = nil
		return nil
	}
	out := make([]time.Time, 0, len(raw))
	for _, r := range raw {
		t, err := refParseDate(strings.TrimSpace(string(r)))
		if err != nil {
			return err
		}
		out = append(out, t)
	}
	*d = out
	return nil
}

func (d dateList) MarshalJSON() ([]byte, error) {
	days := make([]string, len(d))
	for i, t := range d {
		days[i] = t.Format(time.DateOnly)
	}
	inner, err := json.Marshal(days)
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(inner))
}

// commaList is a comma-separated string such as "08:00-09:00,09:00-17:30,";
// empty items are dropped and a JSON array is accepted too.
type commaList []string

func (c *commaList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	var items []str
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
	} else {
		var s str
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		for _, it := range strings.Split(string(s), ",") {
			items = append(items, str(it))
		}
	}
	var out []string
	for _, it := range items {
		if v := strings.TrimSpace(string(it)); v != "" {
			out = append(out, v)
		}
	}
	*c = out
	return nil
}

func (c commaList) MarshalJSON() ([]byte, error) { return json.Marshal(strings.Join(c, ",")) }

// refList is a list field's value as sent under each occurrence of its
// key, in order: each must decode, and the last one is the value, as
// encoding/json decodes a repeated key into a slice of values that decode
// themselves whole.
type refList [][]byte

func (l *refList) UnmarshalJSON(b []byte) error {
	*l = append(*l, bytes.Clone(b))
	return nil
}

func (l refList) MarshalJSON() ([]byte, error) {
	if len(l) == 0 {
		return []byte("null"), nil
	}
	return l[len(l)-1], nil
}

// decode decodes every occurrence as a list of elem and returns the last,
// as a []elem; null is a nil slice.
func (l refList) decode(elem reflect.Type) (reflect.Value, error) {
	out := reflect.Zero(reflect.SliceOf(elem))
	for _, b := range l {
		var raws []json.RawMessage
		if err := json.Unmarshal(b, &raws); err != nil {
			return out, err
		}
		if raws == nil {
			out = reflect.Zero(reflect.SliceOf(elem))
			continue
		}
		out = reflect.MakeSlice(reflect.SliceOf(elem), len(raws), len(raws))
		for i, raw := range raws {
			v, err := refDecodeValue(elem, raw)
			if err != nil {
				return out, err
			}
			out.Index(i).Set(v)
		}
	}
	return out, nil
}

// refListOf encodes a list the oracle's way, element by element; nil is
// null.
func refListOf(v reflect.Value) (refList, error) {
	if v.IsNil() {
		return refList{[]byte("null")}, nil
	}
	var b []byte
	b = append(b, '[')
	for i := range v.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		e, err := refEncodeValue(v.Index(i))
		if err != nil {
			return nil, err
		}
		b = append(b, e...)
	}
	return refList{append(b, ']')}, nil
}

// The oracle's view of a model: the wire struct it decodes through, and
// where each field of the model takes its value from.

type refModel struct {
	wire   reflect.Type
	leaves []refLeaf
}

// refLeaf is one field of the model (at index, through inlined structs)
// and the field of the wire struct that holds its value (at wire); a key
// that inlined models share has one wire field and a leaf for each.
type refLeaf struct {
	index []int
	wire  []int
	elem  reflect.Type // a list's element type; nil for any other kind
}

// refWireTypeOf is the oracle's wire type of a field of type t whose tag
// names kind (or none), and a list's element type.
func refWireTypeOf(t reflect.Type, kind string) (reflect.Type, reflect.Type) {
	switch kind {
	case "unixms":
		return reflect.TypeFor[millis](), nil
	case "unix":
		return reflect.TypeFor[seconds](), nil
	case "year":
		return reflect.TypeFor[year](), nil
	case "dates":
		return reflect.TypeFor[dateList](), nil
	case "commas":
		return reflect.TypeFor[commaList](), nil
	case "", "code":
	default:
		panic("oracle: no wire type for kind " + kind)
	}
	switch {
	case t.Kind() == reflect.Float64:
		return reflect.TypeFor[num](), nil
	case t.Kind() == reflect.Int:
		return reflect.TypeFor[integer](), nil
	case t.Kind() == reflect.String:
		return reflect.TypeFor[str](), nil
	case t.Kind() == reflect.Bool:
		return reflect.TypeFor[boolean](), nil
	case t == reflect.TypeFor[[]string]():
		return reflect.TypeFor[strList](), nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return reflect.TypeFor[refList](), t.Elem()
	}
	panic("oracle: no wire type for a " + t.String())
}

// refKey is one wire key of a model on its way into the wire struct.
type refKey struct {
	path   []string
	typ    reflect.Type
	depth  int // 0: the model's own; 1: inlined
	leaves [][]int
	elem   reflect.Type
}

var refModels sync.Map // reflect.Type -> *refModel

// refModelOf reads t's tags, once.
func refModelOf(t reflect.Type) *refModel {
	if m, ok := refModels.Load(t); ok {
		return m.(*refModel)
	}
	var keys []*refKey
	add := func(k *refKey) {
		for _, o := range keys {
			if strings.Join(o.path, ".") != strings.Join(k.path, ".") {
				continue
			}
			switch {
			case k.depth > o.depth:
			case k.depth < o.depth:
				*o = *k
			case k.depth == o.depth && k.depth > 0 && k.typ == o.typ:
				o.leaves = append(o.leaves, k.leaves...)
			default:
				panic("oracle: " + t.String() + " has the key " + strings.Join(k.path, ".") + " twice")
			}
			return
		}
		keys = append(keys, k)
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("itick")
		if !ok || tag == "-" {
			continue
		}
		key, kind, _ := strings.Cut(tag, ",")
		if kind == "inline" {
			for _, l := range refModelOf(sf.Type).leaves {
				k := refModelOf(sf.Type).keyOf(l)
				k.depth, k.leaves = 1, [][]int{append([]int{i}, l.index...)}
				add(k)
			}
			continue
		}
		wt, elem := refWireTypeOf(sf.Type, kind)
		add(&refKey{path: strings.Split(key, "."), typ: wt, leaves: [][]int{{i}}, elem: elem})
	}
	m := &refModel{}
	m.wire = refStruct(keys, nil, m)
	refModels.Store(t, m)
	return m
}

// keyOf is the key of a leaf of m, for a model that inlines m.
func (m *refModel) keyOf(l refLeaf) *refKey {
	var path []string
	w := m.wire
	for _, i := range l.wire {
		f := w.Field(i)
		path = append(path, f.Tag.Get("json"))
		w = f.Type
	}
	return &refKey{path: path, typ: w, elem: l.elem}
}

// refStruct builds the wire struct of keys (nested under prefix), each
// key a field named by its place, tagged with its key, and records m's
// leaves.
func refStruct(keys []*refKey, prefix []int, m *refModel) reflect.Type {
	var fields []reflect.StructField
	done := map[string]bool{}
	for _, k := range keys {
		at := append(append([]int{}, prefix...), len(fields))
		name := k.path[0]
		if len(k.path) == 1 {
			fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", len(fields)), Type: k.typ,
				Tag: reflect.StructTag(`json:"` + name + `"`)})
			for _, idx := range k.leaves {
				m.leaves = append(m.leaves, refLeaf{index: idx, wire: at, elem: k.elem})
			}
			continue
		}
		if done[name] {
			continue
		}
		done[name] = true
		var sub []*refKey
		for _, o := range keys {
			if len(o.path) > 1 && o.path[0] == name {
				c := *o
				c.path = o.path[1:]
				sub = append(sub, &c)
			}
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", len(fields)),
			Type: refStruct(sub, at, m), Tag: reflect.StructTag(`json:"` + name + `"`)})
	}
	return reflect.StructOf(fields)
}

// settable is v made settable, an unexported field included.
func settable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// refDecodeValue decodes b as a t through its wire struct.
func refDecodeValue(t reflect.Type, b []byte) (reflect.Value, error) {
	m := refModelOf(t)
	w := reflect.New(m.wire)
	v := reflect.New(t).Elem()
	if err := json.Unmarshal(b, w.Interface()); err != nil {
		return v, err
	}
	for _, l := range m.leaves {
		src, dst := w.Elem().FieldByIndex(l.wire), settable(v.FieldByIndex(l.index))
		if l.elem != nil {
			list, err := src.Interface().(refList).decode(l.elem)
			if err != nil {
				return v, err
			}
			dst.Set(list)
			continue
		}
		dst.Set(src.Convert(dst.Type()))
	}
	return v, nil
}

// refEncodeValue encodes v with json.Marshal of its wire struct.
func refEncodeValue(v reflect.Value) ([]byte, error) {
	m := refModelOf(v.Type())
	w := reflect.New(m.wire).Elem()
	for _, l := range m.leaves {
		src, dst := v.FieldByIndex(l.index), w.FieldByIndex(l.wire)
		if l.elem != nil {
			list, err := refListOf(src)
			if err != nil {
				return nil, err
			}
			dst.Set(reflect.ValueOf(list))
			continue
		}
		dst.Set(src.Convert(dst.Type()))
	}
	return json.Marshal(w.Interface())
}

// refDecode decodes b as a T, the oracle's way.
func refDecode[T any](b []byte) (T, error) {
	v, err := refDecodeValue(reflect.TypeFor[T](), b)
	return v.Interface().(T), err
}

// refOf is a T that encoding/json decodes through the oracle, whole: the
// element of a map or a list of models, which never reaches the model's
// own UnmarshalJSON.
type refOf[T any] struct{ v T }

func (r *refOf[T]) UnmarshalJSON(b []byte) (err error) {
	r.v, err = refDecode[T](b)
	return err
}

func unref[T any](r refOf[T]) T { return r.v }

// refEnvelope is the {code, msg, data} wrapper of every response. message is
// what an API gateway sends instead when it refuses a request.
type refEnvelope struct {
	Code    *refEnvCode     `json:"code"`
	Msg     *str            `json:"msg"`
	Message *str            `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (c *refEnvCode) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if err := (*codec.Code)(c).SetText([]byte(s)); err != nil {
			return errOracle
		}
		return nil
	}
	var n integer
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	*c = refEnvCode{N: int(n)}
	return nil
}

func refParseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, "2006/01/02", "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errOracle
}

// refParseEnvelope is the envelope as encoding/json reads it, under the same
// success rule.
func refParseEnvelope(status int, body []byte) (json.RawMessage, error) {
	var env refEnvelope
	err := json.Unmarshal(body, &env)
	var e codec.Envelope
	if err == nil {
		e = codec.Envelope{HasCode: env.Code != nil, HasMsg: env.Msg != nil, HasMessage: env.Message != nil, Data: env.Data}
		if env.Code != nil {
			e.Code = codec.Code(*env.Code)
		}
		if env.Msg != nil {
			e.Msg = string(*env.Msg)
		}
		if env.Message != nil {
			e.Message = string(*env.Message)
		}
	}
	if f := codec.Check(status, &e, err, [][]byte{body}, noRedact); f != nil {
		return nil, newAPIError("/test", status, nil, body, noRedact, f)
	}
	return env.Data, nil
}

// refDecodeData is decodeData as it was: encoding/json into the targets,
// through the oracle.
func refDecodeData(raw []byte, out any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	for _, tg := range targets {
		if reflect.TypeOf(tg.new()) == reflect.TypeOf(out) {
			return tg.ref(raw, out)
		}
	}
	return json.Unmarshal(raw, out)
}

// refInto decodes raw as R with encoding/json and stores conv of it.
func refInto[T, R any](conv func(R) T) func([]byte, any) error {
	return func(raw []byte, out any) error {
		var r R
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		*out.(*T) = conv(r)
		return nil
	}
}

// refPtr decodes raw as a T through the oracle and stores a pointer to it.
func refPtr[T any]() func([]byte, any) error {
	return func(raw []byte, out any) error {
		v, err := refDecode[T](raw)
		if err != nil {
			return err
		}
		*out.(**T) = &v
		return nil
	}
}

// refStatusList reads the market status data: an array, or one object.
func refStatusList(raw []byte, out any) error {
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '{' {
		one, err := refDecode[MarketStatus](raw)
		if err == nil {
			*out.(*[]MarketStatus) = []MarketStatus{one}
		}
		return err
	}
	return refInto(func(r []refOf[MarketStatus]) []MarketStatus { return convertSlice(r, unref) })(raw, out)
}

func refKlineData(raw []byte, out any) error {
	if b := bytes.TrimSpace(raw); len(b) > 0 && b[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err == nil && len(m) == 0 {
			*out.(*klineData) = klineData{emptyObject: true}
			return nil
		}
	}
	return refInto(func(r []refOf[Kline]) klineData { return klineData{klines: convertSlice(r, unref)} })(raw, out)
}

// refDecodeResponse is decodeResponse as it was.
func refDecodeResponse(status int, body []byte, out any) error {
	data, err := refParseEnvelope(status, body)
	if err != nil {
		return err
	}
	if err := refDecodeData(data, out); err != nil {
		return &APIError{StatusCode: status, Path: "/test", Message: "cannot decode data: " + err.Error()}
	}
	return nil
}

// convertSlice keeps nil apart from empty, as cmp does.
func convertSlice[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func convertMap[A, B any](in map[string]A, f func(A) B) map[string]B {
	if in == nil {
		return nil
	}
	out := make(map[string]B, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

// bitsEqual compares floats by their bits: -0 is not 0, and the fast
// number path must give exactly strconv's result.
var bitsEqual = cmp.Options{cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }), cmp.AllowUnexported(klineData{})}
