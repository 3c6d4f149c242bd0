#!/bin/sh
# Interrupted runs leave nothing behind (issue 18).  `rve run`, `rve fit`,
# `rve mesh` and `rve pack` are started on inputs that keep them busy for
# seconds, and SIGINT, SIGTERM or SIGHUP is sent mid-run: either as soon as a
# temporary output appears beside a target (the command has started writing),
# or after a random delay.  Every case must end with:
#   - exit 130, 143 or 129 (128 + the signal) from rve's handler, not a death
#     by the signal's default action; or exit 0 when the command finished
#     first, with complete outputs;
#   - after a signal: outputs that existed before unchanged, outputs that did
#     not absent (for `rve run -o DIR`: no DIR), nothing printed on stdout;
#   - no temporary left (.NAME.XXXXXX beside a target, *rvetmp*, rve-out.*
#     in TMPDIR), in every case.
# Each command must be killed mid-run at least once (else the inputs are too
# small for this machine and the test proves nothing).  RVE_TEST_LONG=1
# repeats every case 4 times.  Needs python3 (to tell an exit status from a
# death by signal); skips (77) without it.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init test_signal
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
export TMPDIR="$T/tmp"
mkdir "$TMPDIR"

# launch.py WORKDIR WATCHDIR SIG MODE DELAY CMD...: runs CMD in WORKDIR and
# sends SIG when a hidden temporary (a name starting with ".") or a
# *rvetmp* file appears in WATCHDIR (MODE "write"; polled every 2 ms) or
# after DELAY seconds (MODE "delay"; also the limit of "write"), counted
# from the moment the process catches SIGHUP, SIGINT and SIGTERM
# (/proc/PID/status).  Prints
# "STATUS WHEN": STATUS is the exit status, or -N for a death by signal N;
# WHEN is "writing" (a temporary existed when the signal was sent),
# "running" (signal sent, no temporary seen) or "finished" (no signal sent).
cat >"$T/launch.py" <<'EOF'
import os, signal, subprocess, sys, time
work, watch, sig, mode, delay = sys.argv[1:6]
cmd = sys.argv[6:]
sig = getattr(signal, "SIG" + sig)
out = open(os.path.join(work, ".signal-test-stdout"), "wb")
# the signals' default dispositions in the child: a test run in the
# background (SIGINT ignored) or under nohup (SIGHUP ignored) would otherwise
# pass them on, and rve rightly keeps an ignored signal ignored
def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(cmd, cwd=work, stdout=out, stderr=subprocess.DEVNULL, preexec_fn=default_signals)
def temp_seen():
    for d in (watch, os.environ["TMPDIR"]):
        try:
            for n in os.listdir(d):
                if (n.startswith(".") and n != ".signal-test-stdout") or "rvetmp" in n or n.startswith("rve-out."):
                    return True
        except OSError:
            pass
    return False
def caught():
    # the handlers are installed when the subcommand starts (before it, during
    # the loading of the program's libraries, a signal kills by its default
    # action, with nothing written yet): the delay counts from then
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    # all of SIGHUP, SIGINT and SIGTERM: the libtool
                    # wrapper shell that precedes rve catches SIGINT only
                    m = 1 << (signal.SIGHUP - 1) | 1 << (signal.SIGINT - 1) | 1 << (signal.SIGTERM - 1)
                    return int(line.split()[1], 16) & m == m
    except OSError:
        pass
    return 0
t0 = time.monotonic()
while p.poll() is None and not caught() and time.monotonic() - t0 < 60:
    time.sleep(0.002)
t0 = time.monotonic()
when = "finished"
while p.poll() is None:
    seen = mode == "write" and temp_seen()
    if seen or time.monotonic() - t0 >= float(delay):
        when = "writing" if (seen or temp_seen()) else "running"
        try:
            p.send_signal(sig)
        except ProcessLookupError:
            pass
        break
    time.sleep(0.002)
print(p.wait(), when)
EOF

# inputs: a 40^3 map of 60 grains (fit: seconds, bounded by --max-time; run:
# a fit of 1 s, then the regularisation and the mesh), a tessellation of 300
# cells meshed finely (mesh: seconds), 400 ellipsoids packed for 30 s.  In
# "write" mode the signal comes when the first temporary appears, or at the
# limit given.
(cd "$T" && "$RVE" convert -q --synth m.tif --size 40,40,40 --seeds 60 &&
    "$RVE" tess -q -n 300 --domain 1,1,1 --rng-seed 2 -o t.tess) ||
    { echo "SKIP: rve cannot make the inputs"; exit 77; }
