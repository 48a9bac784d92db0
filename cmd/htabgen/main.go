// Command htabgen generates a Go hash map specialised for one key size, value
// size and BPF map type. Run `htabgen -help` for the flags; the README has
// examples and the contract of the generated API.
package main

import (
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/htabgen/htabgen"
	"github.com/htabgen/htabgen/htab"
	"github.com/htabgen/htabgen/spec"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK    = 0
	exitIO    = 1 // reading a spec file or a BPF object, or writing output, failed
	exitUsage = 2 // bad flags or a bad spec
)

// run is the whole command; main only wires it to the process.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("htabgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s := spec.Default()
	typ := fs.String("type", "", "map type: "+strings.Join(spec.TypeWords(), ", ")+"; required")
	fs.Var((*decimal)(&s.Key), "key", decimalUsage(featureUsage("key")))
	fs.Var((*decimal)(&s.Val), "val", decimalUsage(fmt.Sprintf("value size in bytes (1..%d; per-CPU types 1..%d)", spec.MaxValueSize, spec.MaxPerCPUValSize)))
	fs.StringVar(&s.Name, "name", "", "Go name of the map type, an exported Go identifier (default derived, e.g. HashK8V8)")
	fs.StringVar(&s.Pkg, "pkg", "", "package clause (default $GOPACKAGE under go generate, else main)")
	fs.StringVar(&s.Out, "out", "", "output file, written atomically (default standard output)")
	hash := fs.String("hash", string(s.Hash), featureUsage("hash"))
	fs.BoolVar(&s.Lean, "lean", s.Lean, featureUsage("lean"))
	fs.Var((*decimal)(&s.Bloom), "bloom", decimalUsage(featureUsage("bloom")))
	fs.Var((*decimal)(&s.Hashes), "hashes", decimalUsage(featureUsage("hashes")))
	batch := fs.String("batch-lock", string(s.BatchLock), featureUsage("batch-lock"))
	layout := fs.String("layout", "", featureUsage("layout"))
	fs.BoolVar(&s.EbpfCompat, "ebpf-compat", false, featureUsage("ebpf-compat")+"; needs an -out ending in .go")
	fs.Var((*decimal)(&s.MaxEntries), "max-entries", decimalUsage(fmt.Sprintf("default options: the map gets <Name>Options() and New<Name>Default() with MaxEntries N (1..%d), as a BPF object declares max_entries (default 0: none)", int64(htab.MaxMaxEntries))))
	fs.BoolVar(&s.NoPrealloc, "no-prealloc", false, featureUsage("no-prealloc"))
	fs.BoolVar(&s.NoCommonLRU, "no-common-lru", false, featureUsage("no-common-lru"))
	fs.BoolVar(&s.ZeroSeed, "zero-seed", false, "with -max-entries: the default options hash with seed 0 (BPF_F_ZERO_SEED)")
	fs.BoolVar(&s.Tests, "tests", false, "also write <out>_test.go: behaviour tests and benchmarks of this map; needs an -out ending in .go")
	explain := fs.Bool("explain", false, "print the planned layout instead of code, writing no file (so not with -out, -tests, -ebpf-compat or -out-dir), after the checks generating makes; with -spec or -elf, of every map")
	version := fs.Bool("version", false, "print the version")
	specFile := fs.String("spec", "", `JSON file: an array of maps to generate, with the flags' names as fields, and of objects {"elf": "prog.o", "maps": ["conns"], ...} that stand for maps of a BPF object as -elf does (the object's path relative to the spec file's directory; with elf, pkg, hash, lean, batch-lock, bloom, ebpf-compat and tests apply to each map that has them); with it, only -out-dir or -explain may be given`)
	outDir := fs.String("out-dir", "", "with -spec or -elf: directory the maps' files go to (a spec file's out paths are relative to it)")
	elfFile := fs.String("elf", "", "compiled BPF object (clang -target bpf): generate each of its hash-family and bloom filter maps into <map name>_htab.go, with the object's key and value sizes, max_entries and flags as its defaults (NOptions); other maps are listed and skipped; with it, only "+elfFlagList+" may be given")
	mapsFlag := fs.String("maps", "", "with -elf: the maps to generate, by their names in the object, separated by commas, spaces around a name dropped (default every one)")
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "usage:\n  htabgen -type %s -key N -val N [options]\n  htabgen -spec maps.json [-out-dir DIR | -explain]\n  htabgen -elf prog.o [-maps a,b] [-out-dir DIR] [-pkg P] [-ebpf-compat] [-tests] [-explain]\n\noptions:\n", strings.Join(spec.TypeWords(), "|"))
		fs.PrintDefaults()
		fmt.Fprintf(out, "Exit status: 0 on success, 1 for an I/O error, 2 for a usage or spec error; on any error no file is created or changed.\n")
	}
	// Parse reports its errors itself, with the whole usage; run reports
	// them as it does every other bad flag, and prints the usage for -help.
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	if errors.Is(err, flag.ErrHelp) {
		// Asked for, the usage is the output: standard output, so that
		// htabgen -help | less shows it.
		var usage strings.Builder
		fs.SetOutput(&usage)
		fs.Usage()
		_, err := io.WriteString(stdout, usage.String())
		return printed(stderr, err)
	}
	if err != nil {
		return usageError(stderr, syntaxError(fs, err))
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Errorf("unexpected argument %q: every setting is a flag", fs.Arg(0)))
	}
	if err := givenOnce(fs, args); err != nil {
		return usageError(stderr, err)
	}
	given := map[string]bool{} // a flag given at its default value is still given
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *version {
		if len(given) > 1 {
			for _, name := range slices.Sorted(maps.Keys(given)) {
				if name != "version" {
					return usageError(stderr, fmt.Errorf("-version with %s: -version prints the version and does nothing else: give it alone", flagAsGiven(fs, name)))
				}
			}
		}
		_, err := fmt.Fprintln(stdout, "htabgen", htabgen.Version)
		return printed(stderr, err)
	}
	command := commandLine(args)
	if *explain {
		// Said, not ignored: whoever asks for a file with -explain expects one.
		for _, name := range []string{"out", "tests", "ebpf-compat", "out-dir"} {
			if given[name] {
				return usageError(stderr, fmt.Errorf("%s: -explain prints the layout and writes no file", flagAsGiven(fs, name)))
			}
		}
	}
	for _, name := range []string{"spec", "out-dir", "elf", "maps"} {
		if given[name] && fs.Lookup(name).Value.String() == "" {
			return usageError(stderr, fmt.Errorf("-%s \"\": %s", name, strings.TrimSuffix(fs.Lookup(name).Usage, decimalNote)))
		}
	}
	pkg, err := envPackage()
	if err != nil {
		return usageError(stderr, err)
	}

	if given["maps"] && !given["elf"] {
		return usageError(stderr, fmt.Errorf("-maps goes with -elf: it picks maps of the BPF object"))
	}

	var specs []spec.Spec
	// Where the maps come from, as errors name them: a spec file or a BPF
	// object; nil for the flags' one map.
	var in *input
	switch {
	case *specFile != "":
		for _, name := range slices.Sorted(maps.Keys(given)) {
			if name != "spec" && name != "out-dir" && name != "explain" {
				return usageError(stderr, fmt.Errorf("-%s: with -spec, every setting comes from the spec file (only -out-dir or -explain may be given)", name))
			}
		}
		data, err := os.ReadFile(*specFile)
		if err != nil {
			fmt.Fprintln(stderr, "htabgen:", err)
			return exitIO
		}
		if specs, err = spec.ParseJSON(data); err != nil {
			return usageError(stderr, fmt.Errorf("%s: %w", *specFile, err))
		}
		in = &input{prefix: *specFile, specFile: true, sources: []source{{*specFile, "the spec file"}}}
		var objects []source
		if specs, in.labels, objects, err = expandELF(*specFile, specs, stderr); err != nil {
			return elfError(stderr, err)
		}
		in.sources = append(in.sources, objects...)
		for i := range specs {
			if specs[i].Out == "" {
				specs[i].Out = strings.ToLower(specs[i].TypeName()) + "_htab.go"
			}
			specs[i].Out = underDir(*outDir, specs[i].Out)
		}
		if err := checkDistinct(in, specs); err != nil {
			return usageError(stderr, err)
		}
	case *elfFile != "":
		for _, name := range slices.Sorted(maps.Keys(given)) {
			if !slices.Contains(elfFlags, name) {
				return usageError(stderr, fmt.Errorf("-%s: with -elf, each map's type, sizes and options come from the BPF object (only %s may be given)", name, elfFlagList))
			}
		}
		s.ELF = *elfFile
		if given["maps"] {
			s.Maps = strings.Split(*mapsFlag, ",")
			for i := range s.Maps {
				s.Maps[i] = strings.TrimSpace(s.Maps[i])
			}
		}
		if err := s.ValidateELF(given); err != nil {
			return usageError(stderr, err)
		}
		in = &input{prefix: *elfFile, sources: []source{{*elfFile, "the BPF object"}}}
		if specs, in.labels, err = objectMaps(*elfFile, s, stderr); err != nil {
			return elfError(stderr, err)
		}
		for i := range specs {
			specs[i].Out = underDir(*outDir, specs[i].Out)
		}
		if err := checkDistinct(in, specs); err != nil {
			return usageError(stderr, err)
		}
	default:
		if *outDir != "" {
			return usageError(stderr, fmt.Errorf("-out-dir goes with -spec or -elf; use -out for one map"))
		}
		if *typ != "" { // -type '' is as good as none: "required"
			if s.Type, err = spec.ParseType(*typ); err != nil {
				return usageError(stderr, err)
			}
		}
		s.Hash, s.BatchLock, s.Layout = spec.HashKind(*hash), spec.BatchLock(*batch), spec.StorageLayout(*layout)
		if err := s.ValidateGiven(given); err != nil {
			return usageError(stderr, err)
		}
		specs = []spec.Spec{s}
	}

	var files []htabgen.File
	var explained []string // printed when every map is planned: on error, nothing
	for i, s := range specs {
		if s.Pkg == "" {
			s.Pkg = pkg
			if err := externalTestPackage(s, in); err != nil {
				return usageError(stderr, in.mapError(i, err))
			}
		}
		// -explain checks what it explains as generating would: a spec
		// file it explains is one it would generate.
		generated, err := htabgen.Generate(s, command)
		if err != nil {
			return usageError(stderr, in.mapError(i, err))
		}
		files = append(files, generated...)
		if *explain {
			l, err := spec.Plan(s)
			if err != nil {
				return usageError(stderr, in.mapError(i, err))
			}
			explained = append(explained, l.Explain())
		}
	}
	if in != nil {
		if err := htabgen.CheckTogether(files); err != nil {
			return usageError(stderr, fmt.Errorf("%s: %w", in.prefix, err))
		}
	}
	if *explain {
		_, err := fmt.Fprintln(stdout, strings.Join(explained, "\n"))
		return printed(stderr, err)
	}
	if len(files) == 1 && files[0].Path == "" {
		_, err := stdout.Write(files[0].Content)
		return printed(stderr, err)
	}
	if err := htabgen.WriteFiles(files); err != nil {
		fmt.Fprintln(stderr, "htabgen:", err)
		return exitIO
	}
	return exitOK
}

