package claims

// The claims' texts name learned rows by their display names, which the
// families register: the binary links them through stages, the tests here.
import _ "github.com/schedlab/schedlab/training/families"
