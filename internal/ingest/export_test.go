package ingest

import "context"

// IndexOrdinary is Index without the cold build of an empty index
// (coldIndex) and without reading files ahead (prefetch.go): every file
// read as it is stored, through the batches of the live index. For tests
// that compare the other ways with it.
func IndexOrdinary(ctx context.Context, ix *Indexer, opts IndexOptions) (IndexSummary, error) {
	opts.inline = true
	return ix.refresh(ctx, opts)
}

// OnEntriesIn sets what a cold build calls once its entry rows are in the
// index and its search text is not yet (nil: nothing).
func OnEntriesIn(f func()) { entriesIn = f }

// OnColdStep sets what a cold build calls at each of its steps "end",
// "swap", "fold" and "text" before the step's own writes; an error it returns is
// taken as that step's I/O failing (nil: nothing).
func OnColdStep(f func(step string) error) { coldStep = f }
