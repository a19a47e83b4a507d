# bench/steal.sh: sourced by the bench scripts. The share of CPU time the
# hypervisor gave to other guests ("steal" in /proc/stat) over a stretch of a
# run: on a VM a benchmark is only as quiet as its host, and the load average
# does not show steal. steal_mark starts a stretch; steal_since prints the
# share since the last mark, e.g. "steal 0.4%".
steal_mark() {
	read -r _ u n s i w q sq st _ </proc/stat
	STEAL_T0=$((u + n + s + i + w + q + sq + st)) STEAL_S0=$st
}
steal_since() {
	local u n s i w q sq st t
	read -r _ u n s i w q sq st _ </proc/stat
	t=$((u + n + s + i + w + q + sq + st))
	awk -v d="$((st - STEAL_S0))" -v t="$((t - STEAL_T0))" 'BEGIN {printf "steal %.1f%%", (t > 0 ? 100 * d / t : 0)}'
}
