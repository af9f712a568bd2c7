package marl

// OnTrainEpisode sets (nil: clears) the hook told each finished training
// episode's decisions, decision points and learned steps; benchmarks
// report them. Not for tests running in parallel.
func OnTrainEpisode(f func(decisions, points, learned int)) { testHookEpisode = f }

// OnRebuild sets (nil: clears) the hook told of every rollout a spread
// step rebuilt, from the goroutine of the step; ForgetRollouts drops every rollout this process keeps
// between steps, as a worker that did not run their last steps holds
// none.
func OnRebuild(f func(ep, step int)) { testHookRebuild = f }

func ForgetRollouts() {
	kept.Lock()
	defer kept.Unlock()
	kept.list = nil
}
