package load

import "sync"

// turns lets a file wait until every file before it in input order is decoded. Files that
// use YAML aliases charge the run's alias expansion budget (checker.AliasBudget) while they
// decode; waiting for their turn makes the charges happen in input order, so which documents
// a spent budget refuses does not depend on scheduling. Files without aliases never wait.
//
// No deadlock: files are handed to workers in input order, so a waiting file's predecessors
// are all running or done, and the first unfinished one never waits.
type turns struct {
	mu   sync.Mutex
	cond *sync.Cond
	done []bool
	low  int // every file before low is done
}

func newTurns(n int) *turns {
	t := &turns{done: make([]bool, n)}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// wait blocks until every file before i is done.
func (t *turns) wait(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.low < i {
		t.cond.Wait()
	}
}

// finish marks file i done (also when it was skipped or never read).
func (t *turns) finish(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done[i] = true
	for t.low < len(t.done) && t.done[t.low] {
		t.low++
	}
	t.cond.Broadcast()
}
