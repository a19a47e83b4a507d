package archive

// Identify gives b's run its identity, once, where the run is made and
// before any store sees it: its content hash (of its files, when the
// maker has not hashed what tells it apart already), its permanent ID
// derived from that hash, and its readable slug. What is set already is
// kept. A Store only persists the identity it is given.
func (b *Bundle) Identify() error {
	r := &b.Run
	if r.Content == "" {
		c, err := ContentHash(b.Files, "")
		if err != nil {
			return err
		}
		r.Content = c
	}
	if r.ID == "" {
		r.ID = NewID(r.Content)
	}
	if r.Slug == "" {
		r.Slug = Slug(r.Name, r.Ended.Sub(r.Started), r.Rate, r.Users, r.ID)
	}
	return nil
}
