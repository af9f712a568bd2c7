package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
	}
	var origin bool
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (with --origin: where each key comes from)",
		Long: `show prints the configuration a command would use: the embedded defaults, overlaid by
the preset (--preset), the file (--config), SCHEDLAB_* environment variables
(SCHEDLAB_DATASETS_SYNTHETIC_JOBS=500 sets datasets.synthetic.jobs) and --set KEY=VALUE,
in that order (a command's own flags come last). An unknown key, a value of the wrong
type or out of range is an error that names the key and where its value came from
(exit status 2).

--origin prints one line per key instead: its value (as JSON) and the layer it came
from (embedded defaults, preset NAME, config file FILE with its line, environment
variable NAME, --set KEY=VALUE).`,
		Example: `  schedlab config show --preset nightly
  SCHEDLAB_SEED=7 schedlab config show --origin --set sim.speed=standalone`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := a.config(cmd, nil)
			if err != nil {
				return err
			}
			if origin {
				return showOrigins(cmd.OutOrStdout(), r)
			}
			b, err := yaml.Marshal(r.cfg)
			if err != nil {
				return err
			}
			h, err := r.cfg.Hash()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# config hash %s\n%s", h, b)
			return nil
		},
	}
	show.Flags().BoolVar(&origin, "origin", false, "print every key with its value and the layer it came from")
	defaults := &cobra.Command{
		Use:   "defaults",
		Short: "Print the embedded defaults: every key, its default value and what it means",
		Long: `defaults prints the lowest layer of the configuration, the embedded defaults, as one
YAML document: every key the configuration reads, with its default value and a comment
saying what it means. It is the configuration's reference page. The run-wide keys come
from the program's defaults file; each experiment's section (eval.<id>, dashes as
underscores) is declared with the experiment, and each learned family's section
(train.marl, train.das) with the families, and they are printed in their places.

The keys you copy from it into a --config file keep their layout; a file holding all of
it would set every key back to its default over the preset.`,
		Example: `  schedlab config defaults | less
  schedlab config defaults | grep -B6 'max_jobs:'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := embeddedDefaults()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	cmd.AddCommand(show, defaults)
	return cmd
}

// showOrigins writes every key of r, its decoded value and its origin.
func showOrigins(w io.Writer, r *resolved) error {
	h, err := r.cfg.Hash()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# config hash %s\n", h)
	values := leafValues(reflect.ValueOf(r.cfg).Elem(), "")
	for _, k := range sortedKeys(values) {
		b, err := json.Marshal(values[k].Interface())
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		from := layerDefaults
		if v := r.values[k]; v != nil {
			from = v.origin
		}
		fmt.Fprintf(w, "%-50s %-24s # %s\n", k, b, from)
	}
	return nil
}

// leafValues maps every configuration key under rv (a struct) to its
// value.
func leafValues(rv reflect.Value, prefix string) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	sec, _ := asSectioned(rv)
	for _, f := range configKeys(rv.Type()) {
		var fv reflect.Value
		if f.index < 0 { // a registered section
			p, _ := sec.SectionValue(f.name)
			fv = reflect.ValueOf(p).Elem()
		} else {
			fv = rv.Field(f.index)
		}
		if f.typ.Kind() == reflect.Struct {
			for k, v := range leafValues(fv, prefix+f.name+".") {
				out[k] = v
			}
			continue
		}
		out[prefix+f.name] = fv
	}
	return out
}
