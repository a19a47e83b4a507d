# bench/args.sh: sourced by the bench scripts, to refuse a bad setting
# before anything starts (a build, a server, a run): one line on stderr
# naming the variable and what is wrong, exit 2. A value nothing matches
# would otherwise run nothing and exit 0, or measure the wrong thing.

# bench_bad WHO VAR MESSAGE: refuses VAR ("WHO: VAR: MESSAGE"), exit 2.
bench_bad() {
	echo "$1: $2: $3" >&2
	exit 2
}

# bench_oneof WHO VAR VALUE CHOICE...: refuses VALUE unless it is exactly
# one of the choices.
bench_oneof() {
	local who=$1 var=$2 value=$3 c
	shift 3
	for c in "$@"; do
		[ "$value" = "$c" ] && return 0
	done
	bench_bad "$who" "$var" "unknown value '$value' (want one of: $*)"
}

# bench_each WHO VAR VALUE CHOICE...: refuses a list VALUE (words) unless
# it has a word and every word is one of the choices.
bench_each() {
	local who=$1 var=$2 value=$3 w
	shift 3
	[ -n "${value// /}" ] || bench_bad "$who" "$var" "empty (want some of: $*)"
	for w in $value; do
		case " $* " in
		*" $w "*) ;;
		*) bench_bad "$who" "$var" "unknown value '$w' (want some of: $*)" ;;
		esac
	done
}
