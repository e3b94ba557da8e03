package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/d19c4e34/itick/internal/wire"
)

// A kind is how a field's value is read and written, whatever struct the
// field is in: dec reads the value at the scanner into the field at p,
// enc writes it as the service sends it, copy copies it to another field
// of the kind. fits tells the Go types it applies to.
type kind struct {
	want string
	fits func(t reflect.Type) bool
	dec  func(st *State, p unsafe.Pointer, key string) error
	enc  func(b []byte, p unsafe.Pointer) ([]byte, error)
	copy func(dst, src unsafe.Pointer)
}

// kinds are the kinds a tag names after the key, such as "unixms" in
// `itick:"t,unixms"`; a field whose tag names none takes the kind of its
// type (kindOfType).
var kinds = map[string]kind{
	"number":  {"a number", isKind(reflect.Float64), decNum, encNum, copyOf[float64]},
	"integer": {"an integer", isKind(reflect.Int), decInt, encInt, copyOf[int]},
	"boolean": {"a boolean", isKind(reflect.Bool), decBool, encBool, copyOf[bool]},
	"string":  {"a string", isKind(reflect.String), decStr, encStr, copyOf[string]},
	"strings": {"an array of strings", is[[]string], decStrings, encStrings, copyOf[[]string]},
	// A code names a product or a market: a code, a symbol, an exchange,
	// a region.
	"code":   {"a code of at most " + strconv.Itoa(MaxCode) + " bytes", isKind(reflect.String), decCode, encStr, copyOf[string]},
	"unixms": {"a timestamp", is[time.Time], decMillis, encMillis, copyOf[time.Time]},
	"unix":   {"a timestamp", is[time.Time], decSeconds, encSeconds, copyOf[time.Time]},
	// The holiday calendar's: a year sent as text, and a list of dates
	// sent as a string holding a JSON array.
	"year":  {"a year", isKind(reflect.Int), decYear, encYear, copyOf[int]},
	"dates": {"a list of dates", is[[]time.Time], decDates, encDates, copyOf[[]time.Time]},
	// The market status's sessions: a comma-separated string.
	"commas": {"a string or an array", is[[]string], decCommas, encCommas, copyOf[[]string]},
}

// kindOfType is the kind of a field whose tag names none.
func kindOfType(t reflect.Type) (string, bool) {
	switch {
	case t.Kind() == reflect.Float64:
		return "number", true
	case t.Kind() == reflect.Int:
		return "integer", true
	case t.Kind() == reflect.Bool:
		return "boolean", true
	case t.Kind() == reflect.String:
		return "string", true
	case t == reflect.TypeFor[[]string]():
		return "strings", true
	}
	return "", false
}

func isKind(k reflect.Kind) func(reflect.Type) bool {
	return func(t reflect.Type) bool { return t.Kind() == k }
}

func is[V any](t reflect.Type) bool { return t == reflect.TypeFor[V]() }

// copyOf copies a V; a named type of V's kind (an int enum, a string
// type) shares its layout.
func copyOf[V any](dst, src unsafe.Pointer) { *(*V)(dst) = *(*V)(src) }

func decNum(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*float64)(p), err = st.D.Num()
	return err
}

func encNum(b []byte, p unsafe.Pointer) ([]byte, error) { return AppendNum(b, *(*float64)(p)) }

func decInt(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*int)(p), err = ReadInt(&st.D)
	return err
}

func encInt(b []byte, p unsafe.Pointer) ([]byte, error) {
	return strconv.AppendInt(b, int64(*(*int)(p)), 10), nil
}

func decBool(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*bool)(p), err = ReadBool(&st.D)
	return err
}

func encBool(b []byte, p unsafe.Pointer) ([]byte, error) {
	return strconv.AppendBool(b, *(*bool)(p)), nil
}

// decStr reads a string as the map key it came under when they are equal
// (a symbol), else as the State's interned copy; a long one that straddled
// the body's blocks keeps the copy the scanner made of it.
func decStr(st *State, p unsafe.Pointer, key string) error {
	b, fresh, err := st.D.StrFresh()
	if fresh && len(b) > maxInternedLen {
		// Nothing else refers to the copy, or will write it.
		*(*string)(p) = unsafe.String(unsafe.SliceData(b), len(b))
		return err
	}
	*(*string)(p) = st.Str(b, key)
	return err
}

func encStr(b []byte, p unsafe.Pointer) ([]byte, error) { return AppendString(b, *(*string)(p)), nil }

// MaxCode bounds, in bytes as sent, a value that names a product or a
// market: a code, a symbol, a region. Codes are a few bytes; a longer one
// is refused where it starts, and passed over without a copy however long
// a hostile server makes it.
const MaxCode = 1024

