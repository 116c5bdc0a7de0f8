package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxLines is the longest a function of the product may be.
const maxLines = 80

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "apisize:", err)
		os.Exit(1)
	}
}

func run() error {
	top, methods, fields, model, err := exported("kpls")
	if err != nil {
		return err
	}
	fmt.Printf("kpls: %d exported names (%d top-level, %d methods, %d struct fields); Model has %d exported methods\n",
		top+methods+fields, top, methods, fields, model)
	long, err := longFunctions("kpls", "cmd")
	if err != nil {
		return err
	}
	fmt.Printf("functions over %d lines in kpls/ and cmd/: %d\n", maxLines, len(long))
	for _, l := range long {
		fmt.Println("  " + l)
	}
	return nil
}

// goFiles parses the non-test Go files of dir.
func goFiles(dir string) (*token.FileSet, []*ast.File, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return fset, files, nil
}

// exported counts the exported top-level names, methods and struct
// fields of the package in dir, and the exported methods of Model.
func exported(dir string) (top, methods, fields, model int, err error) {
	_, files, err := goFiles(dir)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					top++
					continue
				}
				methods++
				if receiver(d) == "Model" {
					model++
				}
			case *ast.GenDecl:
				t, fl := exportedSpecs(d)
				top += t
				fields += fl
			}
		}
	}
	return top, methods, fields, model, nil
}

// exportedSpecs counts the exported names a declaration makes, and the
// exported fields of its struct types.
func exportedSpecs(d *ast.GenDecl) (names, fields int) {
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			names++
			if st, ok := s.Type.(*ast.StructType); ok {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						if n.IsExported() {
							fields++
						}
					}
				}
			}
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.IsExported() {
					names++
				}
			}
		}
	}
	return names, fields
}

// receiver is the name of d's receiver type, without a pointer.
func receiver(d *ast.FuncDecl) string {
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// longFunctions lists the functions of the non-test files under roots
// longer than maxLines, longest first.
func longFunctions(roots ...string) ([]string, error) {
	type fn struct {
		name  string
		lines int
	}
	var out []fn
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return err
			}
			fset, files, err := goFiles(p)
			if err != nil {
				return err
			}
			for _, f := range files {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
						n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
						if n > maxLines {
							out = append(out, fn{fset.Position(fd.Pos()).Filename + ":" + fd.Name.Name, n})
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lines > out[j].lines })
	names := make([]string, len(out))
	for i, f := range out {
		names[i] = fmt.Sprintf("%d %s", f.lines, f.name)
	}
	return names, nil
}
