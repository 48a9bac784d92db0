// Command htabgen generates a Go hash map specialised for one key size, value
// size and BPF map type. Run `htabgen -help` for the flags; the README has
// examples and the contract of the generated API.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/htabgen/htabgen"
	"github.com/htabgen/htabgen/spec"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK    = 0
	exitIO    = 1 // reading a spec file or writing output failed
	exitUsage = 2 // bad flags or a bad spec
)

// run is the whole command; main only wires it to the process.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("htabgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	s := spec.Default()
	typ := fs.String("type", "", "map type: "+typesList())
	fs.IntVar(&s.Key, "key", 0, featureUsage("key"))
	fs.IntVar(&s.Val, "val", 0, "value size in bytes (1..1048576; per-CPU types 1..32768)")
	fs.StringVar(&s.Name, "name", "", "Go name of the map type (default derived, e.g. HashK8V8)")
	fs.StringVar(&s.Pkg, "pkg", "", "package clause (default $GOPACKAGE under go generate, else main)")
	fs.StringVar(&s.Out, "out", "", "output file, written atomically (default standard output)")
	hash := fs.String("hash", string(s.Hash), featureUsage("hash"))
	fs.BoolVar(&s.Lean, "lean", s.Lean, featureUsage("lean"))
	fs.IntVar(&s.Bloom, "bloom", 0, featureUsage("bloom"))
	fs.IntVar(&s.Hashes, "hashes", s.Hashes, featureUsage("hashes"))
	batch := fs.String("batch-lock", string(s.BatchLock), featureUsage("batch-lock"))
	layout := fs.String("layout", "", featureUsage("layout"))
	fs.BoolVar(&s.EbpfCompat, "ebpf-compat", false, featureUsage("ebpf-compat"))
	fs.BoolVar(&s.Tests, "tests", false, "also write <out>_test.go: behaviour tests and benchmarks of this map")
	explain := fs.Bool("explain", false, "print the planned layout instead of code")
	version := fs.Bool("version", false, "print the version")
	specFile := fs.String("spec", "", "JSON file: an array of maps to generate, with the flags' names as fields")
	outDir := fs.String("out-dir", "", "with -spec: directory the maps' out paths are relative to")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage:\n  htabgen -type %s -key N -val N [options]\n  htabgen -spec maps.json [-out-dir DIR]\n\noptions:\n", strings.Join(typeNames(), "|"))
		fs.PrintDefaults()
	}
	// Parse reports its errors itself, with the whole usage; run reports
	// them as it does every other bad flag, and prints the usage for -help.
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return exitOK
	}
	if err != nil {
		return usageError(stderr, syntaxError(fs, err))
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Errorf("unexpected argument %q: every setting is a flag", fs.Arg(0)))
	}
	if *version {
		fmt.Fprintln(stdout, "htabgen", htabgen.Version)
		return exitOK
	}
	command := "htabgen " + strings.Join(args, " ")
	pkg := os.Getenv("GOPACKAGE")
	if pkg == "" {
		pkg = "main"
	}

	var specs []spec.Spec
	if *specFile != "" {
		var extra string
		fs.Visit(func(f *flag.Flag) {
			if extra == "" && f.Name != "spec" && f.Name != "out-dir" {
				extra = f.Name
			}
		})
		if extra != "" {
			return usageError(stderr, fmt.Errorf("-%s: with -spec, every setting comes from the spec file (only -out-dir may be given)", extra))
		}
		data, err := os.ReadFile(*specFile)
		if err != nil {
			fmt.Fprintln(stderr, "htabgen:", err)
			return exitIO
		}
		if specs, err = spec.ParseJSON(data); err != nil {
			return usageError(stderr, err)
		}
		for i := range specs {
			if specs[i].Out == "" {
				specs[i].Out = strings.ToLower(specs[i].TypeName()) + "_htab.go"
			}
			if !filepath.IsAbs(specs[i].Out) {
				specs[i].Out = filepath.Join(*outDir, specs[i].Out)
			}
		}
		if err := checkDistinct(specs); err != nil {
			return usageError(stderr, err)
		}
	} else {
		if *outDir != "" {
			return usageError(stderr, fmt.Errorf("-out-dir goes with -spec; use -out for one map"))
		}
		s.Type, s.Hash, s.BatchLock, s.Layout = spec.MapType(*typ), spec.HashKind(*hash), spec.BatchLock(*batch), spec.StorageLayout(*layout)
		specs = []spec.Spec{s}
	}

	var files []htabgen.File
	for i, s := range specs {
		if s.Pkg == "" {
			s.Pkg = pkg
		}
		if *explain {
			l, err := spec.Plan(s)
			if err != nil {
				return usageError(stderr, err)
			}
			fmt.Fprintln(stdout, l.Explain())
			continue
		}
		generated, err := htabgen.Generate(s, command)
		if err != nil {
			if *specFile != "" {
				err = fmt.Errorf("spec file: map %d: %w", i, err)
			}
			return usageError(stderr, err)
		}
		files = append(files, generated...)
	}
	if *explain {
		return exitOK
	}
	if len(files) == 1 && files[0].Path == "" {
		if _, err := stdout.Write(files[0].Content); err != nil {
			fmt.Fprintln(stderr, "htabgen:", err)
			return exitIO
		}
		return exitOK
	}
	if err := htabgen.WriteFiles(files); err != nil {
		fmt.Fprintln(stderr, "htabgen:", err)
		return exitIO
	}
	return exitOK
}