// The flag package's errors: a value it cannot parse, a flag it does not
// know, a flag given last without its value.
var (
	badValue     = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)
	unknownFlag  = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	missingValue = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
)

// syntaxError is a flag syntax error from fs.Parse, restated as run states
// its other errors: a bad value names the flag, the value and what the flag
// takes, where the flag package says only "parse error"; an unknown flag
// lists the flags there are; a missing value says what the flag takes.
func syntaxError(fs *flag.FlagSet, err error) error {
	if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
		return fmt.Errorf("unknown flag -%s: the flags are %s", m[1], strings.Join(names, ", "))
	}
	if m := missingValue.FindStringSubmatch(err.Error()); m != nil {
		if f := fs.Lookup(m[1]); f != nil {
			return fmt.Errorf("-%s needs a value: %s", f.Name, strings.TrimSuffix(f.Usage, decimalNote))
		}
		return err
	}
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return err
	}
	want := "a whole number"
	if _, ok := f.Value.(*decimal); ok {
		want = "a decimal whole number"
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		want = "true or false"
	}
	if m[3] != "parse error" {
		want += " (" + m[3] + ")"
	}
	return fmt.Errorf("-%s %s: want %s: %s", f.Name, m[1], want, strings.TrimSuffix(f.Usage, decimalNote))
}

