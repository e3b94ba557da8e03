package markettest_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedNamesAreDocumented reads the package's source as pkg.go.dev
// shows it: every exported name, method and field has a doc comment, a
// type, function or method's starting with its name, and no exported
// function takes a parameter named min or max, which shadow the builtins
// in the caller's reading.
func TestExportedNamesAreDocumented(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	report := func(pos token.Pos, format string, args ...any) {
		problems = append(problems, fset.Position(pos).String()+": "+fmt.Sprintf(format, args...))
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
					continue
				}
				if !startsWith(d.Doc, d.Name.Name) {
					report(d.Pos(), "%s has no doc comment starting with its name", d.Name.Name)
				}
				for _, p := range d.Type.Params.List {
					for _, n := range p.Names {
						if n.Name == "min" || n.Name == "max" {
							report(n.Pos(), "%s has a parameter named %s", d.Name.Name, n.Name)
						}
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						if !startsWith(doc, s.Name.Name) {
							report(s.Pos(), "type %s has no doc comment starting with its name", s.Name.Name)
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								for _, n := range field.Names {
									if n.IsExported() && field.Doc == nil && field.Comment == nil {
										report(n.Pos(), "field %s.%s has no comment", s.Name.Name, n.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
								report(n.Pos(), "%s has no comment, nor has its group", n.Name)
							}
						}
					}
				}
			}
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func exportedRecv(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// startsWith reports whether doc's text starts with name, as in "Name
// does ..." or "A Name is ...".
func startsWith(doc *ast.CommentGroup, name string) bool {
	if doc == nil {
		return false
	}
	text := doc.Text()
	for _, prefix := range []string{"", "A ", "An ", "The "} {
		if strings.HasPrefix(text, prefix+name+" ") || strings.HasPrefix(text, prefix+name+",") ||
			strings.HasPrefix(text, prefix+name+"\n") {
			return true
		}
	}
	return false
}
