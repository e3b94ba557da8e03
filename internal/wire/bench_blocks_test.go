package wire

import "testing"

// BenchmarkScanBlocks reads each body as BenchmarkScan does, split into
// blocks as the transport reads a body of unknown length: 16 KiB, then
// doubling. Against BenchmarkScan, it is what reading in place costs.
func BenchmarkScanBlocks(b *testing.B) {
	for _, name := range benchDocs {
		doc := benchDoc(b, name)
		var blocks [][]byte
		for rest, n := doc, 16<<10; len(rest) > 0; n *= 2 {
			m := min(n, len(rest))
			blocks, rest = append(blocks, rest[:m:m]), rest[m:]
		}
		for _, op := range []struct {
			name string
			f    func(*Decoder) error
		}{{"skip", (*Decoder).Skip}, {"read", read}} {
			b.Run(op.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				var d Decoder
				for b.Loop() {
					d.ResetBlocks(blocks)
					if err := op.f(&d); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