// printed is the exit status after writing to standard output: an error
// (a closed pipe, a full disk) is an I/O error.
func printed(stderr io.Writer, err error) int {
	if err != nil {
		fmt.Fprintln(stderr, "htabgen:", err)
		return exitIO
	}
	return exitOK
}

// decimal is an int flag that reads only decimal numbers: the flag package's
// own reads 010 as 8 and 0x10 as 16, which a spec file's JSON never would.
type decimal int

// decimalNote ends a decimal flag's usage; the back-quoted word is what
// -help shows as the flag's argument, as it shows "int" for an int flag.
const decimalNote = " (decimal `int`)"

func decimalUsage(usage string) string { return usage + decimalNote }

func (d *decimal) String() string { return strconv.Itoa(int(*d)) }

func (d *decimal) Set(s string) error {
	n, err := strconv.Atoi(s)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return errors.New("value out of range") // the flag package's words, which syntaxError restates
	case err != nil:
		return errors.New("parse error")
	}
	*d = decimal(n)
	return nil
}

// commandLine is the command as the generated file's header shows it, each
// argument that a shell would split or that has a control character quoted
// (Go syntax), so that the header stays one line.
func commandLine(args []string) string {
	words := []string{"htabgen"}
	for _, a := range args {
		if a == "" || strings.ContainsFunc(a, needsQuote) {
			a = strconv.Quote(a)
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// flagAsGiven is the flag name as the command line gave it, for errors:
// -tests, -out x.go, -pkg "".
func flagAsGiven(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		if f.Value.String() == "true" {
			return "-" + name
		}
		return "-" + name + "=" + f.Value.String()
	}
	return strings.TrimPrefix(commandLine([]string{"-" + name, f.Value.String()}), "htabgen ")
}

// needsQuote reports whether r in an argument makes commandLine quote it:
// anything but letters, digits, printable non-ASCII and the punctuation of
// flags and paths.
func needsQuote(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	case r > unicode.MaxASCII:
		return !unicode.IsPrint(r)
	}
	return !strings.ContainsRune("-_./=,:+@", r)
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "htabgen:", err)
	fmt.Fprintln(stderr, "run 'htabgen -help' for the flags")
	return exitUsage
}

