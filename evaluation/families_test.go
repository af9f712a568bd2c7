package evaluation

// Learned schedulers are registered by their families (package training):
// link them in so that specs naming das, marl-device, ... validate.
import _ "github.com/schedlab/schedlab/training/families"
