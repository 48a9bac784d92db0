package templates

import (
	"fmt"
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/htabgen/htabgen/spec"
)

// The one way the templates write code: jennifer (jen) for what varies with
// the layout, and Go text for fixed bodies, turned into jennifer code by
// code. A fixed body reads as the code it emits; its varying parts are holes
// filled with jennifer code.

// Import paths of the packages generated code uses, by the name that Go text
// calls them; code turns every pkg.Name of these into a qualified name, so
// that jennifer writes the imports.
var packages = map[string]string{
	"atomic":     "sync/atomic",
	"binary":     "encoding/binary",
	"bits":       "math/bits",
	"ebpf":       "github.com/cilium/ebpf",
	"ebpfcompat": htabPkg + "/ebpfcompat",
	"errors":     "errors",
	"fmt":        "fmt",
	"htab":       htabPkg,
	"htabtest":   htabPkg + "/htabtest",
	"iter":       "iter",
	"rand":       "math/rand/v2",
	"reflect":    "reflect",
	"runtime":    "runtime",
	"slices":     "slices",
	"sync":       "sync",
	"testing":    "testing",
	"unsafe":     "unsafe",
}

const htabPkg = "github.com/htabgen/htabgen/htab"

// hole is a named piece of jennifer code that Go text leaves to be filled:
// $(name) in the text.
type hole struct {
	name string
	code jen.Code
}

// fill is the hole $(name), filled with code.
func fill(name string, code jen.Code) hole { return hole{name, code} }

// holeRE and nameRE match what code replaces in Go text: $(hole), and $Name,
// a field of spec.Names (the longest that matches, so that $MapRandomOps is
// the map's name and RandomOps) or $p, the map's prefix.
var (
	holeRE = regexp.MustCompile(`\$\(([A-Za-z0-9]+)\)`)
	nameRE = func() *regexp.Regexp {
		var names []string
		t := reflect.TypeFor[spec.Names]()
		for i := range t.NumField() {
			names = append(names, t.Field(i).Name)
		}
		names = append(names, "KW", "p")
		sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
		return regexp.MustCompile(`\$(` + strings.Join(names, "|") + `)`)
	}()
)

// code is the Go text src as jennifer code:
//
//   - $Map, $Key, $Value, $CPU, $New, $Elem, $KeyWords, ... are the map's
//     identifiers (the fields of spec.Names); $p is the map's prefix, so
//     that $pFoo is <prefix>Foo;
//   - $(name) is the hole of that name, filled with the code of holes (a
//     hole filled with jen.Null() leaves nothing);
//   - pkg.Name, where pkg is one of packages and is not itself selected
//     from something, is written as a qualified name (go/scanner finds them,
//     so comments and strings are left alone);
//   - the rest is kept as it is; gofmt, which jennifer runs, normalises it.
//
// A hole left unfilled is a template bug: code panics, and every golden test
// would find it.
func (g *generator) code(src string, holes ...hole) jen.Code {
	byName := map[string]jen.Code{}
	for _, h := range holes {
		byName[h.name] = h.code
	}
	st := jen.Statement{}
	last := 0
	for _, m := range holeRE.FindAllStringSubmatchIndex(src, -1) {
		st = append(st, qualified(g.names(src[last:m[0]]))...)
		c, ok := byName[src[m[2]:m[3]]]
		if !ok {
			panic(fmt.Sprintf("templates: Go text leaves hole %s unfilled:\n%s", src[m[0]:m[1]], src))
		}
		st = append(st, c)
		last = m[1]
	}
	st = append(st, qualified(g.names(src[last:]))...)
	return &st
}

// qualified splits Go text into pieces of text and the qualified
// identifiers of packages, as jen.Qual.
func qualified(src string) []jen.Code {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	type tok struct {
		off int
		t   token.Token
		lit string
	}
	var toks []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{file.Offset(pos), t, lit})
	}
	var out []jen.Code
	last := 0
	for i := 0; i+2 < len(toks); i++ {
		pkg, dot, name := toks[i], toks[i+1], toks[i+2]
		path, isPkg := packages[pkg.lit]
		if pkg.t != token.IDENT || !isPkg || dot.t != token.PERIOD || name.t != token.IDENT || i > 0 && toks[i-1].t == token.PERIOD {
			continue
		}
		if pkg.off > last {
			out = append(out, jen.Id(src[last:pkg.off]))
		}
		out = append(out, jen.Qual(path, name.lit))
		last = name.off + len(name.lit)
		i += 2
	}
	if last < len(src) {
		out = append(out, jen.Id(src[last:]))
	}
	return out
}

// names replaces the $Name placeholders of Go text with the map's names.
func (g *generator) names(src string) string {
	return nameRE.ReplaceAllStringFunc(src, func(m string) string {
		switch word := m[1:]; word {
		case "p":
			return g.n.Prefix
		case "KW":
			return g.n.KeyWords
		default:
			return reflect.ValueOf(g.n).FieldByName(word).String()
		}
	})
}

// load is atomic.LoadUint32(&<x>).
func load(x jen.Code) *jen.Statement {
	return jen.Qual("sync/atomic", "LoadUint32").Call(jen.Op("&").Add(x))
}

// store is htab.StoreRelease(&<x>, <v>): every word a generated map shares
// is stored under a lock and loaded with sync/atomic by readers that validate
// a sequence, which needs release order, not a locked instruction.
func store(x, v jen.Code) *jen.Statement {
	return jen.Qual(htabPkg, "StoreRelease").Call(jen.Op("&").Add(x), v)
}

// stmts is code statements, one a line, as one piece of jennifer code for a
// hole; nils are left out.
func stmts(code ...jen.Code) jen.Code {
	st := jen.Statement{}
	for _, c := range code {
		if c != nil {
			st = append(st, c, jen.Line())
		}
	}
	return &st
}

// when is code if cond holds, else nothing: the holes of optional parts.
func when(cond bool, code jen.Code) jen.Code {
	if cond {
		return code
	}
	return jen.Null()
}

// comment is text as a // comment, each paragraph (paragraphs are split at
// blank lines) wrapped at 80 columns: for prose with the map's names in it,
// whose lengths vary. text may hold $Name placeholders; they are replaced
// first, so that the lines are wrapped at their final widths.
func (g *generator) comment(text string) string {
	var b strings.Builder
	for i, para := range strings.Split(strings.TrimSpace(g.names(text)), "\n\n") {
		if i > 0 {
			b.WriteString("//\n")
		}
		line := "//"
		for _, word := range strings.Fields(para) {
			if len(line)+1+len(word) > 80 && line != "//" {
				b.WriteString(line + "\n")
				line = "//"
			}
			line += " " + word
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
