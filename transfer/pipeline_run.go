package transfer

import (
	"time"

	"github.com/kvctl/kvctl/internal/crew"
)

// path is one of the four ways pages move (staged or direct, load or
// save) as the stages of the one pipeline loop (pipeline.run). Each set
// of pages goes through two stages, one on the lane's crew (the store
// calls, which also make the staging copies) and one on the device (the
// copies, queued on the stream); loads and direct saves run the crew's
// stage first, staged saves the device's.
type path struct {
	// start takes the next set's pages, acquires a set for them and
	// starts its first stage; nil when no page is left.
	start func() (*setWork, error)
	// finish waits for a set's first stage and takes in its answers.
	finish func(w *setWork) error
	// second starts a set's second stage.
	second func(w *setWork) error
	// done, when the second stage runs on the crew, waits for it and
	// takes in its answers; nil when the second stage is the device's
	// (its copies complete through the set's event).
	done func(w *setWork) error
}

// setWork is a set whose stage on the crew may be in flight.
type setWork struct {
	set  *slotSet
	task *crew.Task // nil when nothing is posted
	// chunk is the most pages of one of the task's store calls.
	chunk int
	// calls, cpu and err are the task's, once waited for: its store
	// calls, the thread CPU time of the helpers' calls (when the crew
	// measures it) and their errors joined.
	calls int
	cpu   time.Duration
	err   error
}

// wait waits for the set's store calls, helping with them; later calls
// do nothing.
func (w *setWork) wait() {
	if w != nil && w.task != nil {
		w.calls, w.err = w.task.Wait()
		w.cpu = w.task.CPU()
		w.task = nil
	}
}

// run moves set after set along pt: once set k's first stage finished,
// the crew starts on its next work (set k+1's store calls for loads, set
// k's puts for staged saves) before the device's work is queued (set k's
// copies, or set k+1's gather), so that the crew, the goroutine queueing
// copies and the device all overlap. With a single set in the lane's
// cycle, set k+1 starts only once set k is done.
func (p *pipeline) run(pt path) error {
	cur, err := pt.start()
	for cur != nil && err == nil {
		err = pt.finish(cur)
		overlap := p.peek() != cur.set
		crewSecond := pt.done != nil
		var next *setWork
		if err == nil && overlap && !crewSecond {
			next, err = pt.start()
		}
		started := err == nil
		if started {
			err = pt.second(cur)
		}
		if err == nil && overlap && crewSecond {
			next, err = pt.start()
		}
		if crewSecond && started {
			if derr := pt.done(cur); err == nil {
				err = derr
			}
		}
		if err == nil && !overlap {
			next, err = pt.start()
		}
		if err != nil {
			next.wait()
			return err
		}
		cur = next
	}
	return err
}
