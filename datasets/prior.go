package datasets

import (
	"cmp"
	"fmt"
	"slices"
)

// PriorKeys is what the partitions read so far of a partitioned dataset
// hold (IngestDataset): job ids for a jobs table, (timestamp, job,
// event type) for Google job_events. A reader given it in Request.Prior
// quarantines a row that repeats one of them, as it quarantines a repeat
// inside its own input, so that keys stay unique across the dataset: the
// row of the earlier partition, in partition-name order, is the one kept.
// A nil *PriorKeys holds nothing.
type PriorKeys struct {
	names []string         // partition names, by index
	jobs  map[string]int32 // job id → partition
	// events is sorted by key; the trace is in timestamp order, so a
	// partition's events are usually appended after the last, and the
	// slice is sorted again only when they are not.
	events []priorEvent
}

type priorEvent struct {
	key  googleEventKey
	part int32
}

func compareEventKeys(a, b googleEventKey) int {
	if c := cmp.Compare(a.ts, b.ts); c != 0 {
		return c
	}
	return cmp.Compare(a.jobEvent, b.jobEvent)
}

// NewPriorKeys returns an empty set.
func NewPriorKeys() *PriorKeys { return &PriorKeys{jobs: map[string]int32{}} }

// job reports the partition holding job id, if any.
func (p *PriorKeys) job(id string) (string, bool) {
	if p == nil {
		return "", false
	}
	i, ok := p.jobs[id]
	if !ok {
		return "", false
	}
	return p.names[i], true
}

// event reports the partition holding event k, if any.
func (p *PriorKeys) event(k googleEventKey) (string, bool) {
	if p == nil || len(p.events) == 0 {
		return "", false
	}
	i, ok := slices.BinarySearchFunc(p.events, k, func(e priorEvent, k googleEventKey) int { return compareEventKeys(e.key, k) })
	if !ok {
		return "", false
	}
	return p.names[p.events[i].part], true
}

// partitionKeys are the keys of one partition's table, read back from its
// Parquet file: jobs or events, as the table is.
type partitionKeys struct {
	jobs   []string
	events []googleEventKey
}

// rows is the number of rows the keys were read from.
func (k *partitionKeys) rows() int64 { return int64(len(k.jobs) + len(k.events)) }

// collides reports the first key of k already in p, as a description.
func (p *PriorKeys) collides(k *partitionKeys) (string, bool) {
	for _, id := range k.jobs {
		if part, ok := p.job(id); ok {
			return fmt.Sprintf("job id %q is in partition %s", truncate(id, 64), part), true
		}
	}
	for _, e := range k.events {
		if part, ok := p.event(e); ok {
			return fmt.Sprintf("event (job %d, type %d, %d µs) is in partition %s", e.jobEvent>>4, e.jobEvent&0xf, e.ts, part), true
		}
	}
	return "", false
}

// add records partition name's keys, which must not collide with p's.
func (p *PriorKeys) add(name string, k *partitionKeys) {
	part := int32(len(p.names))
	p.names = append(p.names, name)
	for _, id := range k.jobs {
		p.jobs[id] = part
	}
	sorted := len(p.events) == 0 || len(k.events) == 0 || compareEventKeys(p.events[len(p.events)-1].key, k.events[0]) < 0
	for i, e := range k.events {
		if i > 0 && compareEventKeys(k.events[i-1], e) >= 0 {
			sorted = false
		}
		p.events = append(p.events, priorEvent{key: e, part: part})
	}
	if !sorted {
		slices.SortFunc(p.events, func(a, b priorEvent) int { return compareEventKeys(a.key, b.key) })
	}
}

// jobKeyRow and eventKeyRow are the key columns of the jobs and
// job_events tables: parquet-go reads only these columns of a file.
type jobKeyRow struct {
	JobID string `parquet:"job_id"`
}

type eventKeyRow struct {
	TimestampUS int64 `parquet:"timestamp_us"`
	JobID       int64 `parquet:"job_id"`
	EventType   int32 `parquet:"event_type"`
}

// readPartitionKeys reads the key columns of a partition file of table
// ("jobs" or "job_events").
func readPartitionKeys(path, table string) (k *partitionKeys, err error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer recoverCorrupt(path, &err)
	k = &partitionKeys{}
	switch table {
	case "jobs":
		k.jobs, err = readKeys(path, pf, func(r jobKeyRow) string { return r.JobID })
	case "job_events":
		k.events, err = readKeys(path, pf, func(r eventKeyRow) googleEventKey {
			return googleEventKey{ts: r.TimestampUS, jobEvent: uint64(r.JobID)<<4 | uint64(r.EventType)}
		})
	default:
		return nil, fmt.Errorf("datasets: %s: no keys for table %q", path, table)
	}
	if err != nil {
		return nil, err
	}
	return k, nil
}
