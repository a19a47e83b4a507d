package origin

import "testing"

// TestLeanServer runs the behaviour tests against the default server (the
// lean HTTP/1.1 server, handing over to net/http's what it does not serve)
// instead of net/http's alone.
func TestLeanServer(t *testing.T) {
	leanTests = true
	t.Cleanup(func() { leanTests = false })
	for _, tc := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"AdminShapes", TestAdminShapes},
		{"AdminToken", TestAdminToken},
		{"BadRecipes", TestBadRecipes},
		{"Metrics", TestMetrics},
		{"CurrentRecipeRoundTrip", TestCurrentRecipeRoundTrip},
		{"StagesSwitch", TestStagesSwitch},
		{"StageNotYetStarted", TestStageNotYetStarted},
		{"RouteMatching", TestRouteMatching},
		{"StatusMixSeeded", TestStatusMixSeeded},
		{"LatencyDistributionServed", TestLatencyDistributionServed},
		{"Faults", TestFaults},
		{"HangUntilClientGivesUp", TestHangUntilClientGivesUp},
		{"CloseReleasesWaiters", TestCloseReleasesWaiters},
		{"Overrides", TestOverrides},
		{"HTTP1ConnReuse", TestHTTP1ConnReuse},
		{"PipelinedLatency", TestPipelinedLatency},
		{"ContentTypeAndHeaders", TestContentTypeAndHeaders},
		{"Non200Bodies", TestNon200Bodies},
		{"OriginRecordedStatusLine", TestOriginRecordedStatusLine},
		{"LargeBodiesFromFile", TestLargeBodiesFromFile},
	} {
		t.Run(tc.name, tc.f)
	}
}
