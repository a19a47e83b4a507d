package main

// basisUsage is the help of the -basis flag every command that reports
// latencies takes (report, plot, compare, encode).
const basisUsage = "latency `basis`: due, the default (from when the schedule asked for each request: what a user arriving on schedule waited) or send (from when it went out, as vegeta measures). Files without due times (vegeta's) give send-time latencies either way"
