// Package wire is the JSON scanner under the SDK's decode path. A Decoder
// walks a document once, validating as it goes, and hands out keys,
// numbers and strings without allocating where the input allows.
//
// It accepts exactly the documents encoding/json accepts (the same grammar,
// whitespace and nesting limit), and its scalar readers follow the SDK's
// tolerant wire types: numbers may arrive as JSON strings, null and "" read
// as zero, and a string may arrive as a bare number.
//
// # Entry points
//
// Reset points a Decoder at a document in one slice; ResetBlocks at a
// document split across several (a body read in blocks), without joining
// them. Everything else reads the same either way.
//
// A model's decoder then walks the document with the structural readers:
// Peek (what the next value is), Enter and Next (an object's or array's
// open, commas and close), Key (a member's name and colon), Null, Skip, and
// End (nothing but whitespace is left). The value readers are Num and Str,
// which apply the SDK's tolerances, and Raw, which validates a value and
// returns its bytes. Mark and Rewind read a value twice (try one shape,
// then keep it raw); Since returns what was read from a Mark. Fields
// matches keys against a model's field names as encoding/json matches
// struct fields (Index: exactly, else under case folding). IsNumberLiteral
// and ParseFloat serve numbers that arrive in strings.
//
// # Invariants
//
// Validation is done as the scan goes: a reader that returns no error has
// passed over a valid value, and an *Error says where the document broke,
// so a document is read once whether or not it is valid.
//
// Offsets (Offset, Error.Offset, a Mark) count bytes from the start of the
// whole input, across blocks, so an error can be placed in the body.
//
// Slices the readers return (keys, strings, number literals, Raw, Since)
// alias the input where they can. A string that straddles blocks is found
// in place and copied once, at its size (StrFresh says when), a number or
// literal that straddles is read from a small copy made for it alone, and
// Raw or Since across blocks return a fresh copy; no copy is reused or
// written afterwards. So every returned slice stays valid, and unchanged,
// for as long as the caller leaves the input's bytes alone; keep one
// longer by copying it. A string passed over (Skip, or refused by StrMax
// or KeyMax for its length) is never copied, however long.
package wire

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf16"
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

// Decoder reads one JSON document from a byte slice or a list of blocks.
// The zero value is ready after Reset.
//
// It scans a window: after Reset the whole input; after ResetBlocks one
// block, or the rest of one, or a small copy holding a token that
// straddles blocks (see more). Every loop runs to the window's end and only
// then asks for more, so the loops are those of a one-slice scanner, and a
// document in one slice pays a comparison where a loop stops.
type Decoder struct {
	buf   []byte // the window
	pos   int    // the scan's place in buf
	base  int    // the input offset of buf[0]
	depth int
	total int // the input's length

	blocks [][]byte // nil after Reset
	starts []int    // the input offset of each block
	ej, ek int      // the input after the window goes on at blocks[ej][ek:]
}

// Offset is how many bytes of the input the decoder has consumed.
func (d *Decoder) Offset() int { return d.base + d.pos }

// Reset points the decoder at b, at nesting depth zero.
func (d *Decoder) Reset(b []byte) {
	d.buf, d.pos, d.base, d.depth, d.total = b, 0, 0, 0, len(b)
	d.blocks, d.ej, d.ek = nil, 0, 0
}

// ResetBlocks points the decoder at the document the blocks hold one after
// the other, at nesting depth zero. Blocks may be of any length, empty
// ones included; they are read in place, never joined, and must stay
// unchanged while the decoder and the slices it returned are in use.
// Reset(b) is ResetBlocks([][]byte{b}).
func (d *Decoder) ResetBlocks(blocks [][]byte) {
	if len(blocks) == 1 {
		d.Reset(blocks[0])
		return
	}
	d.Reset(nil)
	if len(blocks) == 0 {
		return
	}
	d.starts = d.starts[:0]
	n := 0
	for _, b := range blocks {
		d.starts = append(d.starts, n)
		n += len(b)
	}
	d.blocks, d.total = blocks, n
	d.buf, d.ej, d.ek = blocks[0], 0, len(blocks[0])
}

