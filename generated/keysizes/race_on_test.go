//go:build race

package keysizes

// raceEnabled: the race detector makes every atomic load of a 4 KiB key
// expensive, so the large-key tests scale down under -race.
const raceEnabled = true