// featureUsage is the -help line of the option name, from the feature table
// (spec.Features), with the types it applies to unless it is every type's
// or its value decides (the line then says which types take which value).
func featureUsage(name string) string {
	for _, f := range spec.Features {
		if f.Name != name {
			continue
		}
		usage := f.Usage
		if len(f.Types) < len(spec.MapTypes) && !f.ValueDecides {
			var types []string
			for _, t := range f.Types {
				types = append(types, t.String())
			}
			usage += " (" + strings.Join(types, ", ") + ")"
		}
		return usage
	}
	panic("htabgen: no feature " + name)
}

// input is where a command's maps come from (a spec file, a BPF object),
// as errors name it and them.
type input struct {
	prefix   string   // what its errors start with: the spec file's path, or the object's
	specFile bool     // the maps' options are a spec file's fields (spec.AsField)
	sources  []source // the files read: the spec file and its BPF objects, or the object
	labels   []string // each map, after "map": its index in the spec file, its name
}

// source is a file the maps come from, which none may overwrite.
type source struct {
	path string
	noun string // the file in a sentence: "the spec file"
}

// mapError is err, an error of map i, naming the map; for nil in (the
// flags' one map), err.
func (in *input) mapError(i int, err error) error {
	if in == nil {
		return err
	}
	if in.specFile {
		err = spec.AsField(err)
	}
	return fmt.Errorf("%s: map %s: %w", in.prefix, in.labels[i], err)
}

