// Package readiness builds the migration readiness report (RULES.md §3): per cluster scope,
// each kube-proxy with its sources, its effective mode today and at each minor version up to
// 1.43, whether something else replaces it, the blockers and advisories grouped by what breaks
// and the version each arrives in, node kernel readiness and the next step; repository totals
// on top. The model is what the report-json output writes (SchemaVersion, documented by
// docs/report.schema.json); report-markdown and report-html render it.
//
// The package reads the workspace and findings only: the caller runs the rules at each future
// version (LaterVersions) and passes the findings in.
package readiness

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// SchemaVersion is the version of the JSON model. It changes only when a field changes meaning
// or disappears; new fields keep it.
const SchemaVersion = 1

// SchemaURL is where the JSON Schema of the model is published.
const SchemaURL = "https://github.com/kube-proxy-lint/kube-proxy-lint/blob/main/docs/report.schema.json"

// Report is the whole migration readiness report.
type Report struct {
	Schema        string `json:"$schema"`
	SchemaVersion int    `json:"schemaVersion"`
	Tool          string `json:"tool"`
	ToolVersion   string `json:"toolVersion,omitempty"`
	// Horizon is the last version of the timelines (1.43, when the ipvs code is deleted).
	Horizon string `json:"horizon"`
	// Versions are the columns of the timeline matrix: from the oldest scope's version to
	// Horizon.
	Versions []string `json:"versions"`
	Totals   Totals   `json:"totals"`
	Scopes   []Scope  `json:"scopes"`
}

// Totals sums the scopes up.
type Totals struct {
	// Scopes counts the clusters (the shared files' section is not one).
	Scopes int `json:"scopes"`
	// SharedBlockers and SharedAdvisories count the items of the shared files' section,
	// which Blockers and Advisories include.
	SharedBlockers   int `json:"sharedBlockers,omitempty"`
	SharedAdvisories int `json:"sharedAdvisories,omitempty"`
	Instances        int `json:"instances"`
	// ByStatus counts scopes per Status, in Statuses order, only the statuses present.
	ByStatus   []StatusCount `json:"byStatus"`
	Blockers   int           `json:"blockers"`
	Advisories int           `json:"advisories"`
	// Nodes counts the nodes of every scope's inventory (a node given for several scopes
	// counts in each).
	Nodes NodeCounts `json:"nodes"`
	// Exits counts, per version, the scopes in which a kube-proxy exits or its mode is
	// removed at that version.
	Exits []VersionCount `json:"exits"`
	// BlockersBy counts, per version, the blockers that arrive in it ("" is today).
	BlockersBy []VersionCount `json:"blockersByVersion"`
}

// StatusCount is the number of scopes with one status.
type StatusCount struct {
	Status Status `json:"status"`
	Count  int    `json:"count"`
}

// VersionCount is a number per version.
type VersionCount struct {
	Version string `json:"version"`
	Count   int    `json:"count"`
}

// Status is a scope's readiness.
type Status string

// Statuses, worst first: the order of Totals.ByStatus and of the overview.
const (
	// StatusBlocked: something is broken at the scope's own version.
	StatusBlocked Status = "blocked"
	// StatusBreaks: a blocker arrives at a later version up to the horizon (Scope.BreaksAt).
	StatusBreaks Status = "breaks"
	// StatusUnknown: the modes come from files or templates not in the repository.
	StatusUnknown Status = "unknown"
	// StatusReady: no blocker up to the horizon.
	StatusReady Status = "ready"
	// StatusReplaced: something else serves Services; kube-proxy does not run.
	StatusReplaced Status = "replaced"
	// StatusNoKubeProxy: the scope holds findings but no kube-proxy.
	StatusNoKubeProxy Status = "no-kube-proxy"
)

// Statuses lists every status, worst first.
var Statuses = []Status{StatusBlocked, StatusBreaks, StatusUnknown, StatusReady, StatusReplaced, StatusNoKubeProxy}

