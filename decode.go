package itick

import (
	"github.com/d19c4e34/itick/internal/redact"
	"github.com/d19c4e34/itick/internal/wire"

	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
)

// decodeResponse is the single path from a response body to the SDK's
// types: the envelope's success rule, then the data into out.
//
// The fast path reads it all in one pass; a body it refuses takes the
// reference path (encoding/json), whose error messages users see.
func decodeResponse(path string, status int, header http.Header, body []byte, red *redact.Redactor, out any) error {
	refused, err := fastResponse(path, status, header, body, red, out)
	if !refused {
		return err
	}
	data, err := parseEnvelope(path, status, header, body, red)
	if err != nil {
		return err
	}
	if err := decodeData(data, out); err != nil {
		return dataError(path, status, header, body, data, err, red)
	}
	return nil
}

// decodeData decodes a response's data into out. The SDK's own result
// types take the fast path over the wire scanner; anything else, and any
// data the fast path refuses (so that the error is encoding/json's), goes
// through encoding/json.
func decodeData(raw []byte, out any) error {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if handled, err := decodeFast(raw, out); handled && err == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

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

// integer is an int that also arrives as a quoted or integral float number.
type integer int

func (n *integer) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	i, ok := intFromFloat(f)
	if !ok {
		return badValue(b, "an integer")
	}
	*n = integer(i)
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
	return badValue(b, "a string")
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
		return badValue(b, "a boolean")
	}
	return nil
}

func (v boolean) MarshalJSON() ([]byte, error) { return strconv.AppendBool(nil, bool(v)), nil }

// Timestamps beyond year 9999 are refused rather than wrapped.
const (
	maxUnixSeconds = 253402300799
	maxUnixMillis  = maxUnixSeconds*1000 + 999
)

// millis is a time sent as Unix milliseconds; 0 or null is the zero Time.
type millis time.Time

func (t *millis) UnmarshalJSON(b []byte) error {
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	tt, ok := timeFromMillis(f)
	if !ok {
		return badValue(b, "a timestamp before year 10000")
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
	if math.Abs(f) > maxUnixSeconds {
		return badValue(b, "a timestamp before year 10000")
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
	raw := b
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return 0, nil
	}
	if b[0] == '"' {
		if len(b) < 2 || b[len(b)-1] != '"' {
			return 0, badValue(raw, "a number")
		}
		b = bytes.TrimSpace(b[1 : len(b)-1])
		if len(b) == 0 {
			return 0, nil
		}
	}
	if !wire.IsNumberLiteral(b) {
		return 0, badValue(raw, "a number")
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, badValue(raw, "a finite number")
	}
	return f, nil
}

// intFromFloat is the integer type's rule: a whole number within ±2^53.
func intFromFloat(f float64) (int, bool) {
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

// timeFromMillis is the millis type's rule: 0 is the zero Time, anything
// beyond year 9999 is refused, fractions of a millisecond are dropped.
func timeFromMillis(f float64) (time.Time, bool) {
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
