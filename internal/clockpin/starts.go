package clockpin

import (
	"go/ast"
	"go/token"
	"slices"
)

// start says which arguments of a start are the simulator's options:
// argument from, and with rest, every later one too. A from of -1 is a
// function that takes none: it starts a simulator its caller cannot pin.
type start struct {
	from int
	rest bool
}

// dir is the files of one directory and the functions in them that start
// a simulator with options of their callers, or of their own choosing.
type dir struct {
	fset     *token.FileSet
	files    []*file
	starters map[string]start // package name + "." + function name
}

// startOf reports whether call starts a simulator, and where its options are.
func (d *dir) startOf(f *file, call *ast.CallExpr) (start, string, bool) {
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok && f.markettest != "" && x.Name == f.markettest {
			switch fn.Sel.Name {
			case "NewServer":
				return start{0, true}, "markettest.NewServer", true
			case "OpenEnv":
				return start{0, false}, "markettest.OpenEnv", true
			}
		}
	case *ast.Ident:
		if f.inside == "markettest" {
			switch fn.Name {
			case "NewServer":
				return start{0, true}, "NewServer", true
			case "OpenEnv":
				return start{0, false}, "OpenEnv", true
			}
		}
		if s, ok := d.starters[f.ast.Name.Name+"."+fn.Name]; ok {
			return s, fn.Name, true
		}
	}
	return start{}, "", false
}

// findStarters finds, until no more turn up, the functions that pass their
// own options on to a start.
func (d *dir) findStarters() {
	for changed := true; changed; {
		changed = false
		for _, f := range d.files {
			for _, decl := range f.ast.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Body == nil {
					continue
				}
				key := f.ast.Name.Name + "." + fd.Name.Name
				if _, known := d.starters[key]; known {
					continue
				}
				d.calls(fd, func(call *ast.CallExpr, stack []ast.Node) {
					s, _, ok := d.startOf(f, call)
					if !ok {
						return
					}
					v := d.verdict(f, fd, stack, optionArgs(call, s))
					switch {
					case v.kind == forwarded && v.lit == nil:
						d.starters[key] = start{v.param, isVariadic(fd.Type, v.param)}
						changed = true
					case v.kind == unpinned && !f.test && !d.explained(f, fd, call):
						// A program's function that starts a simulator of its own
						// choosing: a test that calls it cannot pin it.
						d.starters[key] = start{from: -1}
						changed = true
					}
				})
			}
		}
	}
}

// check applies the rules to every start in the directory's tests.
func (d *dir) check() Report {
	var rep Report
	for _, f := range d.files {
		if !f.test {
			continue
		}
		rep.Files++
		for _, decl := range f.ast.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			d.calls(fd, func(call *ast.CallExpr, stack []ast.Node) {
				if isRealClock(f, call) && !d.explained(f, fd, call) {
					rep.Findings = append(rep.Findings, Finding{d.fset.Position(call.Pos()),
						"markettest.WithClock(time.Now) runs the simulator on the real clock: pin it " +
							"(WithFixedClock, WithClockFrom), " + markerHint})
				}
				s, name, ok := d.startOf(f, call)
				if !ok {
					return
				}
				rep.Starts++
				v := d.verdict(f, fd, stack, optionArgs(call, s))
				switch {
				case v.kind == pinned:
					return
				case v.kind == forwarded && v.lit == nil && fd.Recv == nil:
					return // passed on: the function's callers are checked
				case v.kind == forwarded && v.lit != nil:
					// A function literal's options: check its calls by name.
					ls := start{v.param, isVariadic(v.lit.Type, v.param)}
					for _, c := range d.literalCalls(fd, v.lit) {
						cv := d.verdict(f, fd, enclosing(fd, c), optionArgs(c, ls))
						if cv.kind == unpinned && !d.explained(f, fd, c) {
							rep.Findings = append(rep.Findings, unpinnedAt(d.fset.Position(c.Pos()), name+" (through a function literal)"))
						}
					}
					return
				}
				// Unpinned, or passed on by a method, whose calls are not followed.
				if !d.explained(f, fd, call) {
					rep.Findings = append(rep.Findings, unpinnedAt(d.fset.Position(call.Pos()), name))
				}
			})
		}
	}
	return rep
}

// unpinnedAt is the finding of a start no clock pins.
func unpinnedAt(pos token.Position, name string) Finding {
	return Finding{pos, name + " starts a simulator that no clock pins: give it markettest.WithFixedClock " +
		"(or WithClock, WithClockFrom, exampletest.At), " + markerHint}
}

// optionArgs are the arguments of call that carry the simulator's options.
func optionArgs(call *ast.CallExpr, s start) []ast.Expr {
	if s.from < 0 || s.from >= len(call.Args) {
		return nil
	}
	if s.rest {
		return call.Args[s.from:]
	}
	return call.Args[s.from : s.from+1]
}

// isVariadic reports whether param is ft's last parameter, a ...T.
func isVariadic(ft *ast.FuncType, param int) bool {
	fields := params(ft)
	if param != len(fields)-1 {
		return false
	}
	_, ok := fields[param].typ.(*ast.Ellipsis)
	return ok
}

// param is one parameter of a function.
type param struct {
	name string
	typ  ast.Expr
}

// params lists a function's parameters one by one.
func params(ft *ast.FuncType) []param {
	var out []param
	for _, field := range ft.Params.List {
		if len(field.Names) == 0 {
			out = append(out, param{"", field.Type})
		}
		for _, n := range field.Names {
			out = append(out, param{n.Name, field.Type})
		}
	}
	return out
}

// calls calls visit for every call in fd, with the nodes that enclose it.
func (d *dir) calls(fd *ast.FuncDecl, visit func(*ast.CallExpr, []ast.Node)) {
	var stack []ast.Node
	ast.Inspect(fd, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if call, ok := n.(*ast.CallExpr); ok {
			visit(call, stack)
		}
		return true
	})
}

// enclosing returns the nodes of fd that enclose n.
func enclosing(fd *ast.FuncDecl, n ast.Node) []ast.Node {
	var stack, found []ast.Node
	ast.Inspect(fd, func(m ast.Node) bool {
		if found != nil {
			return false
		}
		if m == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, m)
		if m == n {
			found = slices.Clone(stack)
		}
		return true
	})
	return found
}

// literalCalls returns the calls in fd of the name lit is bound to.
func (d *dir) literalCalls(fd *ast.FuncDecl, lit *ast.FuncLit) []*ast.CallExpr {
	var name string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if s, ok := n.(*ast.AssignStmt); ok && len(s.Lhs) == len(s.Rhs) {
			for i, rhs := range s.Rhs {
				if rhs == lit {
					if id, ok := s.Lhs[i].(*ast.Ident); ok {
						name = id.Name
					}
				}
			}
		}
		return name == ""
	})
	if name == "" {
		return nil // handed to other code, which gives it its options
	}
	var out []*ast.CallExpr
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == name {
				out = append(out, c)
			}
		}
		return true
	})
	return out
}
