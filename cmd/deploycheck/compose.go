package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// runCompose loads a compose file as `docker compose config` does (schema, interpolation
// of the environment, references between services), then checks what only `up` would
// find: build contexts and bind-mounted folders that do not exist, a host port published
// twice, and a dependency waiting for the health of a service that has no healthcheck.
func runCompose(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: deploycheck compose FILE")
	}
	p, err := loadCompose(ctx, args[0], envMap(os.Environ()))
	if err != nil {
		return err
	}
	if errs := checkProject(p); len(errs) > 0 {
		return fmt.Errorf("%s:\n  %w", args[0], errors.Join(errs...))
	}
	fmt.Fprintf(stdout, "%s valid: %d services (%s)\n", args[0], len(p.Services), strings.Join(p.ServiceNames(), ", "))
	return nil
}

func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// loadCompose loads and validates file with env as the environment it interpolates.
func loadCompose(ctx context.Context, file string, env map[string]string) (*types.Project, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	details := types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs}},
		Environment: env,
	}
	p, err := loader.LoadWithContext(ctx, details, func(o *loader.Options) {
		if name, ok := o.GetProjectName(); !ok || name == "" {
			o.SetProjectName(strings.TrimSuffix(filepath.Base(filepath.Dir(abs)), "/"), false)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("compose: %s: %w", file, err)
	}
	return p, nil
}

// checkProject reports what the loader accepts but `docker compose up` would fail on.
func checkProject(p *types.Project) []error {
	var errs []error
	published := map[string]string{}
	for _, name := range p.ServiceNames() {
		s := p.Services[name]
		if s.Build != nil {
			if st, err := os.Stat(s.Build.Context); err != nil || !st.IsDir() {
				errs = append(errs, fmt.Errorf("service %s: build context %s is not a folder", name, s.Build.Context))
			} else if df := filepath.Join(s.Build.Context, s.Build.Dockerfile); s.Build.Dockerfile != "" && !fileExists(df) {
				errs = append(errs, fmt.Errorf("service %s: no Dockerfile %s", name, df))
			}
		}
		for _, v := range s.Volumes {
			if v.Type == types.VolumeTypeBind && !fileExists(v.Source) {
				errs = append(errs, fmt.Errorf("service %s: bind-mounted %s does not exist", name, v.Source))
			}
		}
		for _, port := range s.Ports {
			if port.Published == "" {
				continue
			}
			key := port.HostIP + ":" + port.Published + "/" + port.Protocol
			if other, ok := published[key]; ok {
				errs = append(errs, fmt.Errorf("service %s: host port %s already published by %s", name, port.Published, other))
			}
			published[key] = name
			if s.Deploy != nil && s.Deploy.Replicas != nil && *s.Deploy.Replicas > 1 && !strings.Contains(port.Published, "-") {
				errs = append(errs, fmt.Errorf("service %s: %d replicas cannot all publish host port %s", name, *s.Deploy.Replicas, port.Published))
			}
		}
		deps := make([]string, 0, len(s.DependsOn))
		for dep := range s.DependsOn {
			deps = append(deps, dep)
		}
		slices.Sort(deps)
		for _, dep := range deps {
			d := s.DependsOn[dep]
			target, ok := p.Services[dep]
			if !ok {
				continue // the loader reports it
			}
			if d.Condition == types.ServiceConditionHealthy && (target.HealthCheck == nil || target.HealthCheck.Disable) {
				errs = append(errs, fmt.Errorf("service %s waits for %s to be healthy, which has no healthcheck", name, dep))
			}
		}
	}
	return errs
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
