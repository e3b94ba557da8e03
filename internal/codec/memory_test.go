package codec

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

type longQuote struct {
	Symbol string `itick:"s,code"`
	Note   string `itick:"note"`
}

var longModel = Describe[longQuote]()

// A body read in 64 KiB blocks whose one value is a string of most of its
// size costs at most its size again: a symbol is refused where it starts
// without a copy, and any other string is copied once, into the string
// that keeps it. Before, the scanner's copy of a straddling token grew in
// steps, and the string was copied from it again: about 4.9 times the body.
func TestLongStringsCostAtMostTheirSize(t *testing.T) {
	const n = 8 << 20
	for _, tc := range []struct {
		field   string
		refused bool
		most    float64 // bytes allocated per body byte
	}{
		{"s", true, 0.01},
		{"note", false, 1.1},
	} {
		body := []byte(`{"700":{"` + tc.field + `":"` + strings.Repeat("x", n) + `"}}`)
		var blocks [][]byte
		for b := body; len(b) > 0; {
			k := min(len(b), 64<<10)
			blocks, b = append(blocks, b[:k]), b[k:]
		}
		m := NewMap(longModel.Into)
		var got map[string]longQuote
		var err error
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		st := GetBlocks(blocks)
		got, err = m.Read(st)
		Put(st)
		runtime.ReadMemStats(&after)
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(body))
		var ve *ValueError
		switch {
		case tc.refused && (!errors.As(err, &ve) || ve.Off != len(`{"700":{"s":`) || !strings.Contains(ve.Want, "code of at most")):
			t.Errorf("%s: err = %v, want a refusal of the code where it starts", tc.field, err)
		case !tc.refused && (err != nil || len(got["700"].Note) != n):
			t.Errorf("%s: err = %v, read %d bytes", tc.field, err, len(got["700"].Note))
		}
		if ratio > tc.most {
			t.Errorf("%s: a %d-byte body allocated %.2fx its size, want at most %.2fx", tc.field, len(body), ratio, tc.most)
		}
	}
}
