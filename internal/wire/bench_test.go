package wire

import (
	"os"
	"path/filepath"
	"testing"
)

// benchDocs are the root package's benchmark bodies: a quote batch, a
// depth batch and a kline batch as the service sends them.
var benchDocs = []string{"quotes_50.json", "depths_50.json", "klines_10x500.json"}

func benchDoc(b *testing.B, name string) []byte {
	b.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "testdata", "bench", name))
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// read walks a value as a model's decoder does: keys, numbers through
// Num, strings through Str.
func read(d *Decoder) error {
	switch d.Peek() {
	case '{':
		empty, err := d.Enter('{')
		for more := !empty; more && err == nil; {
			if _, err = d.Key(); err == nil {
				if err = read(d); err == nil {
					more, err = d.Next('}')
				}
			}
		}
		return err
	case '[':
		empty, err := d.Enter('[')
		for more := !empty; more && err == nil; {
			if err = read(d); err == nil {
				more, err = d.Next(']')
			}
		}
		return err
	case '"':
		_, err := d.Str()
		return err
	case 'n', 't', 'f':
		return d.Skip()
	}
	_, err := d.Num()
	return err
}

// BenchmarkScan validates each body (skip) and reads it as the model
// decoders do (read), from one slice and from blocks as the transport
// reads a body of unknown length (16 KiB, then doubling): the difference
// is what reading in place costs.
func BenchmarkScan(b *testing.B) {
	for _, name := range benchDocs {
		doc := benchDoc(b, name)
		var blocks [][]byte
		for rest, n := doc, 16<<10; len(rest) > 0; n *= 2 {
			m := min(n, len(rest))
			blocks, rest = append(blocks, rest[:m:m]), rest[m:]
		}
		layouts := []struct {
			name  string
			reset func(*Decoder)
		}{
			{"slice", func(d *Decoder) { d.Reset(doc) }},
			{"blocks", func(d *Decoder) { d.ResetBlocks(blocks) }},
		}
		for _, op := range []struct {
			name string
			f    func(*Decoder) error
		}{{"skip", (*Decoder).Skip}, {"read", read}} {
			for _, l := range layouts {
				b.Run(op.name+"/"+name+"/"+l.name, func(b *testing.B) {
					b.SetBytes(int64(len(doc)))
					b.ReportAllocs()
					var d Decoder
					for b.Loop() {
						l.reset(&d)
						if err := op.f(&d); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
