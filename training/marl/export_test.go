package marl

// OnTrainEpisode sets (nil: clears) the hook told each finished training
// episode's decisions, decision points and learned steps; benchmarks
// report them. Not for tests running in parallel.
func OnTrainEpisode(f func(decisions, points, learned int)) { testHookEpisode = f }
