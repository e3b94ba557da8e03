package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// walker reads a document with a sequence of the Decoder's readers chosen
// by a seeded generator, and logs every result, error and offset, so that
// two decoders given the same input and seed can be held to the same log.
type walker struct {
	d    *Decoder
	rng  *rand.Rand
	log  []string
	held []held
}

// held is a slice a reader returned and what it held then: it must hold
// the same at the end of the walk.
type held struct {
	b    []byte
	want string
}

func (w *walker) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf(format, args...)+fmt.Sprintf(" @%d", w.d.Offset()))
}

// got logs a result; it reports false after an error, which ends the walk.
func (w *walker) got(op string, b []byte, err error) bool {
	if err != nil {
		w.logf("%s: error %v", op, err)
		return false
	}
	w.held = append(w.held, held{b, string(b)})
	w.logf("%s %q", op, b)
	return true
}

func (w *walker) value() bool {
	c := w.d.Peek()
	w.logf("peek %q", c)
	switch w.rng.IntN(9) {
	case 0:
		b, err := w.d.Raw()
		return w.got("raw", b, err)
	case 1:
		err := w.d.Skip()
		return w.got("skip", nil, err)
	case 2:
		f, err := w.d.Num()
		return w.got("num", []byte(fmt.Sprint(math.Float64bits(f))), err)
	case 3:
		b, err := w.d.Str()
		return w.got("str", b, err)
	case 4:
		if w.d.Null() {
			w.logf("null")
			return true
		}
	case 5:
		return w.twice()
	}
	switch c {
	case '{':
		return w.object()
	case '[':
		return w.array()
	}
	b, err := w.d.Raw()
	return w.got("raw", b, err)
}

// twice reads a value, then goes back and reads it again as Raw, which
// must give what Since gave.
func (w *walker) twice() bool {
	m := w.d.Mark()
	if !w.value() {
		return false
	}
	since := w.d.Since(m)
	w.got("since", since, nil)
	if w.rng.IntN(2) == 0 {
		return true
	}
	w.d.Rewind(m)
	raw, err := w.d.Raw()
	if err == nil && !bytes.Equal(raw, since) {
		w.logf("raw after rewind %q, since %q", raw, since)
	}
	return w.got("raw again", raw, err)
}

func (w *walker) object() bool {
	empty, err := w.d.Enter('{')
	if !w.got("enter {", nil, err) {
		return false
	}
	for more := !empty; more; {
		k, err := w.d.Key()
		if !w.got("key", k, err) || !w.value() {
			return false
		}
		more, err = w.d.Next('}')
		if !w.got("next }", nil, err) {
			return false
		}
	}
	return true
}

func (w *walker) array() bool {
	empty, err := w.d.Enter('[')
	if !w.got("enter [", nil, err) {
		return false
	}
	for more := !empty; more; {
		if !w.value() {
			return false
		}
		more, err = w.d.Next(']')
		if !w.got("next ]", nil, err) {
			return false
		}
	}
	return true
}

// walk reads one document with d and returns the log. It fails t if a
// slice a reader returned changed before the end.
func walk(t *testing.T, d *Decoder, seed uint64) []string {
	t.Helper()
	w := &walker{d: d, rng: rand.New(rand.NewPCG(seed, 1))}
	if w.value() {
		w.got("end", nil, d.End())
	}
	for _, h := range w.held {
		if string(h.b) != h.want {
			t.Fatalf("a returned slice changed from %q to %q", h.want, h.b)
		}
	}
	return w.log
}

// split cuts b into blocks as seed says: one byte each, a few bytes each,
// or a few large pieces, with empty blocks among them.
func split(b []byte, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	var blocks [][]byte
	most := [...]int{1, 4, 1 + len(b)/2, 1 + len(b)}[seed%4]
	for len(b) > 0 {
		if rng.IntN(8) == 0 {
			blocks = append(blocks, []byte{})
		}
		n := min(len(b), 1+rng.IntN(most))
		blocks = append(blocks, b[:n:n])
		b = b[n:]
	}
	if rng.IntN(2) == 0 {
		blocks = append(blocks, nil)
	}
	return blocks
}

// checkBlocks holds a split document to what the same document in one
// slice gives, read by the same sequence of readers.
func checkBlocks(t *testing.T, blocks [][]byte, seed uint64) {
	t.Helper()
	whole := bytes.Join(blocks, nil)
	var one, many Decoder
	one.Reset(whole)
	want := walk(t, &one, seed)
	many.ResetBlocks([][]byte{[]byte(`{"stale":[1,2]}`), []byte(`3`)})
	many.Skip() // a decoder that read something before
	many.ResetBlocks(blocks)
	got := walk(t, &many, seed)
	if !slices.Equal(got, want) {
		t.Fatalf("blocks %q, seed %d:\n got %q\nwant %q", blocks, seed, got, want)
	}
}

