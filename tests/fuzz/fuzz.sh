#!/bin/sh
# drape's fuzzing runs beyond CI's smoke (make fuzz-run, make fuzz-long, make fuzz-minimize), on the
# targets of a `make fuzz` build. Each target reads the inputs its build lists in
# BUILD/tests/fuzz_inputs/<target>.args (one argument a line: its dictionary, -max_len, the seeds
# drape_fuzz_seeds wrote, the committed corpus tests/data/fuzz_corpus/<target>, and any folder of
# committed files it also starts from), the same inputs as its smoke test.
#
#   fuzz.sh run BUILD SECONDS [JOBS] [TARGET...]
#                                      every target (or the named ones) for SECONDS with a random
#                                      seed, JOBS at a time (default: the number of cores); grown corpora in
#                                      BUILD/corpus/<target>, crashes in BUILD/artifacts/<target>,
#                                      logs in BUILD/logs/<target>.log; then one line per target:
#                                      seconds, executions, coverage (cov), findings (crashes,
#                                      leaks, timeouts, out of memory) and slow units
#   fuzz.sh minimize BUILD [TARGET...] each grown corpus (or the named targets') reduced (libFuzzer -merge=1) to the inputs
#                                      that add coverage beyond the target's seeds, written to
#                                      tests/data/fuzz_corpus/<target> (replacing it), at most
#                                      FUZZ_CORPUS_KB (default 300) KB per target, smallest first
set -eu

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)

usage() {
    echo "usage: fuzz.sh run BUILD SECONDS [JOBS] [TARGET...] | fuzz.sh minimize BUILD [TARGET...]" >&2
    exit 2
}

targets() {  # BUILD [TARGET...]
    build=$1
    shift
    if [ $# -eq 0 ]; then
        for exe in "$build"/tests/*_fuzz; do
            [ -x "$exe" ] && echo "$exe"
        done
    else
        for t in "$@"; do
            [ -x "$build/tests/$t" ] || { echo "fuzz.sh: no target $t in $build/tests" >&2; exit 2; }
            echo "$build/tests/$t"
        done
    fi
}

# The target's arguments from its .args file, appended to "$@" of the caller through eval-free
# newline splitting (paths may hold spaces, never newlines).
inputs_of() {
    cat "$1/tests/fuzz_inputs/$2.args"
}

run_one() {  # BUILD SECONDS EXE
    build=$1 seconds=$2 exe=$3
    t=$(basename "$exe")
    mkdir -p "$build/corpus/$t" "$build/artifacts/$t" "$build/logs"
    old_ifs=$IFS
    IFS='
'
    # shellcheck disable=SC2046
    set -- $(inputs_of "$build" "$t")
    IFS=$old_ifs
    # The grown corpus first: libFuzzer writes what it finds into the first folder.
    "$exe" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" \
        "$build/corpus/$t" "$@" > "$build/logs/$t.log" 2>&1 || true
    summary "$build" "$t"
}

# seconds, executions, cov and findings of a finished run, from its log and its artifacts (a run
# stopped by a finding has no final statistics: its last status line stands for them).
summary() {
    log="$1/logs/$2.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -1)
    secs=$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
    # Findings: crashes, leaks, timeouts and out-of-memory inputs, and sanitizer reports the run
    # went on after (a build that lets undefined behaviour recover writes no input for them). A
    # slow-unit input is reported apart: libFuzzer times it on the wall clock, so a loaded
    # machine makes one.
    crashes=$(find "$1/artifacts/$2" -type f ! -name 'slow-unit-*' | wc -l)
    reports=$(grep -c 'runtime error:' "$log" || true)
    [ "$reports" -gt "$crashes" ] && crashes=$reports  # a halting build writes an input for its report too
    slow=$(find "$1/artifacts/$2" -type f -name 'slow-unit-*' | wc -l)
    printf '%-20s seconds %-6s executions %-10s cov %-6s findings %s slow units %s\n' "$2" "${secs:-?}" "${execs:-?}" "${cov:-?}" "$crashes" "$slow"
}

minimize_one() {  # BUILD EXE
    build=$1 exe=$2
    t=$(basename "$exe")
    [ -d "$build/corpus/$t" ] || return 0
    work="$build/minimize/$t"
    rm -rf "$work"
    mkdir -p "$work/base" "$work/seeds"
    old_ifs=$IFS
    IFS='
'
    # shellcheck disable=SC2046
    set -- $(inputs_of "$build" "$t")
    IFS=$old_ifs
    # The options (dictionary, -max_len) and the starting folders other than the committed corpus.
    opts="" starts=""
    for a in "$@"; do
        case "$a" in
            -*) opts="$opts
$a" ;;
            "$source_dir/tests/data/fuzz_corpus/$t") ;;
            *) starts="$starts
$a" ;;
        esac
    done
    IFS='
'
    # 1. What the starting inputs cover, as the first folder of the merge: nothing they cover is kept.
    # shellcheck disable=SC2086
    "$exe" -merge=1 $opts "$work/base" $starts > "$work/log" 2>&1
    ls "$work/base" > "$work/base.list"
    # 2. The committed corpus (when there is one) and the grown one merged on top: only inputs
    # with new features join.
    committed=""
    [ -d "$source_dir/tests/data/fuzz_corpus/$t" ] && committed="$source_dir/tests/data/fuzz_corpus/$t"
    # shellcheck disable=SC2086
    "$exe" -merge=1 $opts "$work/base" $committed "$build/corpus/$t" >> "$work/log" 2>&1
    IFS=$old_ifs
    out="$source_dir/tests/data/fuzz_corpus/$t"
    rm -rf "$out"
    mkdir -p "$out"
    budget=$(( ${FUZZ_CORPUS_KB:-300} * 1024 ))
    used=0 kept=0
    # Smallest first, until the budget is spent.
    for f in $(cd "$work/base" && ls -S -r); do
        grep -qx "$f" "$work/base.list" && continue
        size=$(wc -c < "$work/base/$f")
        [ $((used + size)) -gt "$budget" ] && continue
        cp "$work/base/$f" "$out/$f"
        used=$((used + size)) kept=$((kept + 1))
    done
    [ "$kept" -gt 0 ] || rmdir "$out"
    printf '%-20s %5s inputs %8s bytes\n' "$t" "$kept" "$used"
}

[ $# -ge 2 ] || usage
command=$1 build=$(cd "$2" && pwd)
case "$command" in
    run)
        [ $# -ge 3 ] || usage
        seconds=$3 jobs=${4:-$(nproc)}
        shift 3
        [ $# -gt 0 ] && shift
        # One process per core: the targets queue through xargs -P.
        list=$(targets "$build" "$@")
        echo "$list" | xargs -P "$jobs" -I{} sh "$0" one "$build" "$seconds" {}
        ;;
    one) run_one "$build" "$3" "$4" ;;
    minimize)
        shift 2
        for exe in $(targets "$build" "$@"); do minimize_one "$build" "$exe"; done
        ;;
    *) usage ;;
esac