// checkDistinct rejects maps from in that would overwrite each other's
// files (a map's out or its test file), or a file they come from, or clash
// by name in one package. Two names that differ only in case are one file on a
// case-insensitive file system, and cmd/go refuses them in one package.
func checkDistinct(in *input, specs []spec.Spec) error {
	sources := map[string]string{} // PathKey → noun
	for _, src := range in.sources {
		key := htabgen.PathKey(src.path)
		if _, dup := sources[key]; !dup {
			sources[key] = src.noun
		}
	}
	var paths, keys, kinds []string
	var owner []int // the map of each output
	for i, s := range specs {
		for _, f := range htabgen.Outputs(s) {
			key := htabgen.PathKey(f.Path)
			if noun, ok := sources[key]; ok {
				return fmt.Errorf("%s: map %s writes %s, %s itself", in.prefix, in.labels[i], f.Path, noun)
			}
			paths, keys, owner, kinds = append(paths, f.Path), append(keys, key), append(owner, i), append(kinds, f.Kind)
		}
	}
	if c := htabgen.FindCollision(keys); c != nil {
		a, b := in.labels[owner[c.First]], in.labels[owner[c.Second]]
		if c.CaseOnly {
			return fmt.Errorf("%s: maps %s and %s write %s and %s, whose names differ only in case: %s", in.prefix, a, b, paths[c.First], paths[c.Second], htabgen.CaseOnlyReason)
		}
		return fmt.Errorf("%s: maps %s and %s both write %s", in.prefix, a, b, paths[c.Second])
	}
	names := map[string]int{} // directory/type name → map
	for i, key := range keys {
		if kinds[i] != "map" {
			continue // a map's other files: its name is checked at its out
		}
		s := specs[owner[i]]
		name := filepath.Dir(key) + string(filepath.Separator) + s.TypeName()
		if other, dup := names[name]; dup {
			return fmt.Errorf("%s: maps %s and %s are both named %s in %s", in.prefix, in.labels[other], in.labels[owner[i]], s.TypeName(), filepath.Dir(s.Out))
		}
		names[name] = owner[i]
	}
	return nil
}

// elfFlags are the flags that may go with -elf; elfFlagList says them.
var elfFlags = []string{"elf", "maps", "out-dir", "pkg", "ebpf-compat", "tests", "explain"}

const elfFlagList = "-maps, -out-dir, -pkg, -ebpf-compat, -tests or -explain"

// objectMaps are the maps of the BPF object at path (s.ELF, found) that
// s.Maps names, or all of them, with the options of s (spec.Spec.ForMap),
// each labelled by its Go name for errors. The maps it skips are listed on
// stderr, one line each; none to generate is an error.
func objectMaps(path string, s spec.Spec, stderr io.Writer) ([]spec.Spec, []string, error) {
	specs, skipped, err := htabgen.ELFSpecs(path, s.Maps)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range skipped {
		fmt.Fprintf(stderr, "htabgen: %s: %s\n", path, m)
	}
	switch {
	case len(specs) == 0 && len(skipped) > 0:
		return nil, nil, fmt.Errorf("%s: no map to generate: each map is skipped, for the reason above", path)
	case len(specs) == 0:
		return nil, nil, fmt.Errorf("%s: no map to generate: the object declares no map", path)
	}
	if err := s.CheckForMaps(specs); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	labels := make([]string, len(specs))
	for i := range specs {
		specs[i] = s.ForMap(specs[i])
		labels[i] = specs[i].Name
	}
	return specs, labels, nil
}

