// Package rl holds the reinforcement-learning algorithms shared by the
// learned scheduler families: rollout buffers, GAE, PPO and MAPPO, advantage
// actor-critic, Q-learning and REINFORCE.
package rl
