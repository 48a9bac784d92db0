package hash

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/htabgen/htabgen/internal/stats"
)

// TestPaired measures the peers in short alternating rounds (every impl once
// per round, in rotating order), so that the noise of a shared machine hits
// all of them alike, and prints the median over rounds of each impl's
// throughput ratio to builtin, xsync, rwmutex and htab (the default layout).
// PEERS_PAIRED=rounds enables it (e.g. 40). Keys are looked up in random
// order, as in BenchmarkPeersLookup.
func TestPeersPaired(t *testing.T) {
	rounds := 0
	fmt.Sscan(os.Getenv("PEERS_PAIRED"), &rounds)
	if rounds == 0 {
		t.Skip("PEERS_PAIRED=rounds not set")
	}
	names := []string{}
	for _, p := range peers {
		names = append(names, p.name)
	}
	report := func(title string, ns map[string][]float64) {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s (median of %d rounds; ratio = throughput / peer's throughput, same round)\n", title, rounds)
		for _, n := range names {
			if ns[n] == nil {
				continue
			}
			fmt.Fprintf(&sb, "  %-13s %7.2f ns/op", n, stats.Median(ns[n]))
			for _, base := range []string{"builtin", "xsync", "rwmutex", "htab"} {
				if ns[base] == nil || base == n {
					continue
				}
				r := make([]float64, rounds)
				for i := range r {
					r[i] = ns[base][i] / ns[n][i]
				}
				fmt.Fprintf(&sb, "  /%s %.2fx", base, stats.Median(r))
			}
			sb.WriteString("\n")
		}
		t.Log(sb.String())
	}
	const per = 1 << 17
	for _, full := range []int{25, 50, 75, 100} {
		keys := peerKeys(peerMaxEntries * full / 100)
		maps := make([]peerMap, len(peers))
		for i, p := range peers {
			maps[i] = p.make()
			fill(maps[i], keys)
		}
		keys = lookupOrder(keys)
		ns := map[string][]float64{}
		rng := rand.New(rand.NewPCG(1, 2))
		for r := range rounds {
			off := rng.IntN(len(keys))
			for j := range peers {
				i := (j + r) % len(peers)
				m := maps[i]
				k := off
				for range per / 2 { // warm the caches with this map, untimed
					m.Lookup(keys[k])
					if k++; k == len(keys) {
						k = 0
					}
				}
				start := time.Now()
				for range per {
					if _, ok := m.Lookup(keys[k]); !ok {
						t.Fatal("miss")
					}
					if k++; k == len(keys) {
						k = 0
					}
				}
				ns[peers[i].name] = append(ns[peers[i].name], float64(time.Since(start).Nanoseconds())/per)
			}
		}
		report(fmt.Sprintf("lookup, 1 goroutine, fullness %d%%", full), ns)
	}
	// Mixed: 2 goroutines, 90 % lookups, 10 % updates of present keys, 75 % full.
	// Rounds are longer: starting and waking a second goroutine is a visible
	// share of a short one.
	const mixedPer = 4 * per
	keys := peerKeys(peerMaxEntries * 3 / 4)
	streams := [][]mixedOp{mixedStream(0, keys, 10), mixedStream(1, keys, 10)}
	ns := map[string][]float64{}
	maps := make([]peerMap, len(peers))
	for i, p := range peers {
		if p.concurrent {
			maps[i] = p.make()
			fill(maps[i], keys)
		}
	}
	for r := range rounds {
		for j := range peers {
			i := (j + r) % len(peers)
			m := maps[i]
			if m == nil {
				continue
			}
			mixedRound(m, streams, per/2) // warm both cores' caches with this map, untimed
			d := mixedRound(m, streams, mixedPer)
			ns[peers[i].name] = append(ns[peers[i].name], float64(d.Nanoseconds())/mixedPer)
		}
	}
	report("mixed, 2 goroutines, 10 % updates, 75 % full", ns)
}
