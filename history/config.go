package history

// Config is the `history` key of a run's configuration: after a
// successful run, `schedlab run` adds the run to the history in Dir.
// It changes no output of the run and so no cache key or config hash.
type Config struct {
	// Dir is the dataset's root directory; "" adds the run nowhere.
	Dir string `mapstructure:"dir" yaml:"dir" json:"dir"`
}