// more is called by a scan that reached the end of the window. keep is
// where the token being scanned starts in it (len(d.buf) when none is).
// If input remains past the window, more moves the window on so that it
// starts at keep, and reports true: on to the rest of the input in place
// when nothing is kept, else to a fresh copy of the kept bytes and enough
// of the input after them (see assemble). Offsets keep their meaning, so
// the caller's positions move back by keep: the token now starts at 0,
// and d.pos is where it was.
func (d *Decoder) more(keep int) bool {
	if d.base+len(d.buf) >= d.total {
		return false
	}
	j, k := d.ej, d.ek
	for k == len(d.blocks[j]) { // input remains, so a later block holds it
		j, k = j+1, 0
	}
	var next []byte
	if keep == len(d.buf) {
		next, d.ej, d.ek = d.blocks[j][k:], j, len(d.blocks[j])
	} else {
		next, d.ej, d.ek = d.assemble(d.buf[keep:], j, k)
	}
	d.buf, d.base, d.pos = next, d.base+keep, d.pos-keep
	return true
}

// delim marks the bytes that end a number or a literal and usually follow
// a string: where a straddling token's copy may stop.
var delim = [256]bool{',': true, ':': true, ']': true, '}': true, ' ': true, '\t': true, '\n': true, '\r': true}

// assemble returns a fresh copy of tail (a token's start) and the input
// from blocks[j][k:] after it, and where the input goes on past the copy.
// It copies at least half as many bytes as tail holds, so a long token
// that straddles again is copied in growing steps (linear in all), then on
// to the first delimiter (looking a little way), where the token most
// likely ends, so the scan goes back to reading the block in place. A copy is never reused: what
// the readers returned from an earlier one stays valid.
func (d *Decoder) assemble(tail []byte, j, k int) ([]byte, int, int) {
	least := max(len(tail)/2, 1)
	most := least + 64
	s := make([]byte, len(tail), len(tail)+most)
	copy(s, tail)
	for n := 0; n < most; {
		b := d.blocks[j][k:]
		switch {
		case len(b) == 0:
			if j+1 == len(d.blocks) {
				return s, j, k
			}
			j, k = j+1, 0
		case n < least-1:
			m := min(len(b), least-1-n)
			s, k, n = append(s, b[:m]...), k+m, n+m
		default:
			s, k, n = append(s, b[0]), k+1, n+1
			if delim[b[0]] {
				return s, j, k
			}
		}
	}
	return s, j, k
}

// need makes the window hold n bytes from d.pos, as far as the input has
// them.
func (d *Decoder) need(n int) {
	for len(d.buf)-d.pos < n && d.more(d.pos) {
	}
}

// input returns the input from offset from to where the decoder is: a view
// of the window or of one block when either holds it all, else a copy.
func (d *Decoder) input(from int) []byte {
	if p := from - d.base; p >= 0 {
		return d.buf[p:d.pos]
	}
	to := d.base + d.pos
	j := d.block(from)
	if b, s := d.blocks[j], d.starts[j]; to-s <= len(b) {
		return b[from-s : to-s]
	}
	out := make([]byte, 0, to-from)
	for ; len(out) < cap(out); j++ {
		b := d.blocks[j][from+len(out)-d.starts[j]:]
		out = append(out, b[:min(len(b), cap(out)-len(out))]...)
	}
	return out
}

// block returns the index of the block that holds offset off: the last
// one starting at or before it.
func (d *Decoder) block(off int) int {
	j, _ := slices.BinarySearch(d.starts, off+1)
	return j - 1
}

func (d *Decoder) fail(msg string) error { return &Error{Offset: d.base + d.pos, Msg: msg} }

// unexpected reports the byte at d.pos, or the end of the input: callers
// call it where the window's end is the input's (after ws, need or more).
func (d *Decoder) unexpected(what string) error {
	if d.pos >= len(d.buf) {
		return d.fail("unexpected end of input, want " + what)
	}
	return d.fail("unexpected " + strconv.QuoteRune(rune(d.buf[d.pos])) + ", want " + what)
}

// ws passes over whitespace in the window. It is the scan's most frequent
// loop, kept small enough to inline, so it stops at the window's end;
// callers then call wsMore, after which d.pos < len(d.buf) unless the
// input has ended.
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

// wsMore goes on with ws in the next windows.
func (d *Decoder) wsMore() {
	for d.pos == len(d.buf) && d.more(d.pos) {
		d.ws()
	}
}