(cd "$T" && sha256sum m.tif t.tess) >"$T/inputs.sum"

killed_run=0 killed_fit=0 killed_mesh=0 killed_pack=0
writing=0
ncase=0

# one NAME OLD|NEW SIG MODE DELAY "OUTPUTS" ARGS...: OUTPUTS are files (or,
# for run, the folder) relative to the work folder
one() {
    name=$1 state=$2 sig=$3 mode=$4 delay=$5 outs=$6
    shift 6
    ncase=$((ncase + 1))
    w="$T/w"
    rm -rf "$w" "$TMPDIR"
    mkdir -p "$w" "$TMPDIR"
    cp "$T/m.tif" "$T/t.tess" "$w/"
    watch=$w
    for o in $outs; do
        case $name in run) watch="$w/$o" ;; esac
        if [ "$state" = OLD ]; then
            case $name in
            run) mkdir "$w/$o" && echo "old fit" >"$w/$o/fit.tess" && echo "old mesh" >"$w/$o/mesh.msh" ;;
            *) echo "old $o" >"$w/$o" ;;
            esac
        fi
    done
    (cd "$w" && find . | sort) >"$T/before"
    (cd "$w" && find . -type f -exec sha256sum {} + | sort) >"$T/before.sum"
    what="$name ($state outputs, SIG$sig, $mode $delay s)"
    res=$(python3 "$T/launch.py" "$w" "$watch" "$sig" "$mode" "$delay" "$RVE" "$@")
    st=${res% *} when=${res#* }
    case $sig in INT) code=130 ;; TERM) code=143 ;; HUP) code=129 ;; esac
    left=$(find "$w" "$TMPDIR" -mindepth 1 \( -name '.*' ! -name .signal-test-stdout -o -name '*rvetmp*' -o -name 'rve-out.*' \) 2>/dev/null)
    if [ -z "$left" ]; then ok; else ko "$what: temporaries left: $left"; fi
    if [ "$st" = "$code" ]; then
        ok
        eval "killed_$name=\$((killed_$name + 1))"
        [ "$when" = writing ] && writing=$((writing + 1))
        # nothing new, nothing changed, nothing printed
        if [ -s "$w/.signal-test-stdout" ]; then ko "$what: printed on stdout after the signal"; else ok; fi
        rm -f "$w/.signal-test-stdout"
        (cd "$w" && find . | sort) >"$T/after"
        (cd "$w" && find . -type f -exec sha256sum {} + | sort) >"$T/after.sum"
        if cmp -s "$T/before" "$T/after"; then ok; else
            ko "$what: files appeared or went: $(diff "$T/before" "$T/after" | grep '^[<>]' | tr '\n' ' ')"; fi
        if cmp -s "$T/before.sum" "$T/after.sum"; then ok; else ko "$what: earlier files changed"; fi
    elif [ "$st" = 0 ]; then
        # finished before the signal, or the signal came while the outputs
        # were being committed (from the first rename on, rve holds signals
        # so that outputs are never half old, half new: src/util/afile.c), or
        # after the last rename, while the process was exiting (no temporary
        # left to see, hence "running"): complete outputs.  A handler that
        # did nothing would show as "never killed mid-run" below.
        ok
        bad=""
        for o in $outs; do
            case $name in
            run) [ -s "$w/$o/mesh.msh" ] && tail -1 "$w/$o/mesh.msh" | grep -q '^\$End' || bad="$bad $o/mesh.msh" ;;
            *) [ -s "$w/$o" ] && ! grep -q "^old $o\$" "$w/$o" || bad="$bad $o" ;;
            esac
        done
        if [ -z "$bad" ]; then ok; else ko "$what: exit 0 but outputs not complete:$bad"; fi
    else
        case $st in
        -*) ko "$what: killed by the signal's default action (no handler): status $st" ;;
        *) ko "$what: exit $st ($when), wanted $code (or 0 with complete outputs when finished or committing)" ;;
        esac
    fi
    (cd "$w" && sha256sum m.tif t.tess) >"$T/inputs.now"
    # the inputs sit in $w: compare their sums, not their paths
    if cmp -s "$T/inputs.sum" "$T/inputs.now"; then ok; else ko "$what: an input changed"; fi
}

