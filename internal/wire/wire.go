// Package wire is the JSON scanner under the SDK's decode path. A Decoder
// walks a byte slice once, validating as it goes, and hands out keys,
// numbers and strings without allocating where the input allows.
//
// It accepts exactly the documents encoding/json accepts (the same grammar,
// whitespace and nesting limit), and its scalar readers follow the SDK's
// tolerant wire types: numbers may arrive as JSON strings, null and "" read
// as zero, and a string may arrive as a bare number.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// Error is a document the Decoder refuses, with the offset where it stopped.
type Error struct {
	Offset int
	Msg    string
}

// Error says where the document went wrong and how.
func (e *Error) Error() string {
	return "itick: json at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Decoder reads one JSON document from a byte slice. The zero value is
// ready after Reset.
type Decoder struct {
	buf   []byte
	pos   int
	depth int
}

// Offset is how many bytes of the input the decoder has consumed.
func (d *Decoder) Offset() int { return d.pos }

// Reset points the decoder at b, at nesting depth zero.
func (d *Decoder) Reset(b []byte) {
	d.buf, d.pos, d.depth = b, 0, 0
}

func (d *Decoder) fail(msg string) error { return &Error{Offset: d.pos, Msg: msg} }

func (d *Decoder) unexpected(what string) error {
	if d.pos >= len(d.buf) {
		return d.fail("unexpected end of input, want " + what)
	}
	return d.fail("unexpected " + strconv.QuoteRune(rune(d.buf[d.pos])) + ", want " + what)
}

func (d *Decoder) ws() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// Peek returns the first byte of the next value, or 0 at the end.
func (d *Decoder) Peek() byte {
	d.ws()
	if d.pos < len(d.buf) {
		return d.buf[d.pos]
	}
	return 0
}

// Null consumes a null literal if one comes next.
func (d *Decoder) Null() bool {
	d.ws()
	if len(d.buf)-d.pos >= 4 && string(d.buf[d.pos:d.pos+4]) == "null" {
		d.pos += 4
		return true
	}
	return false
}

// Mark is a place in the input to come back to.
type Mark struct{ pos, depth int }

// Mark returns the place where the next value starts.
func (d *Decoder) Mark() Mark {
	d.ws()
	return Mark{d.pos, d.depth}
}

// Rewind goes back to m, to read the value there again.
func (d *Decoder) Rewind(m Mark) { d.pos, d.depth = m.pos, m.depth }

// Since returns the input from m to where the decoder is.
func (d *Decoder) Since(m Mark) []byte { return d.buf[m.pos:d.pos] }

// End checks that only whitespace is left.
func (d *Decoder) End() error {
	d.ws()
	if d.pos != len(d.buf) {
		return d.unexpected("end of input")
	}
	return nil
}

// Enter consumes open ('{' or '[') and reports whether the container is
// empty, in which case its close is consumed too.
func (d *Decoder) Enter(open byte) (empty bool, err error) {
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != open {
		return false, d.unexpected(string(open))
	}
	d.pos++
	d.depth++
	if d.depth > maxDepth {
		return false, d.fail("exceeded max depth")
	}
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == open+2 { // '}' or ']'
		d.pos++
		d.depth--
		return true, nil
	}
	return false, nil
}

// Next consumes the ',' before another member or the close ('}' or ']')
// that ends the container, and reports which it was.
func (d *Decoder) Next(close byte) (more bool, err error) {
	d.ws()
	if d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ',':
			d.pos++
			return true, nil
		case close:
			d.pos++
			d.depth--
			return false, nil
		}
	}
	return false, d.unexpected("',' or " + string(close))
}

// Key reads an object key and its colon. It returns the unquoted key,
// which aliases the input unless the key had escapes or invalid UTF-8.
func (d *Decoder) Key() ([]byte, error) {
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return nil, d.unexpected("object key")
	}
	start := d.pos
	content, plain, err := d.scanString()
	if err != nil {
		return nil, err
	}
	quoted := d.buf[start:d.pos]
	d.ws()
	if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
		return nil, d.unexpected("':'")
	}
	d.pos++
	if plain {
		return content, nil
	}
	return unquote(quoted, content)
}

// Skip validates and passes over the next value.
func (d *Decoder) Skip() error {
	_, err := d.Raw()
	return err
}

// Raw validates the next value and returns its bytes.
func (d *Decoder) Raw() ([]byte, error) {
	d.ws()
	if d.pos >= len(d.buf) {
		return nil, d.unexpected("value")
	}
	start := d.pos
	var err error
	switch c := d.buf[d.pos]; c {
	case '{':
		err = d.skipObject()
	case '[':
		err = d.skipArray()
	case '"':
		_, _, err = d.scanString()
	case 't':
		err = d.literal("true")
	case 'f':
		err = d.literal("false")
	case 'n':
		err = d.literal("null")
	default:
		_, err = d.scanNumber()
	}
	if err != nil {
		return nil, err
	}
	return d.buf[start:d.pos], nil
}