// Peek returns the first byte of the next value, or 0 at the end.
func (d *Decoder) Peek() byte {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos < len(d.buf) {
		return d.buf[d.pos]
	}
	return 0
}

// Null consumes a null literal if one comes next.
func (d *Decoder) Null() bool {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != 'n' {
		return false
	}
	d.need(4)
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
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	return Mark{d.base + d.pos, d.depth}
}

// Rewind goes back to m, to read the value there again.
func (d *Decoder) Rewind(m Mark) {
	d.depth = m.depth
	d.seek(m.pos)
}

// Since returns the input from m to where the decoder is: it aliases the
// input when one block holds it, and is a copy when it spans blocks.
func (d *Decoder) Since(m Mark) []byte { return d.input(m.pos) }

// End checks that only whitespace is left.
func (d *Decoder) End() error {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos != len(d.buf) {
		return d.unexpected("end of input")
	}
	return nil
}

// Enter consumes open ('{' or '[') and reports whether the container is
// empty, in which case its close is consumed too.
func (d *Decoder) Enter(open byte) (empty bool, err error) {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != open {
		return false, d.unexpected(string(open))
	}
	d.pos++
	d.depth++
	if d.depth > maxDepth {
		return false, d.fail("exceeded max depth")
	}
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
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
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
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
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return nil, d.unexpected("object key")
	}
	quoted, plain, err := d.scanString()
	if err != nil {
		return nil, err
	}
	return d.afterKey(quoted, plain)
}

// afterKey passes over the colon after a key and returns the key's content.
func (d *Decoder) afterKey(quoted []byte, plain bool) ([]byte, error) {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
		return nil, d.unexpected("':'")
	}
	d.pos++
	if content := quoted[1 : len(quoted)-1]; plain {
		return content, nil
	}
	return unquote(quoted)
}

// KeyMax is Key refusing a key longer than limit bytes as sent (a key that
// is a code, say), without copying it: the error says where it starts.
func (d *Decoder) KeyMax(limit int) ([]byte, error) {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
		return nil, d.unexpected("object key")
	}
	start := d.base + d.pos
	quoted, plain, _, err := d.scanStringMax(limit)
	if err == ErrTooLong {
		return nil, &Error{Offset: start, Msg: "object key longer than " + strconv.Itoa(limit) + " bytes"}
	}
	if err != nil {
		return nil, err
	}
	return d.afterKey(quoted, plain)
}

// Skip validates and passes over the next value.
func (d *Decoder) Skip() error { return d.value() }

// Raw validates the next value and returns its bytes: they alias the input
// when one block holds the value, and are a copy when it spans blocks.
func (d *Decoder) Raw() ([]byte, error) {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	from := d.base + d.pos
	if err := d.value(); err != nil {
		return nil, err
	}
	return d.input(from), nil
}

// value passes over the next value, validating it.
func (d *Decoder) value() error {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) {
		return d.unexpected("value")
	}
	var err error
	switch d.buf[d.pos] {
	case '{':
		err = d.skipObject()
	case '[':
		err = d.skipArray()
	case '"':
		err = d.skipString()
	case 't':
		err = d.literal("true")
	case 'f':
		err = d.literal("false")
	case 'n':
		err = d.literal("null")
	default:
		_, err = d.scanNumber()
	}
	return err
}

func (d *Decoder) skipObject() error {
	empty, err := d.Enter('{')
	for more := !empty; more && err == nil; {
		if d.ws(); d.pos == len(d.buf) {
			d.wsMore()
		}
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			return d.unexpected("object key")
		}
		if err = d.skipString(); err != nil {
			return err
		}
		if d.ws(); d.pos == len(d.buf) {
			d.wsMore()
		}
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			return d.unexpected("':'")
		}
		d.pos++
		if err = d.value(); err != nil {
			return err
		}
		more, err = d.Next('}')
	}
	return err
}

func (d *Decoder) skipArray() error {
	empty, err := d.Enter('[')
	for more := !empty; more && err == nil; {
		if err = d.value(); err != nil {
			return err
		}
		more, err = d.Next(']')
	}
	return err
}

