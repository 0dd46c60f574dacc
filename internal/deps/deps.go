//go:build tools

// Package deps pins modules used by later packages.
package deps

import (
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/spf13/pflag"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/api/batch/v1"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/kube-proxy/config/v1alpha1"
	_ "sigs.k8s.io/yaml"
)