// Scope is one cluster scope: a directory holding a cluster definition ("." is the
// repository root).
type Scope struct {
	// Dir names the row: the cluster's name, or "shared files" for the files of no cluster.
	Dir string `json:"dir"`
	// Cluster is the cluster's name ("" for the shared files), Root its root directory and How
	// how it was found (checker.Cluster).
	Cluster string `json:"cluster,omitempty"`
	Root    string `json:"root,omitempty"`
	How     string `json:"how,omitempty"`
	// Shared is true for the section of files that belong to no cluster.
	Shared bool   `json:"shared,omitempty"`
	Target Target `json:"target"`
	Status Status `json:"status"`
	// BreaksAt is the first version with a blocker when Status is breaks.
	BreaksAt string `json:"breaksAt,omitempty"`
	// Headline says the status in words: "kube-proxy exits at startup from 1.40".
	Headline string `json:"headline"`
	// ModeToday lists the effective modes of the scope's kube-proxies at Target.
	ModeToday []string `json:"modeToday"`
	// Replaced lists what replaces kube-proxy in the scope.
	Replaced  []Replacement `json:"replaced,omitempty"`
	Instances []Instance    `json:"instances"`
	// Timeline is the scope's worst state per version, from Target to the horizon.
	Timeline []Cell  `json:"timeline"`
	Groups   []Group `json:"groups"`
	// Blockers and Advisories count the items of Groups.
	Blockers   int `json:"blockers"`
	Advisories int `json:"advisories"`
	// Nodes is the node kernel readiness; nil when no node inventory covers the scope.
	Nodes *Nodes `json:"nodes"`
	// NextStep is what to do next, in one sentence; Conditions what nftables still waits for.
	NextStep   string   `json:"nextStep"`
	Conditions []string `json:"conditions,omitempty"`
}

// Target is a scope's version and where it comes from.
type Target struct {
	Version string    `json:"version"`
	Source  string    `json:"source"`
	At      *Location `json:"at,omitempty"`
}

// Location is a place in a file: 1-based line and column (Unicode code points), and the end.
type Location struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
}

// Replacement is a sign that something else does kube-proxy's job.
type Replacement struct {
	By      string   `json:"by"`
	Message string   `json:"message"`
	At      Location `json:"at"`
	// Conflicting is true when kube-proxy is still deployed or configured in the scope.
	Conflicting bool `json:"conflicting"`
}

// Instance is one kube-proxy.
type Instance struct {
	Label string `json:"label"`
	// Kind is workload, config, command or installer; Installer names the installer.
	Kind      string   `json:"kind"`
	Installer string   `json:"installer,omitempty"`
	Target    Target   `json:"target"`
	Sources   []Source `json:"sources"`
	// Mode is the effective mode at Target ("" when unknown), Origin where it comes from
	// (config, flag, default, installer, installer default, unknown).
	Mode     string    `json:"mode"`
	Origin   string    `json:"origin"`
	ModeAt   *Location `json:"modeAt,omitempty"`
	Disabled bool      `json:"disabled,omitempty"`
	Timeline []Cell    `json:"timeline"`
}

// Source is one place that configures an instance.
type Source struct {
	// Role is workload, command, installer, mode, config-flag, configmap, config or flags.
	Role string   `json:"role"`
	Text string   `json:"text"`
	At   Location `json:"at"`
}

// Cell is one version of a timeline.
type Cell struct {
	Version string        `json:"version"`
	Mode    string        `json:"mode"`
	State   checker.State `json:"state"`
	Why     string        `json:"why,omitempty"`
	// Blockers counts the blockers that arrive at this version (scope timelines only).
	Blockers int `json:"blockers,omitempty"`
}

// Group is the items of one category.
type Group struct {
	Category   string `json:"category"`
	Title      string `json:"title"`
	Blockers   []Item `json:"blockers"`
	Advisories []Item `json:"advisories"`
}

// Item is one finding in the report.
type Item struct {
	Rule     string `json:"rule"`
	RuleName string `json:"ruleName"`
	// Severity is the severity at Arrives (the worst up to the horizon).
	Severity string `json:"severity"`
	// Today is the severity at the scope's own version, "" when the problem is not there yet.
	Today string `json:"today"`
	// Arrives is the version the item reaches Severity in; "" for today.
	Arrives string   `json:"arrives"`
	Message string   `json:"message"`
	At      Location `json:"at"`
	// URL is the rule's documentation.
	URL string `json:"url,omitempty"`
}

// Nodes is the node kernel readiness of a scope.
type Nodes struct {
	NodeCounts
	Pools []Pool `json:"pools"`
}

// NodeCounts counts nodes whose kernel is ready for nftables (5.13 or newer) and not.
type NodeCounts struct {
	Total    int `json:"total"`
	Ready    int `json:"ready"`
	NotReady int `json:"notReady"`
}

// Pool is the readiness of one node pool.
type Pool struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
	NodeCounts
	// OldKernels lists the distinct kernels older than 5.13, oldest first.
	OldKernels []string  `json:"oldKernels,omitempty"`
	At         *Location `json:"at,omitempty"`
}
