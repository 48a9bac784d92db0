// Package kernelfigures holds the tables that four kernel changes published
// in their commit messages, so that the benchmarks which reproduce them and
// the htabbench report print the same figures beside their own:
//
//   - "bpf: optimize hashmap lookups when key_size is divisible by 4"
//     (commit 5b85575ad428): the gain of jhash2 over jhash on the
//     bpf-hashmap-lookup benchmark (tools/testing/selftests/bpf/benchs/
//     bench_bpf_hashmap_lookup.c);
//   - "bpf: htab: Reduce memory use of hash maps": element sizes before and
//     after (struct htab_elem in kernel/bpf/hashtab.c);
//   - "bpf: Do not grab the bucket spinlock by default on htab batch ops":
//     BM_DumpHashMap before and after;
//   - "bpf/benchs: Add benchmarks for comparing hashmap lookups with vs.
//     without bloom filter": the bloom filter map's gain, by hash functions
//     and entries (tools/testing/selftests/bpf/benchs/bench_bloom_filter_map.c).
package kernelfigures

// JhashFullness is the fullness, in percent, of the columns of Jhash2Gain.
var JhashFullness = [4]int{25, 50, 75, 100}

// Jhash2Gain is the gain of jhash2 over jhash in percent, by key size (bytes)
// and fullness (JhashFullness), on a hash map of 65536 entries.
var Jhash2Gain = map[int][4]float64{
	4: {7.0, 3.1, 4.7, 3.0}, 8: {13.2, 10.0, 10.5, 10.8}, 12: {14.0, 13.1, 15.1, 11.6},
	16: {1.0, 0.7, 1.5, 2.5}, 20: {7.4, 7.7, 6.6, 6.7}, 24: {11.8, 11.5, 10.6, 9.4},
	28: {1.3, 1.2, 3.3, -0.1}, 32: {5.7, 3.4, 2.7, 3.3}, 64: {0.1, 1.0, 0.4, 2.4},
}

// ElemSize is one row of the memory table: a map type and configuration
// (named as htabgen's benchmarks name them) and the element size, in bytes,
// before and after the series, for keys and values of at most 8 bytes. The
// series left LRU maps as they were: their two sizes are equal, the
// element and its LRU node (64 bytes).
type ElemSize struct {
	Map, Label string
	Old, New   int
}

// ElemSizes is the series' table, plus the LRU maps it names as unchanged.
var ElemSizes = []ElemSize{
	{"hash", "Standard (key <= 8 B, val <= 8 B)", 64, 32},
	{"hash-noprealloc", "Standard, NO_PREALLOC", 64, 32},
	{"pcpu", "Per-CPU (prealloc) (key <= 8 B)", 64, 32},
	{"pcpu-noprealloc", "Per-CPU (non-prealloc) (key <= 8 B)", 64, 40},
	{"lru", "LRU (element + LRU node)", 64, 64},
	{"lru_pcpu", "LRU per-CPU (element + LRU node)", 64, 64},
}

// ElemSizeOf is the row of ElemSizes for map, and false if there is none.
func ElemSizeOf(m string) (ElemSize, bool) {
	for _, e := range ElemSizes {
		if e.Map == m {
			return e, true
		}
	}
	return ElemSize{}, false
}

// DumpHashMap is one row of BM_DumpHashMap's table: the populated entries
// of a map of 50k (the kernel's name, and htabgen's benchmark's), and the
// time in ns to dump it with batch lookups before and after the change.
type DumpHashMap struct {
	Kernel, Entries string
	N               int // entries, as a number
	Before, After   float64
}

// DumpHashMaps is the change's table.
var DumpHashMaps = []DumpHashMap{
	{"1", "1", 1, 2759655, 202707}, {"10", "10", 10, 2933722, 213441},
	{"200", "200", 200, 3171680, 478641}, {"500", "500", 500, 3639607, 980061},
	{"1000", "1k", 1000, 4369008, 1863835}, {"5k", "5k", 5000, 11171919, 8961836},
	{"20k", "20k", 20000, 69150080, 69761497}, {"39k", "39k", 39000, 190501036, 187437830},
}

// BloomGain is the speed of hash map lookups of random keys with a bloom
// filter map asked first, against without, in percent (negative: slower),
// by hash functions (1..10) and entries. One cell is printed as published
// even though it does not fit its row: 8 hashes at 500k entries, 1305 (130.5
// would).
var BloomGain = map[int]map[int]float64{
	1:  {10000: -15, 50000: 25, 100000: 30, 500000: 50, 1000000: 55, 5000000: 40},
	2:  {10000: -20, 50000: 40, 100000: 50, 500000: 90, 1000000: 115, 5000000: 70},
	3:  {10000: -5, 50000: 15, 100000: 25, 500000: 180, 1000000: 200, 5000000: 140},
	4:  {10000: -20, 50000: 50, 100000: 60, 500000: 128, 1000000: 150, 5000000: 105},
	5:  {10000: 10, 50000: 25, 100000: 50, 500000: 100, 1000000: 120, 5000000: 170},
	6:  {10000: 1.5, 50000: 20, 100000: 25, 500000: 165, 1000000: 170, 5000000: 140},
	7:  {10000: -7, 50000: 5, 100000: 15, 500000: 145, 1000000: 155, 5000000: 120},
	8:  {10000: -15, 50000: 50, 100000: 60, 500000: 1305, 1000000: 135, 5000000: 105},
	9:  {10000: -25, 50000: 35, 100000: 60, 500000: 105, 1000000: 130, 5000000: 90},
	10: {10000: 10, 50000: 30, 100000: 45, 500000: 90, 1000000: 105, 5000000: 140},
}
