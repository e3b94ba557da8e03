package readme

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEBlocksCompile type-checks every Go block of the README as
// pasted into a main (or a _test.go file, for a test). Blocks that use
// redisquota, a module of its own, are checked by its tests.
func TestREADMEBlocksCompile(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := Blocks(md)
	if len(blocks) < 5 {
		t.Fatalf("%d Go blocks in the README: the extraction is broken", len(blocks))
	}
	c := NewChecker()
	for _, b := range blocks {
		src, offset, err := Program(b)
		if err != nil {
			t.Error(err)
			continue
		}
		if Uses(src, Packages["redisquota"]) {
			continue
		}
		if err := c.Check(b, src, offset); err != nil {
			t.Errorf("the block at README.md:%d does not compile as pasted:\n%v\n%s", b.Line, err, src)
		}
	}
}

func TestProgramWrapsBlocksAsPasted(t *testing.T) {
	t.Parallel()
	c := NewChecker()
	for _, tc := range []struct {
		code string
		ok   bool
	}{
		{"fmt.Println(time.Now())", true},
		{"x := 1", false}, // declared and not used
		{"if err != nil { ... }", false},
		{"func TestX(t *testing.T) { t.Log(strings.ToUpper(\"a\")) }", true},
		{"package main\n\nfunc main() {}", true},
		{"client, err := itick.NewClient(os.Getenv(\"ITICK_TOKEN\"))\nif err != nil {\n\tlog.Fatal(err)\n}\nfmt.Println(client.BaseURL())", true},
		{"token := 1\n_ = undefinedThing(token)", false},
	} {
		b := Block{Line: 10, Code: tc.code}
		src, offset, err := Program(b)
		if err == nil {
			err = c.Check(b, src, offset)
		}
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want compiles %v\n%s", tc.code, err, tc.ok, src)
		}
		if err != nil && !tc.ok && !strings.Contains(err.Error(), "README.md") {
			t.Errorf("%q: error %v does not name the README line", tc.code, err)
		}
	}
}
