package clockpin

import (
	"go/ast"
	"go/token"
	"strings"
)

// kind is what a verdict found.
type kind int

// The kinds of verdict, weakest first: a pin anywhere in the options wins
// over a parameter passed on with it, which a caller may then override.
const (
	unpinned  kind = iota
	forwarded      // the options are a parameter of the function, or of lit
	pinned         // the options name a clock
)

// verdict is what the options of a start come to.
type verdict struct {
	kind  kind
	param int          // forwarded: which parameter
	lit   *ast.FuncLit // forwarded from a function literal's parameter; nil: fd's
}

// verdict says whether exprs, the options of a start inside fd (within
// stack), name a clock or come from a parameter.
func (d *dir) verdict(f *file, fd *ast.FuncDecl, stack []ast.Node, exprs []ast.Expr) verdict {
	r := resolver{d: d, f: f, fd: fd, stack: stack, seen: make(map[string]bool)}
	best := verdict{kind: unpinned}
	for _, e := range exprs {
		if v := r.expr(e); v.kind > best.kind {
			best = v
		}
	}
	return best
}

// resolver follows the names an expression holds to what was assigned to
// them in the function, or to the parameter they are.
type resolver struct {
	d     *dir
	f     *file
	fd    *ast.FuncDecl
	stack []ast.Node
	seen  map[string]bool
}

// expr is the verdict on e: pinned by a call in it, or by what a name in
// it was assigned; else forwarded from a parameter it names; else unpinned.
func (r *resolver) expr(e ast.Expr) verdict {
	best := verdict{kind: unpinned}
	ast.Inspect(e, func(n ast.Node) bool {
		if best.kind == pinned {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if isPin(r.f, n) {
				best = verdict{kind: pinned}
				return false
			}
			// The callee is not an option; its arguments may be.
			for _, a := range n.Args {
				if v := r.expr(a); v.kind > best.kind {
					best = v
				}
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if v := r.expr(sel.X); v.kind > best.kind {
					best = v
				}
			}
			return false
		case *ast.SelectorExpr:
			if v := r.expr(n.X); v.kind > best.kind {
				best = v
			}
			return false
		case *ast.FuncLit:
			return false // a clock func's body, say: not an option
		case *ast.Ident:
			if v := r.name(n.Name); v.kind > best.kind {
				best = v
			}
		}
		return true
	})
	return best
}

// name resolves a name: a parameter of the innermost function declaring
// it, or what the function assigns to it, or a package-level variable.
func (r *resolver) name(n string) verdict {
	if r.seen[n] {
		return verdict{kind: unpinned}
	}
	r.seen[n] = true
	best := verdict{kind: unpinned}
	for _, rhs := range assignments(r.fd.Body, n) {
		if v := r.expr(rhs); v.kind > best.kind {
			best = v
		}
	}
	if best.kind == pinned {
		return best
	}
	// Parameters, innermost function first.
	for i := len(r.stack) - 1; i >= 0; i-- {
		var ft *ast.FuncType
		lit, _ := r.stack[i].(*ast.FuncLit)
		switch n := r.stack[i].(type) {
		case *ast.FuncLit:
			ft = n.Type
		case *ast.FuncDecl:
			ft = n.Type
		default:
			continue
		}
		for j, p := range params(ft) {
			if p.name == n {
				return verdict{kind: forwarded, param: j, lit: lit}
			}
		}
	}
	if best.kind != unpinned {
		return best
	}
	for _, f := range r.d.files {
		if f.ast.Name.Name != r.f.ast.Name.Name {
			continue
		}
		for _, decl := range f.ast.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, rhs := range specValues(gd.Specs, n) {
					if v := r.expr(rhs); v.kind > best.kind {
						best = v
					}
				}
			}
		}
	}
	return best
}

// assignments returns what body assigns to the name n: in :=, =, var and
// range statements, at any depth.
func assignments(body ast.Node, n string) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(body, func(node ast.Node) bool {
		switch s := node.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == n {
					if len(s.Rhs) == len(s.Lhs) {
						out = append(out, s.Rhs[i])
					} else {
						out = append(out, s.Rhs...)
					}
				}
			}
		case *ast.RangeStmt:
			for _, l := range []ast.Expr{s.Key, s.Value} {
				if id, ok := l.(*ast.Ident); ok && id.Name == n {
					out = append(out, s.X)
				}
			}
		case *ast.DeclStmt:
			if gd, ok := s.Decl.(*ast.GenDecl); ok {
				out = append(out, specValues(gd.Specs, n)...)
			}
		}
		return true
	})
	return out
}

// specValues returns the values specs give the name n.
func specValues(specs []ast.Spec, n string) []ast.Expr {
	var out []ast.Expr
	for _, sp := range specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for i, id := range vs.Names {
			if id.Name != n {
				continue
			}
			if len(vs.Values) == len(vs.Names) {
				out = append(out, vs.Values[i])
			} else {
				out = append(out, vs.Values...)
			}
		}
	}
	return out
}

// isPin reports whether call names a clock for a simulator.
func isPin(f *file, call *ast.CallExpr) bool {
	pkg, name := callee(call)
	switch {
	case name == "WithClock" && (pkg == f.markettest || f.inside == "markettest" && pkg == ""):
		return !isRealClock(f, call)
	case name == "WithFixedClock", name == "WithClockFrom":
		return pkg == f.markettest || f.inside == "markettest" && pkg == ""
	case name == "At":
		return f.exampletest != "" && pkg == f.exampletest || f.inside == "exampletest" && pkg == ""
	}
	return false
}

// isRealClock reports whether call is markettest.WithClock(time.Now).
func isRealClock(f *file, call *ast.CallExpr) bool {
	pkg, name := callee(call)
	if name != "WithClock" || !(pkg != "" && pkg == f.markettest || f.inside == "markettest" && pkg == "") || len(call.Args) != 1 {
		return false
	}
	sel, ok := ast.Unparen(call.Args[0]).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "time" && sel.Sel.Name == "Now"
}

// callee returns the package name (for pkg.Name) and name of what call calls.
func callee(call *ast.CallExpr) (string, string) {
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return "", fn.Name
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok {
			return x.Name, fn.Sel.Name
		}
		return "?", fn.Sel.Name
	}
	return "?", ""
}

// explained reports whether a comment says that call means the real
// clock: on its line, in a comment of its own just above, or in fd's doc
// comment.
func (d *dir) explained(f *file, fd *ast.FuncDecl, call *ast.CallExpr) bool {
	if fd.Doc != nil && hasMarker(fd.Doc.Text()) {
		return true
	}
	line := d.fset.Position(call.Pos()).Line
	for _, cg := range f.ast.Comments {
		start, end := d.fset.Position(cg.Pos()), d.fset.Position(cg.End()).Line
		above := end == line-1 && strings.TrimSpace(string(f.src[start.Offset-start.Column+1:start.Offset])) == ""
		if (above || start.Line == line) && hasMarker(cg.Text()) {
			return true
		}
	}
	return false
}

// hasMarker reports whether text holds a marker and a reason: three words
// or more besides it.
func hasMarker(text string) bool {
	text = strings.Join(strings.Fields(text), " ") // a marker may wrap across lines
	for _, m := range Markers {
		if before, after, ok := strings.Cut(text, m); ok && len(strings.Fields(before+" "+after)) >= 3 {
			return true
		}
	}
	return false
}