func (d *Decoder) skipObject() error {
	empty, err := d.Enter('{')
	for more := !empty; more && err == nil; {
		d.ws()
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			return d.unexpected("object key")
		}
		if _, _, err = d.scanString(); err != nil {
			return err
		}
		d.ws()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			return d.unexpected("':'")
		}
		d.pos++
		if err = d.Skip(); err != nil {
			return err
		}
		more, err = d.Next('}')
	}
	return err
}

func (d *Decoder) skipArray() error {
	empty, err := d.Enter('[')
	for more := !empty; more && err == nil; {
		if err = d.Skip(); err != nil {
			return err
		}
		more, err = d.Next(']')
	}
	return err
}

func (d *Decoder) literal(lit string) error {
	if len(d.buf)-d.pos < len(lit) || string(d.buf[d.pos:d.pos+len(lit)]) != lit {
		return d.unexpected(lit)
	}
	d.pos += len(lit)
	return nil
}

// plainByte marks the bytes a string may hold as they are: printable
// ASCII other than the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString passes over a string starting at its opening quote. content
// is the raw text between the quotes; plain reports that it needs no
// unquoting: no escapes and valid UTF-8.
func (d *Decoder) scanString() (content []byte, plain bool, err error) {
	d.pos++ // opening quote
	start := d.pos
	escaped, nonASCII := false, false
	for {
		for d.pos < len(d.buf) && plainByte[d.buf[d.pos]] {
			d.pos++
		}
		if d.pos >= len(d.buf) {
			return nil, false, d.fail("unexpected end of input in string")
		}
		switch c := d.buf[d.pos]; {
		case c == '"':
			content = d.buf[start:d.pos]
			d.pos++
			return content, !escaped && (!nonASCII || utf8.Valid(content)), nil
		case c == '\\':
			escaped = true
			if err := d.escape(); err != nil {
				return nil, false, err
			}
		case c < 0x20:
			return nil, false, d.fail("control character in string")
		default:
			nonASCII = true
			d.pos++
		}
	}
}

func (d *Decoder) escape() error {
	d.pos++ // backslash
	if d.pos >= len(d.buf) {
		return d.fail("unexpected end of input in string escape")
	}
	switch d.buf[d.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		d.pos++
		return nil
	case 'u':
		d.pos++
		for i := 0; i < 4; i++ {
			if d.pos >= len(d.buf) || !isHex(d.buf[d.pos]) {
				return d.fail("invalid \\u escape")
			}
			d.pos++
		}
		return nil
	}
	return d.fail("invalid escape in string")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote decodes a string with escapes or invalid UTF-8 the way
// encoding/json does, by asking it: these are rare.
func unquote(quoted, content []byte) ([]byte, error) {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return nil, err
	}
	if s == string(content) {
		return content, nil
	}
	return []byte(s), nil
}

// scanNumber passes over a number literal in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *Decoder) scanNumber() ([]byte, error) {
	b, start := d.buf, d.pos
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		d.pos = i
		return nil, d.unexpected("value")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			d.pos = i
			return nil, d.unexpected("digit after decimal point")
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			d.pos = i
			return nil, d.unexpected("digit in exponent")
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	d.pos = i
	return b[start:i], nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var (
	errNotNumber = errors.New("itick: not a number")
	errNotFinite = errors.New("itick: not a finite number")
	errNotString = errors.New("itick: not a string")
)

// Num reads a number as the SDK's num type does: a number, a number in a
// string (surrounding spaces allowed), "" or null (both 0). NaN and the
// infinities are refused.
func (d *Decoder) Num() (float64, error) {
	d.ws()
	if d.pos >= len(d.buf) {
		return 0, d.unexpected("number")
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		content, _, err := d.scanString()
		if err != nil {
			return 0, err
		}
		content = bytes.TrimSpace(content)
		if len(content) == 0 {
			return 0, nil
		}
		if !IsNumberLiteral(content) {
			return 0, errNotNumber
		}
		return ParseFloat(content)
	case c == 'n':
		if d.Null() {
			return 0, nil
		}
		return 0, d.unexpected("null")
	case c == '-' || isDigit(c):
		return d.number()
	}
	return 0, errNotNumber
}

