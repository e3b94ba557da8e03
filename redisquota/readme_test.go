package redisquota_test

import (
	"os"
	"testing"

	"github.com/d19c4e34/itick/internal/readme"
)

// TestREADMEBlocksCompile type-checks the README's Go blocks that use
// redisquota, as pasted; the SDK's own tests check the others.
func TestREADMEBlocksCompile(t *testing.T) {
	md, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	c := readme.NewChecker()
	checked := 0
	for _, b := range readme.Blocks(md) {
		src, offset, err := readme.Program(b)
		if err != nil {
			t.Error(err)
			continue
		}
		if !readme.Uses(src, readme.Packages["redisquota"]) {
			continue
		}
		checked++
		if err := c.Check(b, src, offset); err != nil {
			t.Errorf("the block at README.md:%d does not compile as pasted:\n%v", b.Line, err)
		}
	}
	if checked == 0 {
		t.Error("the README has no block that uses redisquota")
	}
}
