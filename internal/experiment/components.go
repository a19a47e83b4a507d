package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/component"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// running is a started component and the variant it runs.
type running struct {
	c       *plan.Component
	variant string
	proc    *component.Process
	log     *os.File
	argv    []string
	config  string // rendered config or recipe file used
}

// fleet holds the running components.
type fleet struct {
	exe     string
	out     string
	plan    *plan.Plan
	running []*running // in plan order
	// kept are the recipes copied into the run folder, by the file the
	// plan names: each is copied once, when first used.
	kept map[string]string
}

func (f *fleet) urls() map[string]string {
	m := map[string]string{}
	for _, r := range f.running {
		if r.proc != nil {
			m[r.c.Name] = r.proc.URL
		}
	}
	return m
}

// prepare makes the running set match the step: components whose variant
// changes, or that restart every step, are stopped and started again, and
// so is every component listed after one that restarts (it may point at
// it). It returns the starts it made and the first start error.
func (f *fleet) prepare(ctx context.Context, st *plan.Step) ([]summary.ComponentRun, error) {
	restartFrom := len(f.plan.Components)
	for i, c := range f.plan.Components {
		var cur *running
		if i < len(f.running) {
			cur = f.running[i]
		}
		if cur == nil || cur.proc == nil || c.RestartEach || cur.variant != st.Variants[c.Name] || cur.proc.Died() {
			restartFrom = i
			break
		}
	}
	f.stopFrom(restartFrom)
	var runs []summary.ComponentRun
	for i := restartFrom; i < len(f.plan.Components); i++ {
		c := f.plan.Components[i]
		r, run, err := f.start(ctx, c, st)
		runs = append(runs, run)
		if err != nil {
			return runs, err
		}
		f.running = append(f.running, r)
	}
	return runs, nil
}

// stopFrom stops components i.. in reverse order.
func (f *fleet) stopFrom(i int) {
	for j := len(f.running) - 1; j >= i && j >= 0; j-- {
		r := f.running[j]
		if r.proc != nil {
			r.proc.Stop(3 * time.Second)
		}
		if r.log != nil {
			r.log.Close()
		}
	}
	if i < len(f.running) {
		f.running = f.running[:i]
	}
}

func (f *fleet) stopAll() { f.stopFrom(0) }

