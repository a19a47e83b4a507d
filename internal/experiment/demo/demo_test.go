package demo

import "testing"

func TestEmbeddedPlanIsValid(t *testing.T) {
	p, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 6 || p.Steps[0].Variants["proxy"] != "overflow" || p.Steps[5].Variants["proxy"] != "fixed" {
		t.Fatalf("steps: %d, first %v", len(p.Steps), p.Steps[0].Variants)
	}
	var total float64
	for _, st := range p.Steps {
		total += st.Scenarios[0].Duration.Seconds() + p.Cooldown.Seconds() + 2 // start and drain
	}
	if total > 100 {
		t.Errorf("the demo would take about %.0f s; it must stay under two minutes", total)
	}
}
