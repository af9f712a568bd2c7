//go:build race

package figure

import "image/png"

// pngCompression: a binary built with the race detector (only tests are)
// writes its PNGs uncompressed. Compressing them is 26 times slower
// under the detector than without it (the quick run's eleven plots:
// 7.9 s against 0.30 s on one core): a fifth of the stages package's
// tests under the detector (92 s to 72 s), and the encoder starts no
// goroutine for the detector to watch. The PNGs stay valid and
// deterministic, about 33 times larger; the tests that run without the
// detector (make test-norace, make run) write them as users get them.
const pngCompression = png.NoCompression
