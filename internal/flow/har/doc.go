// Package har turns a browser's HAR recording (DevTools "Save all as HAR",
// Playwright's recordHar) into a flow file: one request step per recorded
// request of the site, think steps for the recorded pauses, and captures
// for values the recording shows a server returning and the browser
// sending back (a token from a JSON answer later sent in a header, a query
// or a body). Static assets and other hosts are left out unless asked.
//
// Read parses and checks the recording, Convert makes the flow, and
// Flow.YAML writes it in the flow file format (docs/flows.md).
package har
