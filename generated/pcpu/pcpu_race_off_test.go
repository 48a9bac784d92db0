//go:build !race

package pcpu

// raceEnabled: the race detector is off.
const raceEnabled = false
