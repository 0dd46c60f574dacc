package load_test

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm/render"
)

// The tests render charts in this process (helm.Command is nil), with the engine the
// renderer executable links.
func init() { helm.Renderer = render.Render }