// blockSeeds are documents from the other tests and some that exercise
// each reader across boundaries.
func blockSeeds() []string {
	seeds := slices.Clone(validCases)
	for _, c := range numCases {
		seeds = append(seeds, c.in)
	}
	for _, c := range strCases {
		seeds = append(seeds, c.in)
	}
	return append(seeds,
		`{"a":[1,"b",null,true,{"c":-1.5e3}]}`, `"\u00e9"`,
		`{"code":0,"msg":"ok","data":{"s":"AAPL","ld":"601.5","p":-0.25e-3,"t":1700000000000,"v":12345678901234567890}}`,
		`[{"k":"x\"y\\z\u00e9\ud83d\ude00"},{"K":"\u017f"},["",0,-0,1.0e+2,false]]`,
		"{\"s\":\"\xe2\x82\xac\xff\",\"n\":\"  42 \",\"e\":\"\",\"z\":null}  \n",
		`{"data":[{"po":1,"p":"1.5","v":2,"o":3}],"data":"late"}`,
		`[1.`+strings.Repeat("7", 40)+`,"`+strings.Repeat("long ", 60)+`"]`,
	)
}

func FuzzBlocks(f *testing.F) {
	for i, s := range blockSeeds() {
		f.Add([]byte(s), uint64(i), uint64(i))
	}
	f.Fuzz(func(t *testing.T, doc []byte, seed, cut uint64) {
		checkBlocks(t, split(doc, cut), seed)
	})
}

// TestBlocksEverySplit reads each seed document cut into two blocks at
// every place, and into one-byte blocks, with several reading sequences.
func TestBlocksEverySplit(t *testing.T) {
	t.Parallel()
	for _, doc := range blockSeeds() {
		b := []byte(doc)
		for seed := range uint64(6) {
			for i := 0; i <= len(b); i++ {
				checkBlocks(t, [][]byte{b[:i:i], b[i:]}, seed)
			}
			checkBlocks(t, split(b, 0), seed)
		}
	}
}

func blocksOf(parts ...string) [][]byte {
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = []byte(p)
	}
	return out
}

func TestBlocksStraddlingTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		parts []string
		read  func(*Decoder) (string, error)
		want  string
	}{
		{"\\u escape split", []string{`"x\u00`, `e9y"`}, str, "x\u00e9y"},
		{"\\u escape split after the u", []string{`"x\u`, `00e9"`}, str, "x\u00e9"},
		{"escape split at its backslash", []string{`"a\`, `"b"`}, str, `a"b`},
		{"surrogate pair split between halves", []string{`"\ud83d`, `\ude00"`}, str, "\U0001F600"},
		{"UTF-8 split inside a rune", []string{"\"\xe2\x82", "\xac\""}, str, "\u20ac"},
		{"number split at the point", []string{`12`, `.5`}, num, "12.5"},
		{"number split after the point", []string{`12.`, `5`}, num, "12.5"},
		{"number split in the exponent", []string{`-1.5e`, `+3`}, num, "-1500"},
		{"number in one-byte blocks", []string{`6`, `0`, `1`, `.`, `5`}, num, "601.5"},
		{"number text split", []string{`12`, `.5`}, str, "12.5"},
		{"number in a string split", []string{`" 61`, `6 "`}, num, "616"},
		{"null split", []string{`nu`, `ll`}, num, "0"},
		{"null split for Str", []string{`n`, `u`, `l`, `l`}, str, ""},
		{"true split", []string{`[tr`, `ue]`}, raw, "[true]"},
		{"false split", []string{`fals`, `e`}, raw, "false"},
		{"key split", []string{`{"ab`, `c":1}`}, key, "abc"},
		{"key split before its colon", []string{`{"abc"`, ` `, `:1}`}, key, "abc"},
		{"escaped key split", []string{`{"\u00`, `41":1}`}, key, "A"},
		{"whitespace-only blocks", []string{`[1,`, `   `, "\n\t", ``, `2]`}, raw, "[1,   \n\t2]"},
		{"boundary after the last byte", []string{`{"a":1}`, ``}, raw, `{"a":1}`},
		{"empty blocks first", []string{``, ``, `"x"`}, str, "x"},
		{"long string over many blocks", []string{`"` + strings.Repeat("a", 300), strings.Repeat("b", 300), `c"`},
			str, strings.Repeat("a", 300) + strings.Repeat("b", 300) + "c"},
		{"string cut short", []string{`"ab`, `c`}, str, "error at 4: unexpected end of input in string"},
		{"control character after a boundary", []string{`["ab`, "\x01\"]"}, raw, "error at 4: control character in string"},
		{"bad escape after a boundary", []string{`"a\`, `x"`}, str, "error at 3: invalid escape in string"},
		{"number cut at the point", []string{`[1`, `.`}, raw, "error at 3: unexpected end of input, want digit after decimal point"},
		{"literal cut short", []string{`[tr`, `u`}, raw, "error at 1: unexpected 't', want true"},
		{"trailing garbage in the next block", []string{`{}`, ` x`}, end, "error at 3: unexpected 'x', want end of input"},
	} {
		blocks := blocksOf(c.parts...)
		var d, one Decoder
		d.ResetBlocks(blocks)
		got, err := c.read(&d)
		one.Reset(bytes.Join(blocks, nil))
		want, werr := c.read(&one)
		if err != nil {
			got = fmt.Sprintf("error at %d: %s", errOffset(err), err.(*Error).Msg)
			want = fmt.Sprintf("error at %d: %s", errOffset(werr), werr.(*Error).Msg)
		}
		if got != c.want || want != c.want {
			t.Errorf("%s: read from blocks %q, from one slice %q; want %q", c.name, got, want, c.want)
		}
	}
}

func errOffset(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Offset
	}
	return -1
}

func str(d *Decoder) (string, error) {
	b, err := d.Str()
	return string(b), err
}

func num(d *Decoder) (string, error) {
	f, err := d.Num()
	return fmt.Sprint(f), err
}

func raw(d *Decoder) (string, error) {
	b, err := d.Raw()
	if err == nil {
		err = d.End()
	}
	return string(b), err
}

func key(d *Decoder) (string, error) {
	if _, err := d.Enter('{'); err != nil {
		return "", err
	}
	b, err := d.Key()
	return string(b), err
}

func end(d *Decoder) (string, error) {
	if err := d.Skip(); err != nil {
		return "", err
	}
	return "", d.End()
}

// within reports whether b lies inside block.
func within(b, block []byte) bool {
	if len(b) == 0 || len(block) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	return p >= lo && p+uintptr(len(b)) <= lo+uintptr(len(block))
}

// TestBlocksReadInPlace checks that only straddling tokens are copied:
// keys, strings and values inside one block alias it.
func TestBlocksReadInPlace(t *testing.T) {
	t.Parallel()
	blocks := blocksOf(`{"first":"one","se`, `cond":"two","third":[1,2]}`)
	var d Decoder
	d.ResetBlocks(blocks)
	if _, err := d.Enter('{'); err != nil {
		t.Fatal(err)
	}
	read := func(want string, block int, inPlace bool, f func() ([]byte, error)) {
		t.Helper()
		b, err := f()
		if err != nil || string(b) != want {
			t.Fatalf("read %q, %v; want %q", b, err, want)
		}
		if within(b, blocks[block]) != inPlace {
			t.Errorf("%q in place in block %d: %v, want %v", b, block, !inPlace, inPlace)
		}
	}
	next := func() {
		t.Helper()
		if more, err := d.Next('}'); !more || err != nil {
			t.Fatalf("Next: %v, %v", more, err)
		}
	}
	read("first", 0, true, d.Key)
	read("one", 0, true, d.Str)
	next()
	read("second", 1, false, d.Key) // straddles: a copy
	read("two", 1, true, d.Str)
	next()
	read("third", 1, true, d.Key)
	read("[1,2]", 1, true, d.Raw)
	if more, err := d.Next('}'); more || err != nil || d.End() != nil {
		t.Fatalf("the object's end: %v, %v", more, err)
	}
}

// TestBlocksMarkAcrossBlocks reads a value that spans blocks twice: Since
// and Raw give a copy of it, and offsets count from the input's start.
func TestBlocksMarkAcrossBlocks(t *testing.T) {
	t.Parallel()
	doc := `{"data":[{"a":1},{"b":"xy"}],"x":0}`
	blocks := blocksOf(doc[:12], doc[12:20], doc[20:])
	var d Decoder
	d.ResetBlocks(blocks)
	d.Enter('{')
	if k, err := d.Key(); err != nil || string(k) != "data" {
		t.Fatalf("Key %q, %v", k, err)
	}
	m := d.Mark()
	if err := d.Skip(); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Offset(), strings.Index(doc, `,"x"`); got != want {
		t.Errorf("Offset after the array %d, want %d", got, want)
	}
	since := d.Since(m)
	d.Rewind(m)
	if d.Offset() != strings.Index(doc, "[") {
		t.Errorf("Offset after Rewind %d, want %d", d.Offset(), strings.Index(doc, "["))
	}
	raw, err := d.Raw()
	want := `[{"a":1},{"b":"xy"}]`
	if err != nil || string(raw) != want || string(since) != want {
		t.Fatalf("Raw %q, %v, Since %q; want %q", raw, err, since, want)
	}
	if _, err := d.Next('}'); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Key(); err != nil {
		t.Fatal(err)
	}
	_, err = d.Str()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Skip(); errOffset(err) != len(doc)-1 {
		t.Errorf("Skip at the close: %v, want an error at %d", err, len(doc)-1)
	}
}

func TestBlocksMatchEncodingJSONValidity(t *testing.T) {
	t.Parallel()
	for _, doc := range blockSeeds() {
		b := []byte(doc)
		var d Decoder
		d.ResetBlocks(split(b, 0))
		if got, want := d.Skip() == nil && d.End() == nil, json.Valid(b); got != want {
			t.Errorf("valid(%q) in one-byte blocks = %v, encoding/json says %v", doc, got, want)
		}
	}
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A string that straddles many blocks is found in place and copied once,
// at its size; skipped, it is not copied at all.
func TestLongStringAcrossBlocksIsCopiedOnce(t *testing.T) {
	const n = 4 << 20
	content := strings.Repeat("abcdefgh", n/8)
	doc := []byte(`{"s":"` + content + `","x":1}`)
	blocks := splitEvery(doc, 64<<10)

	var d Decoder
	var got []byte
	var fresh bool
	bytes := allocated(func() {
		d.ResetBlocks(blocks)
		if _, err := d.Enter('{'); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Key(); err != nil {
			t.Fatal(err)
		}
		var err error
		if got, fresh, err = d.StrFresh(); err != nil {
			t.Fatal(err)
		}
	})
	if string(got) != content || !fresh {
		t.Fatalf("read %d bytes (fresh %v), want the %d-byte string in a fresh copy", len(got), fresh, n)
	}
	if bytes > n+n/8 {
		t.Errorf("reading a %d-byte string allocated %d bytes, want about one copy", n, bytes)
	}
	if more, err := d.Next('}'); err != nil || !more {
		t.Fatalf("after the string: more %v, %v", more, err)
	}
	if k, err := d.Key(); err != nil || string(k) != "x" {
		t.Fatalf("next key %q, %v", k, err)
	}

	bytes = allocated(func() {
		d.ResetBlocks(blocks)
		if err := d.Skip(); err != nil || d.End() != nil {
			t.Fatal(err)
		}
	})
	if bytes > 64<<10 {
		t.Errorf("skipping a %d-byte string allocated %d bytes, want none to speak of", n, bytes)
	}
}

// StrMax and KeyMax refuse what is longer than their limit where it
// starts, in one slice or across blocks, without copying it, and leave the
// scan after it.
func TestStrMaxRefusesLongStringsInPlace(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, blockSize := range []int{1 << 30, 4 << 10, 7} {
		doc := []byte(`["` + long + `","ok",{"` + long + `":1}]`)
		var d Decoder
		d.ResetBlocks(splitEvery(doc, blockSize))
		if _, err := d.Enter('['); err != nil {
			t.Fatal(err)
		}
		var err error
		bytes := allocated(func() { _, err = d.StrMax(64) })
		if err != ErrTooLong || bytes > 64<<10 {
			t.Fatalf("blocks of %d: StrMax = %v after %d bytes allocated; want ErrTooLong and no copy", blockSize, err, bytes)
		}
		if more, err := d.Next(']'); !more || err != nil {
			t.Fatalf("blocks of %d: after the refused string: %v, %v", blockSize, more, err)
		}
		if s, err := d.StrMax(64); err != nil || string(s) != "ok" {
			t.Fatalf("blocks of %d: next string %q, %v", blockSize, s, err)
		}
		if more, err := d.Next(']'); !more || err != nil {
			t.Fatal(more, err)
		}
		if _, err := d.Enter('{'); err != nil {
			t.Fatal(err)
		}
		keyAt := d.Offset()
		_, err = d.KeyMax(64)
		var we *Error
		if !errors.As(err, &we) || we.Offset != keyAt || !strings.Contains(we.Msg, "longer than 64") {
			t.Fatalf("blocks of %d: KeyMax = %v, want a refusal at %d", blockSize, err, keyAt)
		}
	}
	var d Decoder
	d.Reset([]byte(`"` + strings.Repeat("y", 64) + `"`))
	if s, err := d.StrMax(64); err != nil || len(s) != 64 {
		t.Errorf("a string at the limit: %d bytes, %v", len(s), err)
	}
}
