package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// readinessJSON writes the readiness model (readiness.Report) as indented JSON, for
// dashboards across many repositories; docs/report.schema.json describes it.
type readinessJSON struct{}

// Format writes the model.
func (readinessJSON) Format(w io.Writer, r *Result) error {
	if r.Readiness == nil {
		return errNoReadiness
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r.Readiness); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
