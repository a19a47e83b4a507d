// Package shardset reads the shard files of one split attack as one run.
//
// `loadlab attack -shard i/N` writes one results file per generator, each
// recording its results.Shard (segment, cuts, global schedule, start
// instant). Every command that reads results files asks this package which
// files make one run:
//
//   - report, which always reads its files as one run, checks them with
//     Check: shards of different attacks, or shard files mixed with whole
//     attacks, are refused unless forced;
//   - plot and compare, which read several runs, split their files with
//     Group: the shard files of one attack are one run, every other file a
//     run of its own, and shards of different attacks are refused with
//     Check's message unless forced (then they are one run, as report
//     merges them).
//
// So the same files are the same run, with the same refusal, in every
// command.
package shardset