func (d *Decoder) literal(lit string) error {
	d.need(len(lit))
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

// scanString passes over a string starting at its opening quote. quoted is
// the string with its quotes; plain reports that its content needs no
// unquoting: no escapes and valid UTF-8. A string that straddles blocks is
// found in place and then copied once, at its size (see across), so quoted
// is always one slice.
func (d *Decoder) scanString() (quoted []byte, plain bool, err error) {
	quoted, plain, _, err = d.scanStringMax(-1)
	return quoted, plain, err
}

// scanStringMax is scanString refusing, with ErrTooLong and no copy, a
// string whose content is longer than limit (when limit >= 0). copied
// reports that quoted is a fresh copy, made because the string straddles
// blocks.
func (d *Decoder) scanStringMax(limit int) (quoted []byte, plain, copied bool, err error) {
	end, escaped, nonASCII, err := d.stringEnd(limit)
	if err != nil {
		return nil, false, false, err
	}
	start := d.base + d.pos
	if end < 0 { // it straddles blocks, or is too long: find its end in place
		if end, escaped, nonASCII, err = d.across(escaped, nonASCII); err != nil {
			return nil, false, false, err
		}
	} else {
		end += d.base
	}
	if limit >= 0 && end-start-2 > limit {
		d.seek(end)
		return nil, false, false, ErrTooLong
	}
	if p := start - d.base; end-d.base <= len(d.buf) {
		quoted = d.buf[p : end-d.base]
	} else {
		quoted, copied = d.copyInput(start, end), true // one copy, at its size
	}
	d.seek(end)
	return quoted, !escaped && (!nonASCII || utf8.Valid(quoted[1:len(quoted)-1])), copied, nil
}

// skipString passes over the string at d.pos in place, however long.
func (d *Decoder) skipString() error {
	end, escaped, nonASCII, err := d.stringEnd(-1)
	if err != nil {
		return err
	}
	if end < 0 {
		if end, _, _, err = d.across(escaped, nonASCII); err != nil {
			return err
		}
		d.seek(end)
		return nil
	}
	d.pos = end
	return nil
}

// stringEnd scans the string at d.pos (its opening quote) within the
// window and returns where it ends in the window, just past its closing
// quote, leaving d.pos at its start. When the window ends first, end is
// -1 and the rest is left to across. A string longer than limit (when
// limit >= 0) stops the scan there with end -1 too.
func (d *Decoder) stringEnd(limit int) (end int, escaped, nonASCII bool, err error) {
	b, i := d.buf, d.pos+1
	for {
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) && d.base+len(b) >= d.total {
			return 0, false, false, &Error{Offset: d.base + i, Msg: "unexpected end of input in string"}
		}
		if i >= len(b) || limit >= 0 && i-d.pos > limit {
			return -1, escaped, nonASCII, nil
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, nonASCII, nil
		case c == '\\':
			escaped = true
			if len(b)-i < 6 && d.base+len(b) < d.total { // the longest escape, \uXXXX, may straddle
				return -1, escaped, nonASCII, nil
			}
			p := d.pos
			d.pos = i
			err := d.escape()
			i, d.pos = d.pos, p
			if err != nil {
				return 0, false, false, err
			}
		case c < 0x20:
			return 0, false, false, &Error{Offset: d.base + i, Msg: "control character in string"}
		default:
			nonASCII = true
			i++
		}
	}
}

// across finds, in place, where the string at d.pos ends, however many
// blocks it spans: the input offset just past its closing quote. It
// validates as scanString does and leaves d.pos where it was.
func (d *Decoder) across(escaped, nonASCII bool) (end int, _, _ bool, err error) {
	const (
		normal = iota
		backslash
	)
	state, hex := normal, 0
	off := d.base + d.pos + 1 // past the opening quote
	blocks, starts, first := d.blocks, d.starts, 0
	if blocks == nil { // one slice: the window is the input
		blocks, starts = [][]byte{d.buf}, []int{d.base}
	} else {
		first = d.block(off)
	}
	for j := first; j < len(blocks); j++ {
		b := blocks[j]
		for i := max(off-starts[j], 0); i < len(b); i++ {
			c, at := b[i], starts[j]+i
			switch {
			case hex > 0:
				if !isHex(c) {
					return 0, false, false, &Error{Offset: at, Msg: "invalid \\u escape"}
				}
				hex--
			case state == backslash:
				switch c {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				case 'u':
					hex = 4
				default:
					return 0, false, false, &Error{Offset: at, Msg: "invalid escape in string"}
				}
				state = normal
			case c == '"':
				return at + 1, escaped, nonASCII, nil
			case c == '\\':
				state, escaped = backslash, true
			case c < 0x20:
				return 0, false, false, &Error{Offset: at, Msg: "control character in string"}
			case c >= 0x80:
				nonASCII = true
			}
		}
	}
	msg := "unexpected end of input in string"
	if state == backslash || hex > 0 {
		msg = "unexpected end of input in string escape"
		if hex > 0 {
			msg = "invalid \\u escape"
		}
	}
	return 0, false, false, &Error{Offset: d.total, Msg: msg}
}