// expandELF replaces each object of a spec file that names a BPF object
// with the object's maps (objectMaps), the object's path relative to the
// spec file's directory. The labels name each map in errors: its index in
// the file, and an object's maps the object and their Go names too. The
// objects are the BPF objects read.
func expandELF(specFile string, specs []spec.Spec, stderr io.Writer) (out []spec.Spec, labels []string, objects []source, err error) {
	for i, s := range specs {
		if s.ELF == "" {
			out, labels = append(out, s), append(labels, strconv.Itoa(i))
			continue
		}
		path := s.ELF
		if dir := filepath.Dir(specFile); dir != "." {
			path = underDir(dir, path)
		}
		maps, names, err := objectMaps(path, s, stderr)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: map %d: %w", specFile, i, err)
		}
		objects = append(objects, source{path, fmt.Sprintf("the BPF object of map %d", i)})
		out = append(out, maps...)
		for _, name := range names {
			labels = append(labels, fmt.Sprintf("%d (%s: %s)", i, path, name))
		}
	}
	return out, labels, objects, nil
}

// elfError reports an error of reading a BPF object: an I/O error (the
// file is missing or unreadable) exits 1, any other (not a BPF object, a map
// it does not declare) is a usage error.
func elfError(stderr io.Writer, err error) int {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		fmt.Fprintln(stderr, "htabgen:", err)
		return exitIO
	}
	return usageError(stderr, err)
}

// underDir is a spec file's out relative to -out-dir dir, joined as written:
// filepath.Join would clean a ".." in out as text, where the system applies
// it after the symbolic links before it (see htabgen.PathKey).
func underDir(dir, out string) string {
	if dir == "" || filepath.IsAbs(out) {
		return out
	}
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + out
	}
	return dir + string(filepath.Separator) + out
}

// envPackage is the package clause for maps without -pkg: $GOPACKAGE, which
// go generate sets to the package of the file with the directive, else main.
// A $GOPACKAGE that is no package name is said to be the error, not -pkg.
func envPackage() (string, error) {
	pkg := os.Getenv("GOPACKAGE")
	if pkg == "" {
		return "main", nil
	}
	if !token.IsIdentifier(pkg) || pkg == "_" {
		return "", fmt.Errorf("$GOPACKAGE %q (set by go generate): not a Go package name; give -pkg", pkg)
	}
	return pkg, nil
}

// externalTestPackage rejects a map that would take the package of an
// external test file (a go:generate line in x_test.go of package foo_test)
// into a file that is not a test file: Go builds that file into package foo.
// The fix it suggests is in the words of where s came from, in (nil: flags).
func externalTestPackage(s spec.Spec, in *input) error {
	if !strings.HasSuffix(s.Pkg, "_test") || s.Out == "" || strings.HasSuffix(s.Out, "_test.go") {
		return nil
	}
	base := strings.TrimSuffix(s.Pkg, "_test")
	var fix string
	switch {
	case in == nil:
		fix = fmt.Sprintf("give -pkg %s, or an -out ending in _test.go", base)
	case in.specFile:
		fix = fmt.Sprintf(`give "pkg": %q, or an "out" ending in _test.go`, base)
	default: // a BPF object's maps, whose files are named for them
		fix = fmt.Sprintf("give -pkg %s", base)
	}
	return fmt.Errorf("$GOPACKAGE %s is an external test package, but %s is not a _test.go file, which Go builds into package %s: %s", s.Pkg, s.Out, base, fix)
}

// givenOnce reports the first flag given more than once in args, which fs
// has parsed without error: the last one would silently win, where a field
// given twice in a spec file is an error.
func givenOnce(fs *flag.FlagSet, args []string) error {
	counts := map[string]int{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break // the flag package stops here too
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			break // -help; any other unknown flag failed Parse
		}
		counts[name]++
		if counts[name] > 1 {
			return fmt.Errorf("-%s is given twice: give each flag once", name)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // the next argument is the value
		}
	}
	return nil
}
