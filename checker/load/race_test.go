//go:build race

package load

// raceEnabled lets tests shrink inputs that only cost time under the race detector.
const raceEnabled = true