// copyInput returns a fresh copy of the input from offset from to to.
func (d *Decoder) copyInput(from, to int) []byte {
	out := make([]byte, 0, to-from)
	for j := d.block(from); len(out) < cap(out); j++ {
		b := d.blocks[j][from+len(out)-d.starts[j]:]
		out = append(out, b[:min(len(b), cap(out)-len(out))]...)
	}
	return out
}

// seek moves the scan to input offset off, reading the block that holds
// it in place: every block stays resident.
func (d *Decoder) seek(off int) {
	if p := off - d.base; p >= 0 && p <= len(d.buf) {
		d.pos = p
		return
	}
	j := d.block(off)
	d.buf, d.base, d.pos = d.blocks[j], d.starts[j], off-d.starts[j]
	d.ej, d.ek = j, len(d.buf)
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

// unquote decodes a string the scanner has validated, holding escapes or
// bytes that are not UTF-8, the way encoding/json does: a lone or broken
// surrogate escape and each invalid byte become U+FFFD. The content comes
// back as it is when it needs no change.
func unquote(quoted []byte) ([]byte, error) {
	s := quoted[1 : len(quoted)-1]
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, nil
	}
	b := make([]byte, r, len(s)+utf8.UTFMax)
	copy(b, s[:r])
	for r < len(s) {
		switch c := s[r]; {
		case c == '\\':
			var n int
			b, n = appendEscape(b, s[r:])
			r += n
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return b, nil
}

// appendEscape appends what the (validated) escape at the start of s
// stands for and says how many bytes of s it took.
func appendEscape(b, s []byte) ([]byte, int) {
	switch s[1] {
	case 'b':
		return append(b, '\b'), 2
	case 'f':
		return append(b, '\f'), 2
	case 'n':
		return append(b, '\n'), 2
	case 'r':
		return append(b, '\r'), 2
	case 't':
		return append(b, '\t'), 2
	case 'u':
		rr := hex4(s[2:6])
		if utf16.IsSurrogate(rr) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if dec := utf16.DecodeRune(rr, hex4(s[8:12])); dec != unicode.ReplacementChar {
					return utf8.AppendRune(b, dec), 12
				}
			}
			rr = unicode.ReplacementChar
		}
		return utf8.AppendRune(b, rr), 6
	}
	return append(b, s[1]), 2 // '"', '\\' or '/'
}

// hex4 reads four hex digits the scanner has checked.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= 'a':
			c -= 'a' - 10
		case c >= 'A':
			c -= 'A' - 10
		default:
			c -= '0'
		}
		r = r<<4 | rune(c)
	}
	return r
}

// scanNumber passes over a number literal in JSON's grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns it.
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
		return d.badNumber(start, i, "value")
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return d.badNumber(start, i, "digit after decimal point")
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return d.badNumber(start, i, "digit in exponent")
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i == len(b) && d.more(start) { // it may go on in the next block
		return d.scanNumber()
	}
	d.pos = i
	return b[start:i], nil
}

