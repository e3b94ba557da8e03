// Package clockpin finds the tests that start a simulator whose clock no
// option pins. The simulator, like the service, pushes nothing for a
// closed market and answers candles and quotes as of its clock, so a test
// that leaves it on the real clock passes or hangs depending on the date
// and hour it runs.
//
// The rules, read from the source of every _test.go file under a root
// (all modules of the repository), without type information:
//
//   - A start is a call of markettest.NewServer or markettest.OpenEnv, or
//     of a function of the same directory that passes its own markettest
//     options on to a start, such as a test's newServer(t, opts...) or an
//     example program's run(ctx, args, w, sim...). Such a function is not
//     checked itself; its callers are. A function literal that passes its
//     parameters on is checked where the enclosing function calls it by
//     name; one handed to other code is left to that code.
//   - A start is pinned when its options name a clock: a call of
//     WithClock (but not WithClock(time.Now)), WithFixedClock,
//     WithClockFrom, or exampletest's At, in the call itself or in what
//     the function assigned to a variable the call passes (a slice of
//     options built beforehand, a table of test cases).
//   - A test that means the real clock says so in a comment holding
//     "clock: real time" and a reason, on the line of the start, just
//     above it, or in the doc comment of its function. The same comment
//     lets markettest.WithClock(time.Now) stand, which the check otherwise
//     reports as a start on the real clock. A call that returns before
//     any simulator starts (-h, a bad argument, the real service's
//     environment) says "clock: none" and why.
//
// Programs run in a process of their own are pinned by their harnesses:
// exampletest.Command and cmd/itick's itickCmd set ITICK_SIM_TIME.
package clockpin

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The import paths of the packages whose names the rules know.
const (
	markettestPath  = "github.com/d19c4e34/itick/markettest"
	exampletestPath = "github.com/d19c4e34/itick/examples/internal/exampletest"
)

// Markers are what a comment holds to say that a start means the real
// clock, or that no simulator starts.
var Markers = []string{"clock: real time", "clock: none"}

const markerHint = `or say why in a comment holding "clock: real time" (or "clock: none" when no simulator starts)`

// Finding is a start no clock pins, or a real clock no comment explains.
type Finding struct {
	Pos     token.Position
	Message string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Message) }

// Report is what Check found under a root.
type Report struct {
	Findings []Finding
	Starts   int // the starts in tests, pinned or not: a check that sees none is broken
	Files    int // the _test.go files read
}

// Check reads every .go file under root, skipping testdata, vendor and
// hidden directories, and returns what the rules find in the _test.go
// files.
func Check(root string) (Report, error) {
	dirs := make(map[string][]string)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "vendor" ||
				strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	var rep Report
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		r, err := CheckFiles(dirs[dir])
		if err != nil {
			return Report{}, err
		}
		rep.Findings = append(rep.Findings, r.Findings...)
		rep.Starts += r.Starts
		rep.Files += r.Files
	}
	return rep, nil
}

// CheckFiles applies the rules to the files of one directory: all of its
// .go files, so that the functions of other files that start a simulator
// are known.
func CheckFiles(paths []string) (Report, error) {
	fset := token.NewFileSet()
	var files []*file
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return Report{}, err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return Report{}, err
		}
		ff := newFile(p, f)
		ff.src = src
		files = append(files, ff)
	}
	d := &dir{fset: fset, files: files, starters: make(map[string]start)}
	d.findStarters()
	return d.check(), nil
}

// file is one parsed file and the names it imports the known packages by.
type file struct {
	path        string
	src         []byte
	ast         *ast.File
	test        bool
	markettest  string // the name markettest is imported as; "" when not imported
	exampletest string
	inside      string // "markettest" or "exampletest" for a file of that package itself
}

func newFile(path string, f *ast.File) *file {
	out := &file{path: path, ast: f, test: strings.HasSuffix(path, "_test.go")}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch p {
		case markettestPath:
			out.markettest = name
		case exampletestPath:
			out.exampletest = name
		}
	}
	if n := f.Name.Name; n == "markettest" || n == "exampletest" {
		out.inside = n
	}
	return out
}
