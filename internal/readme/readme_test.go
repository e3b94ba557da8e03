package readme

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEBlocksCompile type-checks every Go block of the README as
// pasted into a main (or a _test.go file, for a test).
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
	redisquota := redisquotaImportable(t, c)
	checked := 0
	for _, b := range blocks {
		src, offset, err := Program(b)
		if err != nil {
			t.Error(err)
			continue
		}
		if Uses(src, Packages["redisquota"]) {
			if !redisquota {
				continue
			}
			checked++
		}
		if err := c.Check(b, src, offset); err != nil {
			t.Errorf("the block at README.md:%d does not compile as pasted:\n%v\n%s", b.Line, err, src)
		}
	}
	if redisquota && checked == 0 {
		t.Error("the README has no block that uses redisquota")
	}
}

// redisquotaImportable reports whether the blocks that use redisquota, a
// module of its own, can be checked: the repository's go.work joins it to
// this module. Where no workspace is in use (GOWORK=off) they are skipped,
// and so they are in the SDK's module as released, which carries go.work
// but not redisquota; in a checkout using its go.work, redisquota must be
// found.
func redisquotaImportable(t *testing.T, c *Checker) bool {
	t.Helper()
	if _, err := os.Stat("../../redisquota/go.mod"); err != nil {
		t.Logf("blocks that use redisquota are not checked outside a checkout of the repository: %v", err)
		return false
	}
	_, err := c.imp.Import(Packages["redisquota"])
	if err == nil {
		return true
	}
	if os.Getenv("GOWORK") != "off" {
		t.Fatalf("the repository's go.work is in use, yet redisquota cannot be imported: %v", err)
	}
	t.Logf("blocks that use redisquota are not checked without the repository's go.work: %v", err)
	return false
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
