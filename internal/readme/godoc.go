package readme

import (
	"go/parser"
	"go/token"
	"regexp"
	"strings"
)

// shell matches the first line of a code block that is a shell command,
// not Go: package docs put `go get` lines in code blocks too.
var shell = regexp.MustCompile(`^(\$ |(go (get|install|run|test|build|vet|work|generate|mod)|curl|cd|redis-server|itick) )`)

// DocBlocks returns the Go code blocks of the package doc in the Go source
// src of the file named file, in order: the runs of indented lines of its
// doc comment, blank lines between them included, leaving out the blocks
// that are shell commands.
func DocBlocks(file string, src []byte) ([]Block, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return nil, err
	}
	if f.Doc == nil {
		return nil, nil
	}
	var out []Block
	var code []string
	start, blanks := 0, 0
	flush := func() {
		if len(code) > 0 && !shell.MatchString(code[0]) {
			out = append(out, Block{File: file, Line: start, Code: strings.Join(code, "\n")})
		}
		code, blanks = nil, 0
	}
	for _, c := range f.Doc.List {
		text, ok := strings.CutPrefix(c.Text, "//")
		if !ok { // a /* */ comment: gofmt leaves its layout alone
			flush()
			continue
		}
		switch {
		case strings.HasPrefix(text, "\t"):
			if len(code) == 0 {
				start = fset.Position(c.Pos()).Line
			}
			for ; blanks > 0; blanks-- {
				code = append(code, "")
			}
			code = append(code, strings.TrimPrefix(text, "\t"))
		case strings.TrimSpace(text) == "" && len(code) > 0:
			blanks++
		default:
			flush()
		}
	}
	flush()
	return out, nil
}
