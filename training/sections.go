package training

import "github.com/schedlab/schedlab/internal/section"

// Sections are the run configuration's train.<section> values, the
// settings the families read: each section is declared, with its type,
// its keys' documented defaults and its range check, by the family
// package that owns it (DeclareSection), and read through its typed
// handle (section.Of[T].Get). The run configuration (plan.TrainConfig)
// holds them beside its own keys.
type Sections = section.Set

// SectionRegistry is the declared train.* sections, in declaration
// order: the decoder, `schedlab config defaults` and plan.TrainConfig's
// checks and encodings reach them through it.
var SectionRegistry = section.NewRegistry("train")

// DeclareSection declares the section train.<key> of type T, with its
// keys' defaults and a comment on each saying what it means (YAML, as
// `schedlab config defaults` prints them), and its range check (nil:
// none), each bad key reported once, named in full; from names the
// declaring package in errors. Call it once, in a package variable of
// the family that owns the section; families that share it read it
// through the handle returned.
func DeclareSection[T any](key, from, defaults string, check func(T, *section.Errs)) section.Of[T] {
	return section.Declare(SectionRegistry, section.New[T](key), from, defaults, check)
}

// SectionDefaults are the declared sections' defaults (YAML) by key.
func SectionDefaults() map[string]string {
	out := map[string]string{}
	for _, d := range SectionRegistry.Decls() {
		out[d.Type.Key()] = d.Defaults
	}
	return out
}

// MaxEpisodes bounds a section's training episodes: a thousand times the
// papers' budgets (tens to hundreds of episodes).
const MaxEpisodes = 100_000
