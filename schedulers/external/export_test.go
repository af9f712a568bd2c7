package external

// BlockingPipe is blockingPipe, for the floor benchmark's pipes.
var BlockingPipe = blockingPipe