// number reads a number literal, converting plain decimals as it scans
// them (see ParseFloat for why that is exact) and handing the rest to
// strconv.
func (d *Decoder) number() (float64, error) {
	b, start := d.buf, d.pos
	i, neg := start, false
	if i < len(b) && b[i] == '-' {
		i, neg = i+1, true
	}
	var mant uint64
	digits, frac := 0, 0
	switch {
	case i < len(b) && b[i] == '0':
		i, digits = i+1, 1
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		mant, digits, i = digitsFrom(b, i, 0)
	default:
		_, err := d.scanNumber() // for its error
		return 0, err
	}
	if i < len(b) && b[i] == '.' {
		mant, frac, i = digitsFrom(b, i+1, mant)
		digits += frac
	}
	if frac == 0 && i > start && b[i-1] == '.' || i < len(b) && (b[i] == 'e' || b[i] == 'E') ||
		digits > 19 || mant > 1<<53 || frac >= len(pow10) {
		lit, err := d.scanNumber()
		if err != nil {
			return 0, err
		}
		return ParseFloat(lit)
	}
	d.pos = i
	return exact(mant, frac, neg), nil
}

// digitsFrom adds the decimal digits of b from i to mant: the mantissa,
// how many digits it took and where they end. Both number paths (the
// scanner's and ParseFloat's) read decimals with it.
func digitsFrom(b []byte, i int, mant uint64) (uint64, int, int) {
	start := i
	for ; i < len(b) && isDigit(b[i]); i++ {
		mant = mant*10 + uint64(b[i]-'0')
	}
	return mant, i - start, i
}

// exact is mant / 10^frac, negated if neg, for the plain decimals ParseFloat
// explains are exact.
func exact(mant uint64, frac int, neg bool) float64 {
	f := float64(mant)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f
}

// Str reads a string as the SDK's str type does: a string, null (empty), or
// a bare finite number, kept as its literal text. The result aliases the
// input unless the string had escapes or invalid UTF-8.
func (d *Decoder) Str() ([]byte, error) {
	d.ws()
	if d.pos >= len(d.buf) {
		return nil, d.unexpected("string")
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		start := d.pos
		content, plain, err := d.scanString()
		if err != nil || plain {
			return content, err
		}
		return unquote(d.buf[start:d.pos], content)
	case c == 'n':
		if d.Null() {
			return nil, nil
		}
		return nil, d.unexpected("null")
	case c == '-' || isDigit(c):
		lit, err := d.scanNumber()
		if err != nil {
			return nil, err
		}
		if _, err := ParseFloat(lit); err != nil {
			return nil, err
		}
		return lit, nil
	}
	return nil, errNotString
}

// IsNumberLiteral accepts the characters of a number, so that strconv's
// extras (NaN, Inf, hex, underscores) are not taken as numbers.
func IsNumberLiteral(b []byte) bool {
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
		case c == '-' || c == '+':
			if i != 0 && b[i-1] != 'e' && b[i-1] != 'E' {
				return false
			}
		case c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return len(b) > 0
}

// pow10 holds the powers of ten a float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ParseFloat is strconv.ParseFloat(string(b), 64) for finite results,
// with a fast path for plain decimals. The fast path gives the same bits:
// when the digits form an integer of at most 2^53 and there are at most 22
// of them after the point, both the integer and the power of ten are exact
// float64s, so their quotient is the one correctly rounded result.
func ParseFloat(b []byte) (float64, error) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		i, neg = 1, true
	}
	mant, digits, i := digitsFrom(b, i, 0)
	frac := 0
	if i < len(b) && b[i] == '.' {
		mant, frac, i = digitsFrom(b, i+1, mant)
		digits += frac
		if frac == 0 {
			digits = 0 // "5." is left to strconv
		}
	}
	if i == len(b) && digits > 0 && digits <= 19 && mant <= 1<<53 && frac < len(pow10) {
		return exact(mant, frac, neg), nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) {
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, errNotNumber
		}
		return 0, errNotFinite
	}
	return f, nil
}

// Fields matches object keys against a set of field names the way
// encoding/json matches struct fields: exactly, or else under its case
// folding (which also maps 'ſ' to 's' and the Kelvin sign to 'k').
type Fields struct {
	names, folded []string
}

// NewFields returns a matcher for names; Index reports positions in it.
func NewFields(names ...string) *Fields {
	f := &Fields{names: names, folded: make([]string, len(names))}
	for i, n := range names {
		f.folded[i] = string(appendFolded(nil, []byte(n)))
	}
	return f
}

// Index returns the position of the name key matches, exactly or else
// under case folding, or -1: where a model's decoder looks up each key.
func (f *Fields) Index(key []byte) int {
	for i, n := range f.names {
		if n == string(key) {
			return i
		}
	}
	return f.Fold(key)
}

// Fold returns the index of the name key matches under case folding, or -1.
// Callers try the exact names first; this is the slow path.
func (f *Fields) Fold(key []byte) int {
	var arr [32]byte
	k := appendFolded(arr[:0], key)
	for i, n := range f.folded {
		if n == string(k) {
			return i
		}
	}
	return -1
}

// appendFolded is encoding/json's foldName: ASCII letters upper-cased, any
// other rune replaced by the smallest rune of its case-folding orbit.
func appendFolded(out, in []byte) []byte {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

// foldRune returns the smallest rune of r's case-folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
