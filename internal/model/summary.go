package model

import (
	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Summary is the step's prediction as summary.json keeps it: the same
// figures, with the scenarios' fragile notes gathered.
func (sp StepPrediction) Summary() *summary.StepModel {
	m := &summary.StepModel{Version: summary.StepModelVersion, Notes: sp.Notes}
	if sp.Err != nil {
		m.Error = sp.Err.Error()
		return m
	}
	p := sp.Prediction
	for _, s := range p.Scenarios {
		if s.Fragile != "" {
			m.Fragile = append(m.Fragile, s.Fragile)
		}
		m.Scenarios = append(m.Scenarios, s.Scenario)
	}
	m.Pools, m.Breakers, m.Closed = p.Pools, p.Breakers, sp.ClosedForms
	return m
}