// decCode reads a code as decStr reads a string, at most MaxCode bytes.
func decCode(st *State, p unsafe.Pointer, key string) error {
	b, err := st.D.StrMax(MaxCode)
	*(*string)(p) = st.Str(b, key)
	return err
}

// decStrings reads a list of strings whose items may arrive as bare
// numbers; null and [] are a nil list, written as [].
func decStrings(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*[]string)(p), err = ReadStrings(&st.D, nil)
	return err
}

func encStrings(b []byte, p unsafe.Pointer) ([]byte, error) {
	list := *(*[]string)(p)
	if list == nil {
		return append(b, "[]"...), nil
	}
	q, err := json.Marshal(list)
	return append(b, q...), err
}

func decMillis(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*time.Time)(p), err = ReadMillis(&st.D)
	return err
}

func encMillis(b []byte, p unsafe.Pointer) ([]byte, error) {
	return AppendUnix(b, *(*time.Time)(p), time.Time.UnixMilli), nil
}

func decSeconds(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*time.Time)(p), err = ReadSeconds(&st.D)
	return err
}

func encSeconds(b []byte, p unsafe.Pointer) ([]byte, error) {
	return AppendUnix(b, *(*time.Time)(p), time.Time.Unix), nil
}

// Refusals of the holiday readers; the field's want says what was wanted.
var (
	errNotYear  = errors.New("itick: not a year")
	errNotDates = errors.New("itick: not a list of dates")
)

// decYear reads a year sent as text ("2025") or a number; empty is 0.
func decYear(st *State, p unsafe.Pointer, _ string) error {
	b, err := st.D.Str()
	if err != nil {
		return err
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		*(*int)(p) = 0
		return nil
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return errNotYear
	}
	*(*int)(p) = n
	return nil
}

// encYear writes the year as text, as the service sends it; 0 is "".
func encYear(b []byte, p unsafe.Pointer) ([]byte, error) {
	y := *(*int)(p)
	if y == 0 {
		return append(b, `""`...), nil
	}
	return strconv.AppendQuote(b, strconv.Itoa(y)), nil
}

var dateLayouts = []string{time.DateOnly, "2006/01/02", "20060102"}

func decDates(st *State, p unsafe.Pointer, _ string) (err error) {
	*(*[]time.Time)(p), err = readDates(&st.D)
	return err
}

// readDates reads a list of calendar dates sent as a string holding a
// JSON array ("[\"2025-01-01\"]"); a plain array is accepted too, and
// null, "" or an empty list is nil.
func readDates(d *wire.Decoder) ([]time.Time, error) {
	var inner wire.Decoder
	if d.Peek() == '"' {
		s, err := d.Str()
		if err != nil {
			return nil, err
		}
		s = bytes.TrimSpace(s)
		if len(s) == 0 || string(s) == "null" {
			return nil, nil
		}
		inner.Reset(s)
		d = &inner
	}
	var arr [8]string
	days, err := ReadStrings(d, arr[:0])
	if err == nil && d == &inner {
		err = d.End()
	}
	if err != nil {
		return nil, errNotDates // an error inside the string has no place in the body
	}
	if len(days) == 0 {
		return nil, nil
	}
	out := make([]time.Time, 0, len(days))
	for _, day := range days {
		t, err := parseDate(strings.TrimSpace(day))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// encDates writes dates as the service does: a string holding a JSON
// array of dates; nil is "[]".
func encDates(b []byte, p unsafe.Pointer) ([]byte, error) {
	dates := *(*[]time.Time)(p)
	days := make([]string, len(dates))
	for i, t := range dates {
		days[i] = t.Format(time.DateOnly)
	}
	inner, _ := json.Marshal(days) // strings always encode
	return AppendString(b, string(inner)), nil
}

// parseDate reads a calendar date in any layout the service uses, at
// 00:00 UTC.
func parseDate(s string) (time.Time, error) {
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errNotDates
}

// decCommas reads a comma-separated string such as
// "08:00-09:00,09:00-17:30,"; empty items are dropped and a JSON array is
// accepted too.
func decCommas(st *State, p unsafe.Pointer, _ string) error {
	d := &st.D
	var items []string
	if d.Peek() == '[' {
		var err error
		if items, err = ReadStrings(d, nil); err != nil {
			return err
		}
	} else {
		s, err := d.Str()
		if err != nil {
			return err
		}
		items = strings.Split(string(s), ",")
	}
	var out []string
	for _, it := range items {
		if v := strings.TrimSpace(it); v != "" {
			out = append(out, v)
		}
	}
	*(*[]string)(p) = out
	return nil
}

func encCommas(b []byte, p unsafe.Pointer) ([]byte, error) {
	return AppendString(b, strings.Join(*(*[]string)(p), ",")), nil
}
