package codec

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/d19c4e34/itick/internal/wire"
)

// Refusals of the scalar readers, which Refusal turns into located errors
// that say what was wanted.
var (
	ErrNotInteger = errors.New("itick: not an integer")
	ErrTimeRange  = errors.New("itick: timestamp out of range")
	ErrNotBool    = errors.New("itick: not a boolean")
)

// Timestamps beyond year 9999 are refused rather than wrapped.
const (
	maxUnixSeconds = 253402300799
	maxUnixMillis  = maxUnixSeconds*1000 + 999
)

// The scalar readers.

// ReadInt reads an integer: a number, or a number in a string, whose
// exact value is whole and within ±2^53 (see ExactInt); "" or null is 0.
func ReadInt(d *wire.Decoder) (int, error) {
	lit, err := d.NumLit()
	if err != nil || lit == nil {
		return 0, err
	}
	n, ok := ExactInt(lit)
	if !ok {
		return 0, ErrNotInteger
	}
	return n, nil
}

// maxInt is the integer rule's bound, 2^53: past it a float64, and so
// JavaScript and most JSON tools, can no longer hold every integer.
const maxInt = 1 << 53

// ExactInt is the integer rule: the number literal lit (as JSON writes
// numbers; a leading '+' allowed) denotes a whole number within ±2^53
// exactly. 616, 616.0 and 6.16e2 do; 616.5, 6.165e2 and 9007199254740993
// (which a float64 reads as 9007199254740992) do not.
func ExactInt(lit []byte) (int, bool) {
	i, neg := 0, false
	if i < len(lit) && (lit[i] == '-' || lit[i] == '+') {
		neg, i = lit[i] == '-', i+1
	}
	// The mantissa's digits, in order, are lit[start:end] without the
	// point; point is how many come before it.
	start, point, ndig := i, -1, 0
	for ; i < len(lit); i++ {
		switch c := lit[i]; {
		case c >= '0' && c <= '9':
			ndig++
		case c == '.' && point < 0:
			point = ndig
		default:
			goto mantissaEnd
		}
	}
mantissaEnd:
	end := i
	if ndig == 0 {
		return 0, false
	}
	if point < 0 {
		point = ndig
	}
	if i < len(lit) {
		if lit[i] != 'e' && lit[i] != 'E' {
			return 0, false
		}
		e, ok := exponent(lit[i+1:])
		if !ok {
			return 0, false
		}
		point += e
	}
	var n uint64
	k := 0 // the index of the digit among the mantissa's digits
	for j := start; j < end; j++ {
		c := lit[j]
		if c == '.' {
			continue
		}
		switch {
		case k >= point:
			if c != '0' {
				return 0, false // a fraction
			}
		case n > maxInt/10:
			return 0, false
		default:
			n = n*10 + uint64(c-'0')
		}
		k++
	}
	for ; k < point; k++ { // the exponent's zeros
		if n == 0 {
			break
		}
		if n > maxInt/10 {
			return 0, false
		}
		n *= 10
	}
	if n > maxInt {
		return 0, false
	}
	if neg {
		return -int(n), true
	}
	return int(n), true
}

// exponent reads an exponent's digits, with its sign; one too large for
// any integer within the rule is clamped, keeping its sign.
func exponent(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	e := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if e < 1000 {
			e = e*10 + int(c-'0')
		}
	}
	if neg {
		return -e, true
	}
	return e, true
}

// ReadMillis reads a time in Unix milliseconds (see TimeFromMillis).
func ReadMillis(d *wire.Decoder) (time.Time, error) {
	f, err := d.Num()
	if err != nil {
		return time.Time{}, err
	}
	t, ok := TimeFromMillis(f)
	if !ok {
		return time.Time{}, ErrTimeRange
	}
	return t, nil
}

// TimeFromMillis is the millisecond timestamps' rule: 0 is the zero Time,
// anything beyond year 9999 is refused, fractions of a millisecond are
// dropped.
func TimeFromMillis(f float64) (time.Time, bool) {
	if math.Abs(f) > maxUnixMillis {
		return time.Time{}, false
	}
	// A time under one unit past the epoch floors to 0, which encodes as
	// the zero Time; decoding it as the epoch would not round-trip.
	f = math.Floor(f)
	if f == 0 {
		return time.Time{}, true
	}
	return time.UnixMilli(int64(f)).UTC(), true
}

// ReadSeconds reads a time in Unix seconds: 0 is the zero Time, fractions
// of a second are dropped, and anything beyond year 9999 is refused.
func ReadSeconds(d *wire.Decoder) (time.Time, error) {
	f, err := d.Num()
	if err != nil {
		return time.Time{}, err
	}
	if math.Abs(f) > maxUnixSeconds {
		return time.Time{}, ErrTimeRange
	}
	if f = math.Floor(f); f == 0 {
		return time.Time{}, nil
	}
	return time.Unix(int64(f), 0).UTC(), nil
}

// ReadBool takes a boolean as the service sends it: true or false, as
// they are or in a string, 0 or 1 likewise, and null or "" for false.
func ReadBool(d *wire.Decoder) (bool, error) {
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
	return false, ErrNotBool
}

// ReadStrings reads an array of strings (each as a Str field reads one)
// or null, appending them to out; an empty list is nil.
func ReadStrings(d *wire.Decoder, out []string) ([]string, error) {
	empty, err := Enter(d, '[')
	if err != nil || empty {
		return out, err
	}
	for more := true; more; {
		b, err := d.Str()
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
		if more, err = d.Next(']'); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// The writers, which write what encoding/json writes.

// AppendNum writes f as encoding/json writes a float64, so whole numbers
// come out as integers (616, not 6.16e+02), as the service sends them.
func AppendNum(b []byte, f float64) ([]byte, error) {
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

// AppendUnix writes t as a Unix count (unix gives it); the zero Time is 0.
func AppendUnix(b []byte, t time.Time, unix func(time.Time) int64) []byte {
	if t.IsZero() {
		return append(b, '0')
	}
	return strconv.AppendInt(b, unix(t), 10)
}

// AppendString writes s as encoding/json does, escaping <, > and & for
// HTML; text that needs any escape at all is left to encoding/json.
func AppendString(b []byte, s string) []byte {
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
