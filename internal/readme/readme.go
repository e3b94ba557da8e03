// Package readme checks the repository's documentation. The Go blocks of
// its Markdown files and of its package docs compile as pasted: a block
// with a package clause as it is, a block of top-level declarations (a
// test, say) in a file of its own, and any other block as the body of a
// main function. The imports a block leaves out are added for the packages
// it names, from a table of the names a reader knows. Its relative links
// point at files that exist, and at headings that exist in them.
package readme

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Block is one Go block of a Markdown file or a package doc.
type Block struct {
	File string // the file it is in, as errors name it
	Line int    // the line of its first line of code, from 1
	Code string // its code
}

// Blocks returns the ```go blocks of the Markdown file named file, in order.
func Blocks(file string, markdown []byte) []Block {
	var out []Block
	lines := strings.Split(string(markdown), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		out = append(out, Block{File: file, Line: start + 1, Code: strings.Join(lines[start:min(i, len(lines))], "\n")})
	}
	return out
}

// Packages maps the names a README's blocks use to their import paths.
var Packages = map[string]string{
	"itick":      "github.com/d19c4e34/itick",
	"markettest": "github.com/d19c4e34/itick/markettest",
	"redisquota": "github.com/d19c4e34/itick/redisquota",
	"redis":      "github.com/redis/go-redis/v9",
	"rate":       "golang.org/x/time/rate",
	"context":    "context",
	"errors":     "errors",
	"expvar":     "expvar",
	"fmt":        "fmt",
	"http":       "net/http",
	"io":         "io",
	"json":       "encoding/json",
	"log":        "log",
	"maps":       "maps",
	"os":         "os",
	"signal":     "os/signal",
	"slices":     "slices",
	"slog":       "log/slog",
	"strconv":    "strconv",
	"strings":    "strings",
	"sync":       "sync",
	"syscall":    "syscall",
	"testing":    "testing",
	"time":       "time",
	"url":        "net/url",
}

var topLevel = regexp.MustCompile(`(?m)^(func|type) `)

// declarations reports whether code parses as a file's top-level
// declarations, rather than as statements.
func declarations(code string) bool {
	_, err := parser.ParseFile(token.NewFileSet(), "block.go", "package p\n"+code, parser.SkipObjectResolution)
	return err == nil
}

// Program returns b as a Go file that compiles when b does as pasted, and
// the number of lines it put before b's first line.
func Program(b Block) (src string, offset int, err error) {
	code := b.Code
	var head string
	switch {
	case strings.HasPrefix(strings.TrimSpace(code), "package "):
		return code, 0, nil
	case topLevel.MatchString(code) && declarations(code):
		head = "package main\n"
		if strings.Contains(code, "func Test") || strings.Contains(code, "func Example") {
			head = "package main_test\n"
		}
		if !strings.Contains(code, "func main()") && head == "package main\n" {
			code += "\n\nfunc main() {}"
		}
	default:
		head = "package main\n"
		code = "func main() {\n" + code + "\n}"
		offset = 1
	}
	imports, err := used(head + code)
	if err != nil {
		return "", 0, fmt.Errorf("%s: the block at line %d does not parse: %v", b.File, b.Line, err)
	}
	var buf bytes.Buffer
	buf.WriteString(head)
	for _, path := range imports {
		fmt.Fprintf(&buf, "import %q\n", path)
	}
	offset += 1 + len(imports)
	buf.WriteString(code)
	return buf.String(), offset, nil
}

// used returns the import paths of the known packages src names and does
// not declare.
func used(src string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "block.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	declared := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				declared[id.Name] = true
			}
		}
		return true
	})
	var paths []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && !declared[id.Name] {
			if path, known := Packages[id.Name]; known && !slices.Contains(paths, path) {
				paths = append(paths, path)
			}
		}
		return true
	})
	slices.Sort(paths)
	return paths, nil
}

// Checker type-checks blocks against the packages the module it runs in
// can import, read from source once for all the blocks. It is safe for
// concurrent use; checks run one at a time.
type Checker struct {
	mu   sync.Mutex
	fset *token.FileSet
	imp  types.Importer
}

// NewChecker returns a Checker.
func NewChecker() *Checker {
	fset := token.NewFileSet()
	return &Checker{fset: fset, imp: importer.ForCompiler(fset, "source", nil)}
}

// Check type-checks src, the file Program made of b with offset lines
// before it; its errors name lines of b's file.
func (c *Checker) Check(b Block, src string, offset int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := parser.ParseFile(c.fset, "block.go", src, parser.AllErrors)
	if err != nil {
		return fmt.Errorf("%s: the block at line %d: %v (block.go counts %d lines before the block)", b.File, b.Line, err, offset)
	}
	var errs []string
	conf := types.Config{
		Importer: c.imp,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				p := c.fset.Position(te.Pos)
				errs = append(errs, fmt.Sprintf("%s:%d: %s", b.File, b.Line+p.Line-1-offset, te.Msg))
				return
			}
			errs = append(errs, err.Error())
		},
	}
	if _, err := conf.Check(f.Name.Name, c.fset, []*ast.File{f}, nil); err != nil && len(errs) == 0 {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// Import imports the package path as a block's import would, reporting
// whether it can be found.
func (c *Checker) Import(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.imp.Import(path)
	return err
}

// Uses reports whether src imports path.
func Uses(src, path string) bool { return strings.Contains(src, strconv.Quote(path)) }
