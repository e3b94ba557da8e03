package codec

import (
	"math/big"
	"strconv"
	"testing"

	"github.com/d19c4e34/itick/internal/wire"
)

func TestExactIntTakesOnlyWholeNumbersWithinTwoTo53(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lit  string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"616", 616, true}, {"-616", -616, true}, {"+7", 7, true},
		{"616.0", 616, true}, {"6.16e2", 616, true}, {"6.16E+2", 616, true}, {"100e-2", 1, true},
		{"5.", 5, true}, {"0e99999999999", 0, true}, {"0.000e5", 0, true},
		{"9007199254740992", 1 << 53, true}, {"-9007199254740992", -(1 << 53), true},
		{"9007199254740993", 0, false}, {"-9007199254740993", 0, false}, {"9007199254740994", 0, false},
		{"1e16", 0, false}, {"9.007199254740993e15", 0, false}, {"18446744073709551617", 0, false},
		{"616.5", 0, false}, {"6.165e2", 0, false}, {"1e-2", 0, false}, {".5", 0, false},
		{"4503599627370496.5", 0, false}, {"1.0000000000000000001", 0, false},
		{"5e-99999999999", 0, false}, {"1e99999999999", 0, false},
		{"", 0, false}, {"-", 0, false}, {"e5", 0, false}, {"1e", 0, false}, {"1e+", 0, false}, {"1..2", 0, false},
	} {
		got, ok := ExactInt([]byte(tc.lit))
		if got != tc.want || ok != tc.ok {
			t.Errorf("ExactInt(%q) = %d, %v; want %d, %v", tc.lit, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzExactInt holds ExactInt to math/big's exact reading of the literal.
func FuzzExactInt(f *testing.F) {
	for _, s := range []string{"616", "6.16e2", "9007199254740993", "1e16", "0.5", "-12.000", "1e-3", "123456789012345678e-2"} {
		f.Add(s)
	}
	limit := new(big.Int).Lsh(big.NewInt(1), 53)
	f.Fuzz(func(t *testing.T, s string) {
		if !wire.IsNumberLiteral([]byte(s)) {
			return
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return // an exponent too large for math/big; the table covers those
		}
		want := r.IsInt() && new(big.Int).Abs(r.Num()).Cmp(limit) <= 0
		got, gotOK := ExactInt([]byte(s))
		if gotOK != want || want && int64(got) != r.Num().Int64() {
			t.Fatalf("ExactInt(%q) = %d, %v; math/big says integer %v (%s)", s, got, gotOK, want, r.RatString())
		}
	})
}

// An integer past 2^53 is refused, plain or in a string, with the usual
// located refusal: never read as the float64 nearest to it.
func TestReadIntRefusesWhatAFloatWouldRound(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`9007199254740993`, `"9007199254740993"`, `" 9007199254740993 "`, `616.5`, `"1e16"`} {
		var d wire.Decoder
		d.Reset([]byte(doc))
		if n, err := ReadInt(&d); err != ErrNotInteger {
			t.Errorf("ReadInt(%s) = %d, %v; want ErrNotInteger", doc, n, err)
		}
	}
	for doc, want := range map[string]int{`9007199254740992`: 1 << 53, `"42"`: 42, `""`: 0, `null`: 0, `6.16e2`: 616, ` "7.0" `: 7} {
		var d wire.Decoder
		d.Reset([]byte(doc))
		if n, err := ReadInt(&d); err != nil || n != want {
			t.Errorf("ReadInt(%s) = %d, %v; want %d", doc, n, err, want)
		}
	}
}
