package results

// ErrDropped is the Error text of a request the attack did not send because
// -max-workers requests were already in flight. Such a result has Code 0,
// Latency 0 and Sent equal to Due; reports count it as dropped (and as a
// failed request), never as a latency sample.
const ErrDropped = "dropped: max-workers requests already in flight"

// Dropped reports whether r stands for a request that was never sent
// because the in-flight bound was reached.
func (r *Result) Dropped() bool { return r.Code == 0 && r.Error == ErrDropped }
