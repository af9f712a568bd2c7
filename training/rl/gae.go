package rl

// GAE computes generalised advantage estimates (Schulman et al. 2016):
//
//	δ_t = r_t + γ·V(s_{t+1})·(1−done_t) − V(s_t)
//	A_t = δ_t + γλ·(1−done_t)·A_{t+1}
//
// and returns R_t = A_t + V(s_t), the targets of the value regression. The
// steps are one or more consecutive episodes; done[t] cuts bootstrapping
// at an episode's end. lastValue is V of the state after the final step.
// λ = 0 gives the TD(0) advantage of one-step actor-critic, λ = 1 the
// Monte-Carlo return minus the baseline. adv and ret must have len(rewards).
func GAE(adv, ret, rewards, values []float64, done []bool, lastValue, gamma, lambda float64) {
	n := len(rewards)
	if len(values) != n || len(done) != n || len(adv) != n || len(ret) != n {
		panic("rl: GAE: length mismatch")
	}
	next, acc := lastValue, 0.0
	for t := n - 1; t >= 0; t-- {
		notDone := 1.0
		if done[t] {
			notDone = 0
		}
		delta := rewards[t] + gamma*next*notDone - values[t]
		acc = delta + gamma*lambda*notDone*acc
		adv[t] = acc
		ret[t] = acc + values[t]
		next = values[t]
	}
}

// DiscountedReturns fills ret with G_t = r_t + γ·G_{t+1}, restarting at
// every done step (REINFORCE's Monte-Carlo return).
func DiscountedReturns(ret, rewards []float64, done []bool, gamma float64) {
	if len(ret) != len(rewards) || len(done) != len(rewards) {
		panic("rl: DiscountedReturns: length mismatch")
	}
	g := 0.0
	for t := len(rewards) - 1; t >= 0; t-- {
		if done[t] {
			g = 0
		}
		g = rewards[t] + gamma*g
		ret[t] = g
	}
}
