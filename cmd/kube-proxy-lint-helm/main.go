// Command kube-proxy-lint-helm renders Helm charts for kube-proxy-lint, which starts it as
// child processes (as many as render at once, each reused for the next chart; checker/helm):
// with a memory limit, killed at a rendering's timeout, and never given anything but the
// chart's files. It is an executable of its own so
// that kube-proxy-lint does not link Helm, whose packages cost a third of every run's
// start-up; install it beside kube-proxy-lint (every release archive and image has both).
package main

import (
	"os"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm/render"
)

func main() {
	os.Exit(helm.ServeChild(os.Args, os.Stdin, os.Stdout, os.Stderr, render.Render))
}
