//go:build race

package proto

// raceEnabled: the race detector slows the order checks ten-fold or more.
const raceEnabled = true