// badNumber is scanNumber stopping at b[i], where want was wanted: an
// error, unless the window ended there and the literal goes on in the
// next block, in which case it is scanned again from its start.
func (d *Decoder) badNumber(start, i int, want string) ([]byte, error) {
	if i == len(d.buf) && d.more(start) {
		return d.scanNumber()
	}
	d.pos = i
	return nil, d.unexpected(want)
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
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) {
		return 0, d.unexpected("number")
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		quoted, _, err := d.scanString()
		if err != nil {
			return 0, err
		}
		content := bytes.TrimSpace(quoted[1 : len(quoted)-1])
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

// NumLit reads a number as Num does and returns its literal instead of its
// value: the digits as sent, trimmed of the spaces a string may hold
// around them, and nil for "" or null (both 0). It refuses what Num
// refuses, so that a caller can read the literal exactly (an integer past
// 2^53, which a float64 would round) under the same rules.
func (d *Decoder) NumLit() ([]byte, error) {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) {
		return nil, d.unexpected("number")
	}
	var lit []byte
	switch c := d.buf[d.pos]; {
	case c == '"':
		quoted, _, err := d.scanString()
		if err != nil {
			return nil, err
		}
		if lit = bytes.TrimSpace(quoted[1 : len(quoted)-1]); len(lit) == 0 {
			return nil, nil
		}
		if !IsNumberLiteral(lit) {
			return nil, errNotNumber
		}
	case c == 'n':
		if d.Null() {
			return nil, nil
		}
		return nil, d.unexpected("null")
	case c == '-' || isDigit(c):
		var err error
		if lit, err = d.scanNumber(); err != nil {
			return nil, err
		}
	default:
		return nil, errNotNumber
	}
	if _, err := ParseFloat(lit); err != nil {
		return nil, err
	}
	return lit, nil
}

// number reads a number literal, converting plain decimals as it scans
// them (see ParseFloat for why that is exact) and handing the rest to
// strconv. Like scanNumber, it starts again in a larger window when the
// literal runs to the window's end.
func (d *Decoder) number() (float64, error) {
	for {
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
			if i == len(b) && d.more(start) { // a '-' at the window's end
				continue
			}
			_, err := d.scanNumber() // for its error
			return 0, err
		}
		if i < len(b) && b[i] == '.' {
			mant, frac, i = digitsFrom(b, i+1, mant)
			digits += frac
		}
		if i == len(b) && d.more(start) {
			continue
		}
		if frac == 0 && b[i-1] == '.' || i < len(b) && (b[i] == 'e' || b[i] == 'E') ||
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
	b, _, err := d.str(-1)
	return b, err
}

// StrFresh is Str that also reports whether the bytes are a fresh copy
// made for this string alone (it straddled blocks), which nothing else
// refers to or will write: a caller may keep them as they are, say as
// the bytes of a string, instead of copying them again.
func (d *Decoder) StrFresh() (b []byte, fresh bool, err error) { return d.str(-1) }

// ErrTooLong reports a string longer than StrMax allows.
var ErrTooLong = errors.New("itick: string too long")

// StrMax reads a string as Str does, but refuses one whose content is
// longer than limit bytes as sent with ErrTooLong, passing over it in
// place: a value that should be short (a code, a symbol) costs no copy
// however long a hostile server makes it. A negative limit is no limit.
func (d *Decoder) StrMax(limit int) ([]byte, error) {
	b, _, err := d.str(limit)
	return b, err
}

func (d *Decoder) str(limit int) (b []byte, fresh bool, err error) {
	if d.ws(); d.pos == len(d.buf) {
		d.wsMore()
	}
	if d.pos >= len(d.buf) {
		return nil, false, d.unexpected("string")
	}
	switch c := d.buf[d.pos]; {
	case c == '"':
		quoted, plain, copied, err := d.scanStringMax(limit)
		if err != nil {
			return nil, false, err
		}
		if plain {
			return quoted[1 : len(quoted)-1], copied, nil
		}
		b, err := unquote(quoted) // a new buffer, or quoted's content
		return b, copied || len(b) > 0 && &b[0] != &quoted[1], err
	case c == 'n':
		if d.Null() {
			return nil, false, nil
		}
		return nil, false, d.unexpected("null")
	case c == '-' || isDigit(c):
		lit, err := d.scanNumber()
		if err != nil {
			return nil, false, err
		}
		if _, err := ParseFloat(lit); err != nil {
			return nil, false, err
		}
		return lit, false, nil
	}
	return nil, false, errNotString
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

// IndexAfter is Index for a key that usually follows the field at prev
// (-1: none yet), as keys do when a document lists them in the order the
// names were given: that name is tried first.
func (f *Fields) IndexAfter(key []byte, prev int) int {
	if next := prev + 1; next < len(f.names) && f.names[next] == string(key) {
		return next
	}
	return f.Index(key)
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
