package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	// test.sum: the sum of the input file's bytes plus the seed, after
	// the spec's number of steps; a pure function of spec, inputs and seed.
	RegisterTask("test.sum", func(ctx context.Context, t Task, env TaskEnv) ([]byte, error) {
		b, err := os.ReadFile(t.Inputs[0].Path)
		if err != nil {
			return nil, err
		}
		s := t.Seed
		for _, c := range b {
			s += uint64(c)
		}
		if string(t.Spec) == `"fail"` {
			return nil, errors.New("asked to fail")
		}
		env.Heartbeat([]byte("alive"))
		return []byte(fmt.Sprint(s)), nil
	})
}

func sumTasks(t *testing.T, n int) []Task {
	t.Helper()
	dir := t.TempDir()
	var tasks []Task
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("in-%d", i))
		if err := os.WriteFile(p, []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		sum, _, err := HashFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, Task{Kind: "test.sum", Name: fmt.Sprint("t", i), Spec: []byte(`{}`), Inputs: []InputRef{{p, sum}}, Seed: 7})
	}
	return tasks
}

// Results come back in task order whatever the number of workers.
func TestLocalOrder(t *testing.T) {
	tasks := sumTasks(t, 20)
	for _, w := range []int{1, 4, 32} {
		out, err := Local{Workers: w}.Run(context.Background(), Batch{Stage: "s", Tasks: tasks})
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range out {
			if want := fmt.Sprint(7 + 'x'*i); string(o) != want {
				t.Fatalf("%d workers: task %d = %s, want %s", w, i, o, want)
			}
		}
	}
}

// Bad input: each a clear error naming the task, never a run.
func TestRunTaskBadInput(t *testing.T) {
	ctx := context.Background()
	changed := sumTasks(t, 3)[2]
	if err := os.WriteFile(changed.Inputs[0].Path, []byte("yy"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := sumTasks(t, 2)[1]
	missing.Inputs[0].Path += ".gone"
	unknown := sumTasks(t, 1)[0]
	unknown.Kind = "test.nope"
	failing := sumTasks(t, 1)[0]
	failing.Spec = []byte(`"fail"`)
	for _, c := range []struct {
		task Task
		is   error
		say  string
	}{
		{changed, ErrInputChanged, "task t2 (test.sum): input"},
		{missing, ErrInputMissing, "task t1 (test.sum): input"},
		{unknown, ErrUnknownTask, "task t0 (test.nope)"},
		{failing, nil, "task t0 (test.sum): asked to fail"},
	} {
		_, err := RunTask(ctx, c.task, TaskEnv{})
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("got %v, want %v saying %q", err, c.is, c.say)
		}
		_, err = Local{Workers: 2}.Run(ctx, Batch{Stage: "s", Tasks: append(sumTasks(t, 2), c.task)})
		if err == nil || !strings.Contains(err.Error(), c.say) {
			t.Errorf("Local: got %v, want an error saying %q", err, c.say)
		}
	}
}

func TestRegisterTaskTwice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering test.sum again did not panic")
		}
	}()
	RegisterTask("test.sum", nil)
}
