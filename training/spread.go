package training

import "context"

// A Spread runs the pieces of one step of a training side by side,
// each as a task of a run's executor, on whichever workers it has: for
// MARL, the rollouts of an iteration from one decision point to the next,
// each returning its gradient for the one update the driver applies.
// Piece i runs as the family's RunPiece(ctx, key, spec, read, pieces[i].Spec)
// in some process, with the spec and key of this training; the results
// come back in piece order, whatever ran them. blob is the step's new
// shared bytes (the parameters the pieces act with), which read returns
// by name to a piece that lists it in Reads; a blob that no piece of a
// call reads may be dropped after it.
type Spread func(ctx context.Context, blob Blob, pieces []Piece) ([][]byte, error)

// A Blob is bytes a training shares with the pieces of its steps.
type Blob struct {
	// Name is unique within the training.
	Name string
	Data []byte
}

// A Piece is one task of a spread step: its spec, opaque to the Spread,
// and the names of the blobs it may read.
type Piece struct {
	Spec  []byte
	Reads []string
	// Affinity, if not empty, names the state a process keeps between
	// the pieces of equal Affinity (a MARL rollout): they are better run
	// by the same worker (pipeline.Task.Affinity).
	Affinity string
}

// A Spreader is a family whose trainings can spread their steps.
type Spreader interface {
	Family
	// Spreads says whether a training of config c spreads its steps
	// when its TrainSpec has a Spread.
	Spreads(c Config) bool
	// RunPiece runs one piece of a spread step. key names the training
	// (a process may keep a training's state between its pieces under
	// it); spec builds the training's TrainSpec, as the driver's, when
	// the piece needs it; read returns a blob the piece reads.
	RunPiece(ctx context.Context, key string, spec func() (TrainSpec, error), read func(name string) ([]byte, error), piece []byte) ([]byte, error)
}
