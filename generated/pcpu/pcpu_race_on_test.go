//go:build race

package pcpu

// raceEnabled: the race detector is on; stress tests do fewer operations.
const raceEnabled = true
