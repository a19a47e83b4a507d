package flow

// Requests lists the flow's request steps in the order the flow file
// writes them, groups' and loops' steps in their place: the order the
// reports list steps in.
func (f *Flow) Requests() []*Step {
	var out []*Step
	var walk func([]*Step)
	walk = func(steps []*Step) {
		for _, s := range steps {
			if s.Kind == KindRequest {
				out = append(out, s)
			}
			walk(s.Steps)
		}
	}
	walk(f.Steps)
	return out
}
