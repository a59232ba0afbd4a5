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
	// oneAhead keeps at most one set's first stage under way beside set
	// k's, started before set k's copies are queued (direct saves, whose
	// second stage is the device's).
	oneAhead bool
}

// setWork is a set whose stage on the crew may be in flight.
type setWork struct {
	set  *slotSet
	task *crew.Task // nil when nothing is posted
	// seq counts the call's sets from 1 (loads).
	seq int
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

// doneIf runs done on w when the second stage runs on the crew and started
// says it was started.
func (pt path) doneIf(started bool, w *setWork) error {
	if pt.done == nil || !started {
		return nil
	}
	return pt.done(w)
}

// run moves set after set along pt, with as many sets under way as the
// lane's cycle holds: the first stages of the next sets (their store
// calls queued on the crew, or their gathers on the stream) run ahead
// while set k finishes, so that the crew, the goroutine queueing copies
// and the device all overlap. Once set k's first stage finished, its
// second starts, then the sets whose buffers are free start (all but
// set k's: a load's copies of set k-1, still queued before set k's, are
// waited for there), and then, when the crew runs the second stage, set
// k's answers are taken in. With a single set in the lane's cycle, set
// k+1 starts only once set k is done.
//
// Staged saves too start every set whose buffer is free (a staged
// save's buffer is free once the crew put it). With their gathers one
// set ahead, the device waited for the goroutine to describe each next
// set: on the H200 on 2026-12-04, staged saves of 64 KiB and 256 KiB
// pages moved 0.69-0.78 of the link that way and 0.89-0.96 with every
// free set's gathers queued. Direct saves keep one set ahead
// (path.oneAhead): started as their sets freed, they saved 4 KiB pages
// at 0.71-0.75 of the link in two runs, with one set ahead at 0.63-0.79
// (docs/benchmarks.md).
func (p *pipeline) run(pt path) error {
	var ahead []*setWork // sets whose first stage is under way, oldest first
	err := p.startFree(pt, &ahead, nil)
	for len(ahead) > 0 && err == nil {
		cur := ahead[0]
		ahead = ahead[1:]
		if err = pt.finish(cur); err == nil {
			if pt.oneAhead {
				err = p.startFree(pt, &ahead, cur.set)
			}
			if err == nil {
				err = pt.second(cur)
			}
			started := err == nil
			if started && !pt.oneAhead {
				err = p.startFree(pt, &ahead, cur.set)
			}
			if derr := pt.doneIf(started, cur); err == nil {
				err = derr
			}
		}
		if err == nil && len(ahead) == 0 {
			err = p.startFree(pt, &ahead, nil)
		}
	}
	for _, w := range ahead {
		w.wait()
	}
	return err
}

// startFree starts sets while pages are left and the set acquire hands
// out next is neither busy (the oldest of ahead, or busy, whose second
// stage is under way) nor, once one started, the first of them; with
// pt.oneAhead, only while ahead is empty.
func (p *pipeline) startFree(pt path, ahead *[]*setWork, busy *slotSet) error {
	for {
		if len(*ahead) > 0 && busy == nil {
			busy = (*ahead)[0].set
		}
		if busy != nil && p.peek() == busy || pt.oneAhead && len(*ahead) > 0 {
			return nil
		}
		w, err := pt.start()
		if err != nil || w == nil {
			return err
		}
		*ahead = append(*ahead, w)
	}
}
