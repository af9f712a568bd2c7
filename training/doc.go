// Package training groups schedlab's learning code: training/nn
// (reverse-mode autodiff on gonum, Adam, checkpoints), training/rl (PPO,
// MAPPO, actor-critic, Q-learning, GAE) and one package per learned scheduler
// family with its network, policy and trainer.
package training
