package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/schedlab/schedlab/pipeline"
)

// TaskIngestShard is the task kind of one input file of a partitioned
// ingest (IngestDataset with Request.Executor): the file read into its
// partition's table and quarantine in the refresh's staging directory,
// which lies on the filesystem the driver and every worker share.
const TaskIngestShard = "ingest.shard"

func init() { pipeline.RegisterTask(TaskIngestShard, runShard) }

// shardSpec is a shard task's spec; its input is the Task's only input.
type shardSpec struct {
	Source    string   `json:"source"`
	Name      string   `json:"name"` // the partition
	Staging   string   `json:"staging"`
	Meta      FileMeta `json:"meta"`
	IntervalS float64  `json:"interval_s,omitempty"`
	Bytes     int64    `json:"bytes"`
}

// runShard reads the file as IngestDataset reads a partition, without
// the keys of the partitions before it (another task may be reading
// them): the driver takes the result only where none of its keys repeats
// an earlier partition's, which is when the key check could not have
// changed a byte, and reads the partition again itself otherwise.
func runShard(ctx context.Context, t pipeline.Task, _ pipeline.TaskEnv) ([]byte, error) {
	var s shardSpec
	if err := json.Unmarshal(t.Spec, &s); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	if len(t.Inputs) != 1 {
		return nil, fmt.Errorf("spec: %d inputs, want the one file", len(t.Inputs))
	}
	r, err := Lookup(s.Source)
	if err != nil {
		return nil, err
	}
	pr, ok := r.(PerFileReader)
	if !ok {
		return nil, fmt.Errorf("source %s has no per-file partitions", s.Source)
	}
	in := InputRecord{Path: t.Inputs[0].Path, Bytes: s.Bytes, SHA256: t.Inputs[0].SHA256}
	p, _, err := readPartition(ctx, pr, Request{Meta: s.Meta, IntervalS: s.IntervalS}, s.Staging, s.Name, in, nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// readShards reads the named inputs as shard tasks on ex, into staging,
// and returns their partitions by name.
func readShards(ctx context.Context, ex pipeline.Executor, r PerFileReader, req Request, staging string, names []string, ins map[string]InputRecord) (map[string]Partition, error) {
	if len(names) == 0 {
		return nil, nil
	}
	b := pipeline.Batch{Stage: "ingest-" + r.Source(), Dir: staging}
	key := sha256.New()
	fmt.Fprintf(key, "%s %s %v\n", r.Source(), req.Meta.ConfigHash, req.IntervalS)
	for _, n := range names {
		in := ins[n]
		spec, err := json.Marshal(shardSpec{Source: r.Source(), Name: n, Staging: staging, Meta: req.Meta, IntervalS: req.IntervalS, Bytes: in.Bytes})
		if err != nil {
			return nil, err
		}
		b.Tasks = append(b.Tasks, pipeline.Task{Kind: TaskIngestShard, Name: r.Source() + "/" + n, Spec: spec,
			Inputs: []pipeline.InputRef{{Path: in.Path, SHA256: in.SHA256}}})
		fmt.Fprintf(key, "%s %s %s\n", n, in.Path, in.SHA256)
	}
	// A distributed executor keys its durable state by Key: the same
	// files into the same staging directory are the same work.
	fmt.Fprintf(key, "%s\n", staging)
	b.Key = hex.EncodeToString(key.Sum(nil))
	res, err := ex.Run(ctx, b)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Partition, len(names))
	for i, n := range names {
		var p Partition
		if err := json.Unmarshal(res[i], &p); err != nil {
			return nil, fmt.Errorf("shard %s: result: %w", n, err)
		}
		if p.Name != n || p.Input != ins[n] {
			return nil, fmt.Errorf("shard %s: result is of partition %q (%s)", n, p.Name, p.Input.Path)
		}
		out[n] = p
	}
	return out, nil
}
