package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// valid reports whether the Decoder takes b as one whole document.
func valid(b []byte) bool {
	var d Decoder
	d.Reset(b)
	return d.Skip() == nil && d.End() == nil
}

// validCases are documents at the edges of the grammar; FuzzBlocks starts
// from them too.
var validCases = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `nulll`, `True`, `0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-5`,
	`1.5e10`, `-0.0e-0`, `+1`, `"`, `""`, `"\u00e9"`, `"\u00E"`, `"\x"`, `"\/"`, "\"\x01\"", "\"\x7f\"",
	"\"\xff\"", `[]`, `[,]`, `[1,]`, `[1 2]`, `{}`, `{,}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`,
	`{1:2}`, `{"a":1}}`, `[[[]]]`, ` {"a" : [ 1 , { } ] } `, "\ufeff{}", `{"a":1}x`, "{}\x00", "\t\r\n[]",
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range validCases {
		if got, want := valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestNestingLimit(t *testing.T) {
	t.Parallel()
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		doc := strings.Repeat("[", n) + strings.Repeat("]", n)
		if got, want := valid([]byte(doc)), json.Valid([]byte(doc)); got != want {
			t.Errorf("depth %d: valid %v, encoding/json says %v", n, got, want)
		}
		obj := strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
		if got, want := valid([]byte(obj)), json.Valid([]byte(obj)); got != want {
			t.Errorf("object depth %d: valid %v, encoding/json says %v", n, got, want)
		}
	}
}

// parseRef is what the SDK's parseNumber did with a literal.
func parseRef(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0)
}

