package main

import (
	"fmt"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version, Go version and VCS revision",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := pipeline.BuildVersions()
			fmt.Fprintf(cmd.OutOrStdout(), "schedlab %s %s revision %s\n", v.Module, v.Go, v.Revision())
			return nil
		},
	}
}