// badValue matches the flag package's error for a value it cannot parse.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)

// syntaxError is a flag syntax error from fs.Parse, restated as run states
// its other errors: a bad value names the flag, the value and what the flag
// takes, where the flag package says only "parse error".
func syntaxError(fs *flag.FlagSet, err error) error {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return err
	}
	want := "a whole number"
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		want = "true or false"
	}
	if m[3] != "parse error" {
		want += " (" + m[3] + ")"
	}
	return fmt.Errorf("-%s %s: want %s: %s", f.Name, m[1], want, f.Usage)
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "htabgen:", err)
	fmt.Fprintln(stderr, "run 'htabgen -help' for the flags")
	return exitUsage
}

func typeNames() []string {
	var names []string
	for _, t := range spec.MapTypes {
		names = append(names, string(t))
	}
	return names
}

func typesList() string { return strings.Join(typeNames(), ", ") }

// featureUsage is the -help line of the option name, from the feature table
// (spec.Features), with the types it applies to unless it is every type's.
func featureUsage(name string) string {
	for _, f := range spec.Features {
		if f.Name != name {
			continue
		}
		if len(f.Types) == len(spec.MapTypes) {
			return f.Usage
		}
		var types []string
		for _, t := range f.Types {
			types = append(types, string(t))
		}
		return f.Usage + " (" + strings.Join(types, ", ") + ")"
	}
	panic("htabgen: no feature " + name)
}

// checkDistinct rejects a spec file whose maps would overwrite each other's
// files (a map's out or its test file) or clash by name in one package.
func checkDistinct(specs []spec.Spec) error {
	files, names := map[string]int{}, map[string]int{}
	for i, s := range specs {
		for _, f := range htabgen.Outputs(s) {
			f = filepath.Clean(f)
			if j, dup := files[f]; dup {
				return fmt.Errorf("spec file: maps %d and %d both write %s", j, i, f)
			}
			files[f] = i
		}
		dir := filepath.Dir(filepath.Clean(s.Out))
		name := dir + "." + s.TypeName()
		if j, dup := names[name]; dup {
			return fmt.Errorf("spec file: maps %d and %d are both named %s in %s", j, i, s.TypeName(), dir)
		}
		names[name] = i
	}
	return nil
}
