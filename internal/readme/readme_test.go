package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// root is the repository's root folder, seen from this package's.
const root = "../.."

// checker is shared by the tests, so that the SDK's packages are read from
// source once.
var checker = sync.OnceValue(NewChecker)

// markdownWithGo lists the Markdown files under root whose Go blocks must
// compile: the README, every guide in docs/ and the command's manual.
func markdownWithGo(root string) ([]string, error) {
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files := []string{"README.md"}
	for _, g := range guides {
		rel, err := filepath.Rel(root, g)
		if err != nil {
			return nil, err
		}
		files = append(files, filepath.ToSlash(rel))
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "itick", "README.md")); err == nil {
		files = append(files, "cmd/itick/README.md")
	}
	return files, nil
}

// packageDocs lists the files holding package docs whose Go blocks must
// compile.
var packageDocs = []string{"doc.go", "redisquota/doc.go"}

// docBlocks returns the Go blocks of the Markdown files and package docs
// under root that must compile.
func docBlocks(root string) ([]Block, error) {
	files, err := markdownWithGo(root)
	if err != nil {
		return nil, err
	}
	var blocks []Block
	for _, f := range files {
		md, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, Blocks(f, md)...)
	}
	for _, f := range packageDocs {
		src, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		bs, err := DocBlocks(f, src)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, bs...)
	}
	return blocks, nil
}

// checkBlocks type-checks blocks as pasted. Blocks that use redisquota, a
// module of its own, are checked only when withRedisquota; redisquotaBlocks
// counts those checked.
func checkBlocks(c *Checker, blocks []Block, withRedisquota bool) (redisquotaBlocks int, errs []error) {
	for _, b := range blocks {
		src, offset, err := Program(b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if Uses(src, Packages["redisquota"]) {
			if !withRedisquota {
				continue
			}
			redisquotaBlocks++
		}
		if err := c.Check(b, src, offset); err != nil {
			errs = append(errs, fmt.Errorf("the block at %s:%d does not compile as pasted:\n%v\n%s", b.File, b.Line, err, src))
		}
	}
	return redisquotaBlocks, errs
}

// TestDocsBlocksCompile type-checks every Go block of the README, the
// guides in docs/, the command's manual and the package docs as pasted
// into a main (or a _test.go file, for a test).
func TestDocsBlocksCompile(t *testing.T) {
	blocks, err := docBlocks(root)
	if err != nil {
		t.Fatal(err)
	}
	perFile := map[string]int{}
	for _, b := range blocks {
		perFile[b.File]++
	}
	want := []string{"README.md", "docs/errors.md", "docs/streaming.md", "docs/testing.md"}
	if checkout(root) {
		want = append(want, "redisquota/doc.go")
	}
	for _, f := range want {
		if perFile[f] == 0 {
			t.Errorf("no Go block found in %s: the extraction is broken", f)
		}
	}
	c := checker()
	redisquota := redisquotaImportable(t, c)
	n, errs := checkBlocks(c, blocks, redisquota)
	for _, err := range errs {
		t.Error(err)
	}
	if redisquota && n == 0 {
		t.Error("no block of the docs uses redisquota")
	}
	t.Logf("%d Go blocks in %d files", len(blocks), len(perFile))
}

// TestBrokenBlockInAGuideFails shows the check reaches the guides and the
// package docs: a block that does not compile there is an error naming its
// file and line.
func TestBrokenBlockInAGuideFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "README.md", "# x\n\n```go\nfmt.Println(time.Now())\n```\n")
	write(t, dir, "docs/guide.md", "# Guide\n\nText.\n\n```go\nfmt.Println(time.Now())\n```\n\n```go\nquotes := 1\n```\n")
	write(t, dir, "docs/other.md", "# Other\n\n```go\nvar c itick.Client\nc.NoSuchMethod()\n```\n")
	write(t, dir, "redisquota/doc.go", "// Package redisquota is a test.\n//\n//\tgo get example.com/x\n//\n// Then:\n//\n//\tx := undefinedThing()\n//\n//\t_ = x\npackage redisquota\n")
	blocks, err := docBlocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := checkBlocks(checker(), blocks, false)
	var got []string
	for _, err := range errs {
		// The first line of each error names the file and line of the
		// block; the second names the line of the error in the file.
		lines := strings.SplitN(err.Error(), "\n", 3)
		got = append(got, lines[0]+" | "+lines[1])
	}
	want := []string{
		"the block at docs/guide.md:10 does not compile as pasted: | docs/guide.md:10: declared and not used: quotes",
		"the block at docs/other.md:4 does not compile as pasted: | docs/other.md:5: c.NoSuchMethod undefined (type itick.Client has no field or method NoSuchMethod)",
		"the block at redisquota/doc.go:7 does not compile as pasted: | redisquota/doc.go:7: undefined: undefinedThing",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// checkout reports whether root is a checkout of the repository rather
// than the SDK's module as released (the module cache), whose zip leaves
// out the modules go.work joins: redisquota, cmd/itick and two examples.
func checkout(root string) bool {
	for _, f := range []string{"go.work", "redisquota/go.mod"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			return false
		}
	}
	return true
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
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
	if !checkout(root) {
		t.Log("blocks that use redisquota are not checked outside a checkout of the repository")
		return false
	}
	err := c.Import(Packages["redisquota"])
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
	c := checker()
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
		b := Block{File: "guide.md", Line: 10, Code: tc.code}
		src, offset, err := Program(b)
		if err == nil {
			err = c.Check(b, src, offset)
		}
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want compiles %v\n%s", tc.code, err, tc.ok, src)
		}
		if err != nil && !tc.ok && !strings.Contains(err.Error(), "guide.md") {
			t.Errorf("%q: error %v does not name the file", tc.code, err)
		}
	}
}

func TestDocBlocks(t *testing.T) {
	t.Parallel()
	src := `// Package p is documented.
//
//	go get example.com/p
//
// Text.
//
//	a := 1
//
//	b := a
//	_ = b
//
// More text.
//
//	$ itick quote
//
// Last:
//
//	fmt.Println("last")
package p
`
	got, err := DocBlocks("p/doc.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{File: "p/doc.go", Line: 7, Code: "a := 1\n\nb := a\n_ = b"},
		{File: "p/doc.go", Line: 18, Code: "fmt.Println(\"last\")"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DocBlocks (-want +got):\n%s", diff)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