func (f *fleet) start(ctx context.Context, c *plan.Component, st *plan.Step) (*running, summary.ComponentRun, error) {
	vname := st.Variants[c.Name]
	v := c.Variant(vname)
	run := summary.ComponentRun{Name: c.Name, Kind: c.Kind, Variant: vname, Label: c.Label}
	if v != nil && v.Label != "" {
		run.Label = v.Label
	}
	urls := f.urls()
	slug := c.Name
	if vname != "" {
		slug += "-" + vname
	}
	slug = fmt.Sprintf("%s-step%02d", slug, st.Index+1)
	spec := component.Spec{Name: c.Name, ListenPattern: c.ListenPattern, Health: c.Health,
		StartTimeout: c.StartTimeout, Env: c.Env, Dir: f.plan.Dir}
	args := append([]string(nil), c.Args...)
	if v != nil {
		args = append(args, v.Args...)
		spec.Env = append(append([]string(nil), c.Env...), v.Env...)
	}
	var template []string // a command's argv before its address is filled in
	needAddr := false
	switch c.Kind {
	case plan.KindOrigin:
		recipe, _, _ := c.Files(st)
		kept, err := f.keep(recipe, c.Name, vname)
		if err != nil {
			run.StartError = err.Error()
			return nil, run, fmt.Errorf("component %s: %v", c.Name, err)
		}
		run.File = kept
		spec.Argv = []string{f.exe, "origin", "-recipe", recipe, "-listen", "127.0.0.1:0"}
		if _, given := c.OriginSeed(st); !given {
			// Repeatable draws, the same as the model's.
			spec.Argv = append(spec.Argv, "-seed", strconv.Itoa(plan.DefaultOriginSeed))
		}
		spec.Argv = append(spec.Argv, args...)
	case plan.KindProxy:
		_, cfg, set := c.Files(st)
		text, err := plan.RenderConfig(cfg, set, urls, f.plan.Target)
		if err != nil {
			run.StartError = err.Error()
			return nil, run, fmt.Errorf("component %s: %v", c.Name, err)
		}
		rendered := filepath.Join(f.out, "components", slug+filepath.Ext(cfg))
		if err := os.WriteFile(rendered, text, 0o644); err != nil {
			return nil, run, err
		}
		run.File = rendered
		spec.Argv = append([]string{f.exe, "proxy", "-config", rendered, "-listen", "127.0.0.1:0"}, args...)
	case plan.KindCommand:
		argv := c.Command
		if v != nil && len(v.Command) > 0 {
			argv = v.Command
		}
		argv = append(append([]string(nil), argv...), args...)
		for i, a := range argv {
			argv[i] = strings.ReplaceAll(a, "${loadlab}", f.exe)
		}
		for _, a := range argv {
			needAddr = needAddr || strings.Contains(a, "${addr}") || strings.Contains(a, "${port}")
		}
		template = argv
		var err error
		if spec.Argv, spec.Addr, err = f.commandArgv(c, template, needAddr, urls); err != nil {
			run.StartError = err.Error()
			return nil, run, err
		}
	}
	logName := filepath.Join("components", slug+".log")
	lf, err := os.Create(filepath.Join(f.out, logName))
	if err != nil {
		return nil, run, err
	}
	spec.Log = lf
	run.Log = logName
	run.CommandLine = component.CommandLine(spec.Argv)
	if c.Kind != plan.KindCommand {
		run.CommandLine = component.CommandLine(append([]string{"loadlab"}, spec.Argv[1:]...))
	}
	p, err := component.Start(ctx, spec)
	// The free port given as ${addr} was free when it was picked; another
	// process may bind it before the command does. Then the command is
	// started again on a new one (a bounded number of times).
	for try := 1; err != nil && needAddr && try < addrTries && strings.Contains(err.Error(), "address already in use"); try++ {
		lf.Close()
		if lf, err = os.Create(filepath.Join(f.out, logName)); err != nil {
			break
		}
		spec.Log = lf
		if spec.Argv, spec.Addr, err = f.commandArgv(c, template, needAddr, urls); err != nil {
			break
		}
		run.CommandLine = component.CommandLine(spec.Argv)
		p, err = component.Start(ctx, spec)
	}
	if err != nil {
		if lf != nil {
			lf.Close()
		}
		run.StartError = err.Error()
		return nil, run, err
	}
	run.URL, run.PID = p.URL, p.PID
	return &running{c: c, variant: vname, proc: p, log: lf, argv: spec.Argv, config: run.File}, run, nil
}

// addrTries is how many addresses a command given ${addr} is started on
// before its failure to bind one is the step's.
const addrTries = 3

// commandArgv is a command component's argv from its template: ${addr}
// and ${port} a free loopback address (when needAddr), then the plan's
// variables expanded; it returns the argv and the address.
func (f *fleet) commandArgv(c *plan.Component, template []string, needAddr bool, urls map[string]string) ([]string, string, error) {
	argv := append([]string(nil), template...)
	addr := ""
	if needAddr {
		var err error
		if addr, err = component.FreeAddr(); err != nil {
			return nil, "", err
		}
		_, port, _ := strings.Cut(addr, ":")
		for i, a := range argv {
			argv[i] = strings.NewReplacer("${addr}", addr, "${port}", port).Replace(a)
		}
	}
	for i, a := range argv {
		e, err := plan.Expand(a, urls, f.plan.Target)
		if err != nil {
			return nil, "", fmt.Errorf("component %s: %v", c.Name, err)
		}
		argv[i] = e
	}
	return argv, addr, nil
}

// keep copies a recipe into the run folder's components/ (once per file
// the plan names: <component>[-<variant>]-recipe<ext>) and returns the
// copy's path, so that the folder holds what its report shows: a rewrite
// needs nothing outside it, and a recipe edited after the run does not
// change the run's report.
func (f *fleet) keep(file, name, variant string) (string, error) {
	if p, ok := f.kept[file]; ok {
		return p, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	base := name
	if variant != "" {
		base += "-" + variant
	}
	p := filepath.Join(f.out, "components", base+"-recipe"+filepath.Ext(file))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return "", err
	}
	if f.kept == nil {
		f.kept = map[string]string{}
	}
	f.kept[file] = p
	return p, nil
}
