package main

import (
	"fmt"
	"io"
	"strings"
)

// The peers: what a Go user would pick instead of a generated map.
// BenchmarkPeersLookup, BenchmarkPeersMixed and BenchmarkPeersMemory
// (generated/hash) drive a k8v8 map of 65536 entries of each through the
// same loop: htab (the default home layout), classic (the kernel's
// layout), the builtin map, xsync.Map, cockroachdb/swiss, and the builtin
// map (rwmutex) or swiss behind a sync.RWMutex. BenchmarkLRUSpeed and
// BenchmarkLRUHitRatio (generated/lru) compare the LRU map with
// hashicorp/golang-lru and otter on a Zipf cache-aside load.

// rowsTable is a table with a row for each combination of the values of
// keys in the names under prefix (in the order they appear in the input)
// and a column for each impl: the cell is cell(name of the row and impl).
func rowsTable(r *results, prefix string, keys []string, cell func(name string) string) table {
	impls := r.params(prefix, "impl")
	t := table{header: append(append([]string{}, keys...), impls...)}
	var walk func(prefix string, row []string, keys []string)
	walk = func(prefix string, row []string, keys []string) {
		if len(keys) == 0 {
			cells := append([]string{}, row...)
			for _, impl := range impls {
				cells = append(cells, cell(prefix+"impl="+impl))
			}
			t.add(cells...)
			return
		}
		for _, v := range r.params(prefix, keys[0]) {
			walk(prefix+keys[0]+"="+v+"/", append(row, v), keys[1:])
		}
	}
	walk(prefix, nil, keys)
	return t
}

// millions is a cell of a unit in millions per second.
func millions(r *results, unit string) func(string) string {
	return func(name string) string {
		s, ok := r.summary(name, unit)
		return value(s, ok, 1e-6, 1)
	}
}

func writePeers(w io.Writer, r *results) {
	if r.has("PeersLookup/") {
		fmt.Fprint(w, "Lookups, million per second, one goroutine, in random order: hits, and misses (keys not in the map).\n\n")
		t := rowsTable(r, "PeersLookup/", []string{"fullness", "probe"}, millions(r, "lookups/s"))
		t.header = append(t.header, "htab / builtin", "htab / swiss")
		for i, row := range t.rows {
			name := fmt.Sprintf("PeersLookup/fullness=%s/probe=%s/impl=", row[0], row[1])
			h := r.median(name+"htab", "lookups/s")
			t.rows[i] = append(row, ratio(h, r.median(name+"builtin", "lookups/s")), ratio(h, r.median(name+"swiss", "lookups/s")))
		}
		t.write(w)
	}
	if r.has("PeersMixed/") {
		fmt.Fprint(w, "Mixed requests on a 75 % full map, million operations per second of all goroutines: updates (percent of requests) of present keys, the rest lookups; g goroutines (the builtin map and swiss are not safe for concurrent writers: one goroutine only).\n\n")
		opsPerSecond := millions(r, "ops/s")
		t := rowsTable(r, "PeersMixed/", []string{"updates", "g"}, func(name string) string {
			if !strings.Contains(name, "/g=1/") && (strings.HasSuffix(name, "impl=builtin") || strings.HasSuffix(name, "impl=swiss")) {
				return "—" // not safe for concurrent writers: not run
			}
			return opsPerSecond(name)
		})
		t.write(w)
		var scaling []string
		for _, impl := range r.params("PeersMixed/updates=0/g=2/", "impl") {
			one := r.median("PeersMixed/updates=0/g=1/impl="+impl, "ops/s")
			two := r.median("PeersMixed/updates=0/g=2/impl="+impl, "ops/s")
			scaling = append(scaling, impl+" "+ratio(two, one))
		}
		if len(scaling) > 0 {
			fmt.Fprintf(w, "Lookups only, 2 goroutines over 1: %s.\n\n", strings.Join(scaling, ", "))
		}
	}
	if r.has("PeersMemory/") {
		fmt.Fprint(w, "Bytes per entry of a full k8v8 map of 65536 entries, everything included (the live heap the map adds).\n\n")
		t := table{header: []string{"bytes per entry"}}
		row := []string{"k8v8, 65536"}
		for _, impl := range r.params("PeersMemory/", "impl") {
			t.header = append(t.header, impl)
			row = append(row, plain(r.median("PeersMemory/impl="+impl, "bytes/entry"), 1))
		}
		t.add(row...)
		t.write(w)
	}
}

func writeLRU(w io.Writer, r *results) {
	if r.has("LRUSpeed/") {
		fmt.Fprint(w, "A cache-aside load (look up; on a miss, insert) over a Zipf trace, capacity 10k over 100k keys: million requests per second of all goroutines; mix is lookups-updates in tenths of requests.\n\n")
		t := rowsTable(r, "LRUSpeed/", []string{"mix", "g"}, millions(r, "ops/s"))
		t.write(w)
		fmt.Fprint(w, "Hit ratio of the same runs, percent.\n\n")
		t = rowsTable(r, "LRUSpeed/", []string{"mix", "g"}, func(name string) string {
			if strings.HasPrefix(name, "LRUSpeed/mix=0-100/") {
				return "—" // updates only: no lookup hits or misses
			}
			return plain(r.median(name, "hit%"), 1)
		})
		t.write(w)
	}
	if r.has("LRUHitRatio/") {
		fmt.Fprint(w, "Hit ratio, percent, of each cache replaying a Zipf trace (exponent s) of 1M requests over 100k keys from a cold start; htab-cpusN spreads requests over N CPUs' free lists, as a BPF program does, -nocommon with BPF_F_NO_COMMON_LRU.\n\n")
		t := rowsTable(r, "LRUHitRatio/", []string{"s", "cap"}, func(name string) string { return plain(r.median(name, "hit%"), 1) })
		t.write(w)
	}
}