func checkParse(t testing.TB, s string) {
	t.Helper()
	got, err := ParseFloat([]byte(s))
	want, ok := parseRef(s)
	if json.Valid([]byte(s)) && s != "" && s[0] != '"' {
		// A literal in a document goes through Num's own scan.
		var d Decoder
		d.Reset([]byte(s))
		n, nerr := d.Num()
		if nerr == nil {
			nerr = d.End()
		}
		if (nerr == nil) != ok || ok && math.Float64bits(n) != math.Float64bits(want) {
			t.Fatalf("Num(%s) = %v, %v; strconv gives %v, ok %v", s, n, nerr, want, ok)
		}
	}
	if (err == nil) != ok {
		t.Fatalf("ParseFloat(%q): error %v, strconv ok %v", s, err, ok)
	}
	if ok && math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("ParseFloat(%q) = %v (%#x), strconv gives %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

func TestParseFloatMatchesStrconv(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0", "-0", "0.0", "-0.0", "1", "616", "601.5", "1.3431899999999999", "9007199254740992", "9007199254740993",
		"18446744073709551615", "18446744073709551616", "1234567890123456789", "12345678901234567890",
		"0.1", "0.2", "0.3", "123456.789", "0.0000000000000000000001", "0.00000000000000000000001",
		"1e22", "1e23", "2.1e13", "1e400", "-1e400", "1e-400", "4.9e-324", "1.7976931348623157e308",
		"5.", ".5", "+1", "00012.50", "1.2.3", "-", "", ".", "1e", "99999999999999999999.5",
	} {
		checkParse(t, s)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 200000 {
		intDigits, fracDigits := r.IntN(17), r.IntN(24)
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(byte('0' + r.IntN(10)))
		for range intDigits {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		if fracDigits > 0 {
			b.WriteByte('.')
			for range fracDigits {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		checkParse(t, b.String())
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"616", "601.5", "-0.0", "1.3431899999999999", "1e22", "9007199254740993.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !IsNumberLiteral([]byte(s)) {
			return
		}
		checkParse(t, s)
	})
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",null,true,{"c":-1.5e3}]}`, `[]`, `"\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func TestFieldsFoldLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	names := []string{"s", "ld", "tu", "chp", "k"}
	f := NewFields(names...)
	for _, key := range []string{"S", "LD", "lD", "Tu", "CHP", "\u017f", "\u212a", "K", "x", "", "ss", "s\u0085", "\xff", "\xe2\x84"} {
		got := f.Fold([]byte(key))
		// encoding/json's verdict: which field a struct with these tags fills.
		var v struct {
			S   int `json:"s"`
			Ld  int `json:"ld"`
			Tu  int `json:"tu"`
			Chp int `json:"chp"`
			K   int `json:"k"`
		}
		if err := json.Unmarshal([]byte(`{"`+key+`":1}`), &v); err != nil {
			t.Fatal(err)
		}
		want := -1
		for i, n := range []int{v.S, v.Ld, v.Tu, v.Chp, v.K} {
			if n == 1 {
				want = i
			}
		}
		if got != want {
			t.Errorf("Fold(%q) = %d, encoding/json fills field %d", key, got, want)
		}
	}
}

// numCases and strCases are Num's and Str's tolerances and refusals;
// FuzzBlocks starts from them too.
var numCases = []struct {
	in   string
	want float64
	ok   bool
}{
	{`616`, 616, true}, {`"616.5"`, 616.5, true}, {`" 7 "`, 7, true}, {"\"\u00a07\"", 7, true}, {`""`, 0, true},
	{`null`, 0, true}, {`"1e3"`, 1000, true}, {`"+1"`, 1, true}, {`".5"`, 0.5, true},
	{`"NaN"`, 0, false}, {`"Inf"`, 0, false}, {`"0x1p3"`, 0, false}, {`"1_0"`, 0, false}, {`true`, 0, false},
	{`{}`, 0, false}, {`[]`, 0, false}, {`"1e999"`, 0, false}, {`1e999`, 0, false}, {`"\u0031"`, 0, false},
}

var strCases = []struct {
	in, want string
	ok       bool
}{
	{`"700"`, "700", true}, {`700`, "700", true}, {`-1.5e2`, "-1.5e2", true}, {`null`, "", true},
	{`"a\"b\u00e9"`, "a\"b\u00e9", true}, {"\"\xff\"", "\ufffd", true}, {`"\ud800"`, "\ufffd", true},
	{`1e999`, "", false}, {`true`, "", false}, {`{}`, "", false}, {`[]`, "", false},
}

func TestNumAndStr(t *testing.T) {
	t.Parallel()
	for _, c := range numCases {
		var d Decoder
		d.Reset([]byte(c.in))
		got, err := d.Num()
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Num(%s) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	for _, c := range strCases {
		var d Decoder
		d.Reset([]byte(c.in))
		got, err := d.Str()
		if (err == nil) != c.ok || string(got) != c.want {
			t.Errorf("Str(%s) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestFieldsIndex(t *testing.T) {
	f := NewFields("s", "ld", "chp")
	for key, want := range map[string]int{"s": 0, "ld": 1, "chp": 2, "LD": 1, "ſ": 0, "Chp": 2, "x": -1, "": -1} {
		if got := f.Index([]byte(key)); got != want {
			t.Errorf("Index(%q) = %d, want %d", key, got, want)
		}
	}
}

func TestFieldsIndexAfter(t *testing.T) {
	f := NewFields("s", "ld", "o", "p")
	for _, tc := range []struct {
		key  string
		prev int
		want int
	}{
		{"s", -1, 0}, {"ld", 0, 1}, {"o", 1, 2}, {"p", 2, 3},
		{"p", -1, 3}, {"s", 3, 0}, {"LD", 0, 1}, {"x", 1, -1}, {"o", 3, 2},
	} {
		if got := f.IndexAfter([]byte(tc.key), tc.prev); got != tc.want {
			t.Errorf("IndexAfter(%q, %d) = %d, want %d", tc.key, tc.prev, got, tc.want)
		}
	}
}

// FuzzStr holds Str to encoding/json on every string it accepts: escapes,
// surrogate pairs whole, lone and broken, and bytes that are not UTF-8.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\n\t\\\"\/"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`,
		`"\ude00\ud83d"`, "\"\xff\xfe\"", "\"\xe2\x84\"", `"\b\f\r"`, `"\uD83D\uDE00"`, "\"é\\u0000\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Decoder
		d.Reset(b)
		got, err := d.Str()
		if err == nil {
			err = d.End()
		}
		var want string
		wantErr := json.Unmarshal(b, &want)
		if err != nil || wantErr != nil {
			if (err == nil) != (wantErr == nil) && len(bytes.TrimSpace(b)) > 0 && bytes.TrimSpace(b)[0] == '"' {
				t.Fatalf("Str(%q): error %v, encoding/json %v", b, err, wantErr)
			}
			return
		}
		if string(got) != want {
			t.Fatalf("Str(%q) = %q, encoding/json %q", b, got, want)
		}
	})
}

func TestNumLitKeepsTheLiteral(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{`9007199254740993`, "9007199254740993"},
		{`"9007199254740993"`, "9007199254740993"},
		{`" 6.16e2 "`, "6.16e2"},
		{`""`, ""}, {`null`, ""},
	} {
		var d Decoder
		d.ResetBlocks(splitEvery([]byte(tc.doc), 3))
		lit, err := d.NumLit()
		if err != nil || string(lit) != tc.want || d.End() != nil {
			t.Errorf("NumLit(%s) = %q, %v; want %q", tc.doc, lit, err, tc.want)
		}
	}
	for _, doc := range []string{`"abc"`, `true`, `{}`, `1e400`, `"NaN"`, `"0x10"`, `-`} {
		var d Decoder
		d.Reset([]byte(doc))
		var n Decoder
		n.Reset([]byte(doc))
		_, err := d.NumLit()
		_, numErr := n.Num()
		if err == nil || numErr == nil || err.Error() != numErr.Error() {
			t.Errorf("NumLit(%s) err %v; Num err %v: both must refuse alike", doc, err, numErr)
		}
	}
}

// splitEvery cuts b into blocks of n bytes.
func splitEvery(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}