reps=1
[ -n "${RVE_TEST_LONG:-}" ] && [ "${RVE_TEST_LONG:-}" != 0 ] && reps=4
r=0
while [ "$r" -lt "$reps" ]; do
    r=$((r + 1))
    # random delays from 0.1 to 1.5 s (the handlers are installed at start-up)
    d1=$(awk -v s="$$$r" 'BEGIN { srand(s); printf "%.2f", 0.1 + 1.4 * rand() }')
    d2=$(awk -v s="$r$$" 'BEGIN { srand(s); printf "%.2f", 0.1 + 1.4 * rand() }')
    for state in NEW OLD; do
        case $state in NEW) s1=TERM s2=INT ;; OLD) s1=INT s2=HUP ;; esac
        one run "$state" "$s1" write 6 R run m.tif -o R --fit-options "--max-time 1" --json
        one run "$state" "$s2" delay "$d1" R run m.tif -o R --fit-options "--max-time 1" --json
        one fit "$state" "$s1" write 4 "f.tess f.csv" fit m.tif -o f.tess --no-report --max-time 2 --json
        one fit "$state" "$s2" delay "$d2" "f.tess f.csv" fit m.tif -o f.tess --no-report --max-time 2 --json
        one mesh "$state" "$s1" write 4 "x.msh x.inp x.vtk" mesh t.tess --rcl 0.5 -o x --format msh,inp,vtk --json
        one mesh "$state" "$s2" delay "$d1" "x.msh x.inp x.vtk" mesh t.tess --rcl 0.5 -o x --format msh,inp,vtk --json
        one pack "$state" "$s1" delay "$d2" p.txt pack --shape ellipsoid --size 1 -n 400 --time 30 --seed 2 -o p.txt --json
    done
done
# A signal that the kernel gives to a worker thread (OpenMP, gmsh): the
# handler passes it on to the main thread, which alone cleans up and exits.
# A shim makes unlink slow off the main thread, so that a clean-up run on
# the worker races the main thread's own writing (before the fix: exit 1,
# "cannot create output file: Interrupted system call").  Needs a C compiler.
cat >"$T/slowunlink.c" <<'EOF'
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int unlink(const char *p)
{
    if (syscall(SYS_gettid) != getpid()) {
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL);
    }
    return (int)syscall(SYS_unlink, p);
}
EOF
cat >"$T/worker.py" <<'EOF'
import ctypes, os, signal, subprocess, sys, time
work, shim = sys.argv[1:3]
libc = ctypes.CDLL(None)
def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
env = dict(os.environ, LD_PRELOAD=shim)
# the sanitizer build's runtime must otherwise come first in the library list
env["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
p = subprocess.Popen(sys.argv[3:], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     preexec_fn=default_signals, env=env)
sent = "finished"
t0 = time.monotonic()
while p.poll() is None and sent == "finished" and time.monotonic() - t0 < 60:
    try:
        writing = any(n.startswith(".") for n in os.listdir(os.path.join(work, "R")))
        tids = [int(t) for t in os.listdir("/proc/%d/task" % p.pid) if int(t) != p.pid]
    except OSError:
        writing, tids = False, []
    if writing and tids:
        libc.syscall(234, p.pid, tids[0], int(signal.SIGINT))  # tgkill (x86-64)
        sent = "worker"
    time.sleep(0.001)
print(p.wait(), sent)
EOF
if [ "$(uname -m)" = x86_64 ] && cc -shared -fPIC -o "$T/slowunlink.so" "$T/slowunlink.c" 2>/dev/null; then
    for i in 1 2 3; do
        w="$T/w"
        rm -rf "$w" "$TMPDIR"
        mkdir -p "$w" "$TMPDIR"
        cp "$T/m.tif" "$w/"
        res=$(python3 "$T/worker.py" "$w" "$T/slowunlink.so" "$RVE" run m.tif -o R --fit-options "--max-time 1")
        left=$(find "$w" "$TMPDIR" -mindepth 1 \( -name '.*' -o -name '*rvetmp*' -o -name 'rve-out.*' \) 2>/dev/null)
        case $res in
        "130 worker") if [ -z "$left" ] && [ ! -e "$w/R" ]; then ok; else ko "run (SIGINT on a worker thread): left $left $(ls "$w")"; fi ;;
        *" finished") echo "note: run finished before a worker thread was seen writing" ;;
        *) ko "run (SIGINT on a worker thread): exit ${res% *}, wanted 130" ;;
        esac
    done
else
    echo "note: no C compiler (or not x86-64): the worker-thread case is skipped"
fi

for c in run fit mesh pack; do
    eval "n=\$killed_$c"
    if [ "$n" -gt 0 ]; then ok; else ko "$c was never killed mid-run ($ncase cases): inputs too small?"; fi
done
echo "$ncase cases; killed while a temporary existed: $writing; mid-run kills: run $killed_run, fit $killed_fit, mesh $killed_mesh, pack $killed_pack"
lib_finish
