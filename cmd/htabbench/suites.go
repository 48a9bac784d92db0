package main

// A suite is the benchmarks of one package of generated/ that one section
// of the report reads: one or more `go test -bench` runs (more where the
// benchmarks need different -count or -benchtime). Each has a full form and
// a quick one (fewer sizes, shorter runs; -quick) that exists to show the
// whole pipeline works, not to be quoted.
type suite struct {
	name        string // for -suites
	pkg         string
	full, quick []runArgs
}

// runArgs are the go test flags of one run: -bench, -benchtime and -count,
// flags of the test binary (such as BenchmarkScale's), and environment
// variables.
type runArgs struct {
	bench, benchtime string
	count            int
	flags, env       []string
}

// suites are every benchmark the report reads, in the order they run. Full
// takes about 25 minutes on 2 cores; quick under 2.
var suites = []suite{
	{
		// The kernel's hashmap lookup benchmark, jhash, jhash2 and the static
		// hash in paired rounds with the builtin map, xsync and swiss.
		name: "hash-functions", pkg: "./generated/hashbench",
		full:  []runArgs{{bench: "^BenchmarkPairedGain$", benchtime: "40x", count: 6}},
		quick: []runArgs{{bench: "^BenchmarkPairedGain$/^key=(8|16|64)$/^fullness=(25|100)$", benchtime: "8x", count: 2}},
	},
	{
		name: "element-size", pkg: "./generated/elemsize",
		full:  []runArgs{{bench: "^BenchmarkEntryMemory$", benchtime: "3x", count: 1}},
		quick: []runArgs{{bench: "^BenchmarkEntryMemory$", benchtime: "1x", count: 1}},
	},
	{
		name: "batch-dump", pkg: "./generated/batchbench",
		full:  []runArgs{{bench: "^BenchmarkDumpHashMap$", benchtime: "1s", count: 6}},
		quick: []runArgs{{bench: "^BenchmarkDumpHashMap$/^entries=(1|1k|39k)$", benchtime: "20x", count: 2}},
	},
	{
		// HTAB_BLOOM_BENCH=full: the kernel's whole table, 1..10 hash
		// functions and 10k..5M entries.
		name: "bloom-filter", pkg: "./generated/bloombench",
		full:  []runArgs{{bench: "^BenchmarkBloomLookups$", benchtime: "1x", count: 1, env: []string{"HTAB_BLOOM_BENCH=full"}}},
		quick: []runArgs{{bench: "^BenchmarkBloomLookups$/^hashes=3$/^entries=(10000|100000)$", benchtime: "1x", count: 1}},
	},
	{
		name: "peers", pkg: "./generated/hash",
		full: []runArgs{
			{bench: "^BenchmarkPeers(Lookup|Mixed)$", benchtime: "500ms", count: 6},
			{bench: "^BenchmarkPeersMemory$", benchtime: "1x", count: 3},
		},
		// go test matches each level of a name on its own: the second level
		// picks fullnesses of Lookup and mixes of Mixed. A PeersMemory
		// iteration fills a map and collects garbage four times: 1x.
		quick: []runArgs{
			{bench: "^BenchmarkPeers(Lookup|Mixed)$/^(fullness=(50|100)|updates=(0|10))$", benchtime: "100000x", count: 1},
			{bench: "^BenchmarkPeersMemory$", benchtime: "1x", count: 1},
		},
	},
	{
		name: "lru", pkg: "./generated/lru",
		// A replay of the trace gives the same hit ratio every time: once.
		full: []runArgs{
			{bench: "^BenchmarkLRUSpeed$", benchtime: "500ms", count: 6},
			{bench: "^BenchmarkLRUHitRatio$", benchtime: "1x", count: 1},
		},
		quick: []runArgs{
			{bench: "^BenchmarkLRUSpeed$/^mix=90-10$", benchtime: "100000x", count: 1},
			{bench: "^BenchmarkLRUHitRatio$/^s=1.2$/^cap=10000$", benchtime: "1x", count: 1},
		},
	},
	{
		// Map sizes 2^16 to 2^24; each round (one b.N) measures every map.
		name: "scale", pkg: "./generated/hash",
		full:  []runArgs{{bench: "^BenchmarkScale$", benchtime: "7x", count: 1, flags: []string{"-scale.max=24"}}},
		quick: []runArgs{{bench: "^BenchmarkScale$", benchtime: "2x", count: 1, flags: []string{"-scale.max=18", "-scale.probes=16"}}},
	},
}
