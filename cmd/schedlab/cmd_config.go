package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration as YAML",
		Long: `show prints the configuration a run would use: the embedded defaults, overlaid by the
preset (--preset), the file (--config), SCHEDLAB_* environment variables
(SCHEDLAB_DATASETS_SYNTHETIC_JOBS=500 sets datasets.synthetic.jobs) and flags, in that
order. An unknown key, a value of the wrong type or out of range is an error that names
the key (exit status 2).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(configSource{preset: a.preset, file: a.configFile, env: os.Environ()})
			if err != nil {
				return err
			}
			b, err := yaml.Marshal(cfg)
			if err != nil {
				return err
			}
			h, err := cfg.Hash()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# config hash %s\n%s", h, b)
			return nil
		},
	})
	return cmd
}
