package specmatrix_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/htabgen/htabgen"
	"github.com/htabgen/htabgen/internal/tempmodule"
	"github.com/htabgen/htabgen/spec"
)

// TestMatrix generates the spec matrix with its tests into one temporary
// module, a package per (type, layout, hash, lean) with many maps each (so
// that maps prove they compile together), then runs go test once over the
// module, with every vet check. Key sizes are where the generated code
// differs most (the unrolled hash and compare, the cached hash, padding), so
// every package of the hash type has every key size its hash takes; value
// sizes change only the element's tail and padding, so each key size meets a
// few of them in turn (see cover) rather than all: the full product would
// compile 400 hash maps where this compiles 128, and the generated/ packages
// add more sizes.
func TestMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the spec matrix (generates, vets and tests about two hundred maps)")
	}
	mod := t.TempDir()

	keys := []int{1, 2, 3, 4, 7, 8, 9, 12, 13, 16, 24, 32, 64, 128}
	var wordKeys []int // jhash2 hashes whole words only
	for _, k := range keys {
		if k%4 == 0 {
			wordKeys = append(wordKeys, k)
		}
	}
	hashes := []spec.HashKind{spec.HashStatic, spec.HashJhash2, spec.HashJhash}
	start := time.Now()
	maps, pkgs := 0, 0
	// newPkg makes the directory of one package of the module.
	newPkg := func(pkg string) string {
		dir := filepath.Join(mod, pkg)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		pkgs++
		return dir
	}
	// write generates s, as cmd would, into its package.
	write := func(s spec.Spec, cmd string) {
		files, err := htabgen.Generate(s, cmd)
		require.NoError(t, err, cmd)
		require.NoError(t, htabgen.WriteFiles(files), cmd)
		maps++
	}
	gen := func(typ spec.MapType, layout spec.StorageLayout, h spec.HashKind, lean bool, sizes []keyVal, bloom int) {
		pkg := fmt.Sprintf("%s_%s_%s_lean%v", typ, layout, h, lean)
		if bloom > 0 {
			pkg += fmt.Sprintf("_bloom%d", bloom)
		}
		dir := newPkg(pkg)
		for _, kv := range sizes {
			key, val := kv.key, kv.val
			s := spec.Default()
			s.Type, s.Key, s.Val, s.Hash, s.Lean, s.Layout, s.Bloom = typ, key, val, h, lean, layout, bloom
			s.Name = fmt.Sprintf("K%dV%d", key, val)
			s.Pkg = pkg
			s.Out = filepath.Join(dir, fmt.Sprintf("k%dv%d_htab.go", key, val))
			s.Tests = true
			// The packages with a filter in front have every type: they
			// carry the -ebpf-compat adapters too.
			s.EbpfCompat = bloom > 0
			write(s, fmt.Sprintf("htabgen -type %s -layout %s -key %d -val %d -hash %s -lean=%v -bloom %d -name %s -out k%dv%d_htab.go -tests -ebpf-compat=%v",
				typ, layout, key, val, h, lean, bloom, s.Name, key, val, s.EbpfCompat))
		}
	}
	genBloom := func(h spec.HashKind, vals []int) {
		pkg := fmt.Sprintf("bloom_%s", h)
		dir := newPkg(pkg)
		for _, val := range vals {
			if h == spec.HashJhash2 && val%4 != 0 {
				continue
			}
			s := spec.Default()
			s.Type, s.Val, s.Hash, s.Name, s.Pkg, s.Tests = spec.Bloom, val, h, fmt.Sprintf("V%d", val), pkg, true
			s.EbpfCompat, s.MaxEntries, s.ZeroSeed = h == spec.HashStatic, 1000, true
			s.Out = filepath.Join(dir, fmt.Sprintf("v%d_htab.go", val))
			write(s, fmt.Sprintf("htabgen -type bloom -val %d -hash %s -name %s -out v%d_htab.go -tests -ebpf-compat=%v -max-entries 1000 -zero-seed", val, h, s.Name, val, s.EbpfCompat))
		}
	}
	// Every hash kind gives the kernel's jhash value (each map's generated
	// HashIsJhash test checks it) and hashes the key alone, so jhash and
	// jhash2 meet one value size per key; the static hash, the default,
	// meets two. The element without lean fields (a cached hash and unused
	// LRU and per-CPU room whatever the key size) is made with the static
	// hash only; the kernel's two loops, lean, in both layouts.
	for _, layout := range []spec.StorageLayout{spec.LayoutClassic, spec.LayoutHome} {
		gen(spec.Hash, layout, spec.HashStatic, true, cover(keys, []int{8}, []int{1, 13, 64}), 0)
		gen(spec.Hash, layout, spec.HashJhash, true, cover(keys, nil, []int{1, 8, 13, 64}), 0)
		gen(spec.Hash, layout, spec.HashJhash2, true, cover(wordKeys, nil, []int{1, 8, 13, 64}), 0)
		gen(spec.Hash, layout, spec.HashStatic, false, cover(keys, nil, []int{1, 8, 13, 64}), 0)
	}
	// The other types share the hash code; their matrix covers what they
	// add: cached hash or not (LRU's evict), value tails (per-CPU slots).
	for _, typ := range []spec.MapType{spec.PerCPU, spec.LRU, spec.LRUPerCPU} {
		for _, lean := range []bool{true, false} {
			gen(typ, spec.LayoutClassic, spec.HashStatic, lean, cover([]int{1, 4, 8, 9, 16}, nil, []int{1, 8, 13}), 0)
		}
	}
	// A bloom filter in front of lookups, in every type and layout (a cached
	// hash or not: the rebuild's walk hashes keys again), and the bloom
	// filter map's value sizes and hashes.
	for _, tl := range []struct {
		typ    spec.MapType
		layout spec.StorageLayout
	}{{spec.Hash, spec.LayoutHome}, {spec.Hash, spec.LayoutClassic}, {spec.PerCPU, spec.LayoutClassic}, {spec.LRU, spec.LayoutClassic}, {spec.LRUPerCPU, spec.LayoutClassic}} {
		gen(tl.typ, tl.layout, spec.HashStatic, true, cover([]int{1, 8, 9, 16}, []int{8}, nil), 3)
	}
	for _, h := range hashes {
		genBloom(h, []int{1, 2, 5, 8, 12, 13, 40, 64, 100, 256})
	}
	goCmd := tempmodule.New(t, mod, "matrix")
	t.Logf("generated %d maps in %d packages in %v", maps, pkgs, time.Since(start).Round(time.Millisecond))

	// One go invocation: every vet check (-vet=all, not go test's curated
	// few), then the generated tests (-short: fewer random operations per
	// map) and the fuzz targets' seed inputs, not the benchmarks.
	t.Logf("%s", goCmd(nil, "test", "-short", "-vet=all", "-run", "^(Test|Fuzz)", "-bench", "^$", "./..."))
}

// keyVal is one map's key and value sizes.
type keyVal struct{ key, val int }

// cover pairs every key with each value of always and with one value of
// rotate, taken in turn, so that each value of rotate meets every
// len(rotate)-th key.
func cover(keys, always, rotate []int) []keyVal {
	var kvs []keyVal
	for i, key := range keys {
		for _, val := range always {
			kvs = append(kvs, keyVal{key, val})
		}
		if len(rotate) > 0 {
			kvs = append(kvs, keyVal{key, rotate[i%len(rotate)]})
		}
	}
	return kvs
}
