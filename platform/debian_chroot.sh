#!/bin/bash
# The README's two commands on a fresh Debian, proved from nothing, in either order: builds a minimal
# Debian root of RELEASE (trixie = Debian 13, bookworm = Debian 12) from the Debian archive with
# debootstrap, copies this checkout in (the files git tracks and any new ones it does not ignore; no
# build/, no results/), and there, as a new user would:
#   1. as root, installs make and sudo, the one step the README asks for (sudo only so that the
#      steps below have it), and makes two users: "learner" with no rights and "sudoer" with sudo;
#   2. as "learner" (not root, no sudo): `make test` must stop at once with one message naming the
#      apt-get line to run as root, exit non-zero, and build nothing;
#   3. a copy of that root, with nothing installed yet, for the other order (step 5);
#   4. as "sudoer", `make test` first (the set-up through sudo: the compiler, OpenBLAS, Catch2,
#      PyTorch; the build; the suite), then `make experiment RUN_FLAGS='--steps 100'` (28 short
#      runs, the table and its picture);
#   5. in the copy, as "sudoer", `make experiment RUN_FLAGS='--steps 100'` first (its own set-up and
#      build); each timed. The copy's make test after it is left out (the suite is step 4's, on the
#      same packages) unless FULL=1. ORDERS=test-first leaves out this copy and its run (CI's choice,
#      for time: both orders are proved by hand, docs/platforms.md); the default is ORDERS=both.
# Run as root (debootstrap and chroot need it): make test-debian RELEASE=trixie, or this script with
# RELEASE [FOLDER]. FOLDER (default /var/tmp/whereami-debian-RELEASE, outside the checkout, whose
# build/ make reads) and FOLDER-experiment-first are made anew and removed at the end unless
# KEEP=1. Only /proc, a read-only /sys, and a /dev/shm and /dev/pts of its own are mounted in it, never a folder
# of this machine, and they are unmounted on any exit.
# Leaves out the extension grid, Slurm and GNU parallel (CI runs those on this machine).
# The whole script is one function, read before any of it runs, so an edit made during a run
# cannot change the run.
main() {
    set -euo pipefail
    release=${1:?usage: platform/debian_chroot.sh RELEASE [FOLDER] (RELEASE: trixie for Debian 13, bookworm for Debian 12)}
    case $release in
        trixie | bookworm) ;;
        *) echo "debian_chroot: RELEASE must be trixie (Debian 13) or bookworm (Debian 12), got '$release'" >&2; exit 2 ;;
    esac
    orders=${ORDERS:-both}
    case $orders in
        both | test-first) ;;
        *) echo "debian_chroot: ORDERS must be both or test-first, got '$orders'" >&2; exit 2 ;;
    esac
    source_dir=$(cd "$(dirname "$0")/.." && pwd)
    root=${2:-${TMPDIR:-/var/tmp}/whereami-debian-$release}
    [ "$(id -u)" = 0 ] || { echo "debian_chroot: debootstrap and chroot need root" >&2; exit 2; }
    if ! command -v debootstrap >/dev/null; then
        echo "debian_chroot: installing debootstrap"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
            { echo "debian_chroot: could not install debootstrap; run: apt-get install -y debootstrap" >&2; exit 2; }
    fi

    # The Debian mirror apt uses on this machine (deb822 sources or the classic list), else Debian's own.
    mirror=$(sed -n 's|^URIs: *\(http[^ ]*/debian\)/* *$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    [ -n "$mirror" ] || mirror=$(sed -n 's|^deb  *\(\[[^]]*\]  *\)\{0,1\}\(http[^ ]*/debian\)/* .*|\2|p' /etc/apt/sources.list 2>/dev/null | head -n 1)
    [ -n "$mirror" ] || mirror=http://deb.debian.org/debian

    second=$root-experiment-first
    unmount_all() {
        local r
        for r in "$root" "$second"; do
            for m in dev/pts dev/shm sys proc; do
                if mountpoint -q "$r/$m" 2>/dev/null; then umount "$r/$m" || umount -l "$r/$m"; fi
            done
        done
    }
    mount_all() {
        mount -t proc proc "$1/proc"
        mount -t sysfs -o ro sysfs "$1/sys"
        mount -t tmpfs -o size=1g tmpfs "$1/dev/shm"
        mount -t devpts -o newinstance,ptmxmode=0666 devpts "$1/dev/pts"
    }
    remove_root() {
        unmount_all
        # Never remove a tree with anything still mounted in it.
        local r
        for r in "$root" "$second"; do
            if findmnt -rn -o TARGET | grep -q "^$r/"; then
                echo "debian_chroot: $r still has mounts; left in place" >&2
                continue
            fi
            rm -rf "$r"
        done
    }
    finish() {
        status=$?
        if [ "${KEEP:-0}" = 1 ]; then unmount_all; echo "debian_chroot: kept $root and $second"; else remove_root; fi
        exit $status
    }
    trap finish EXIT
    trap 'exit 130' INT TERM

    elapsed() { local s=$(($(date +%s) - $1)); printf '%d min %02d s' $((s / 60)) $((s % 60)); }

    remove_root
    mkdir -p "$root"
    start=$(date +%s)
    echo "debian_chroot: debootstrap --variant=minbase $release from $mirror"
    debootstrap --variant=minbase "$release" "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
        { tail -n 20 "$root.debootstrap.log"; echo "debian_chroot: debootstrap failed (log above)" >&2; exit 1; }
    rm -f "$root.debootstrap.log"
    echo "debian_chroot: a minimal Debian $release root in $(elapsed "$start")"

    mount_all "$root"
    cp /etc/resolv.conf "$root/etc/resolv.conf"

    # The checkout, as its owner's files.
    mkdir -p "$root/srv/whereami"
    (cd "$source_dir" && git ls-files -co --exclude-standard -z | grep -zv '^build/\|^results/' | tar --null -cf - -T -) |
        tar -xf - -C "$root/srv/whereami"

    in_root() { chroot "${in:-$root}" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
    # A user's login shell in the root, with this machine's OpenBLAS settings passed on (where they are
    # set, as some of these machines set them: the library reads them).
    as_user() {
        local user=$1; shift
        chroot --userspec="$user:$user" "${in:-$root}" /usr/bin/env -i HOME="/home/$user" USER="$user" LOGNAME="$user" \
            PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb \
            ${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE} ${OPENBLAS_L2_SIZE:+OPENBLAS_L2_SIZE=$OPENBLAS_L2_SIZE} \
            /bin/sh -c "cd /home/$user/whereami && $*" < /dev/null
    }

    echo "debian_chroot: as root: apt-get install make sudo; users learner (no rights) and sudoer (sudo)"
    in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make sudo >/dev/null' ||
        { echo "debian_chroot: apt-get install make sudo failed" >&2; exit 1; }
    in_root sh -c 'useradd -m -s /bin/sh learner && useradd -m -s /bin/sh sudoer &&
        echo "sudoer ALL=(ALL) NOPASSWD: ALL" > /etc/sudoers.d/sudoer && chmod 0440 /etc/sudoers.d/sudoer'
    for user in learner sudoer; do
        cp -a "$root/srv/whereami" "$root/home/$user/whereami"
        in_root chown -R "$user:$user" "/home/$user/whereami"
    done

    echo "debian_chroot: as learner (not root, no sudo): make test"
    set +e
    refusal=$(as_user learner make test 2>&1)
    refusal_status=$?
    set -e
    printf '%s\n' "$refusal" | sed 's/^/  | /'
    [ "$refusal_status" -ne 0 ] || { echo "debian_chroot: FAILED: make test without rights exited 0" >&2; exit 1; }
    [ "$(printf '%s\n' "$refusal" | grep -c .)" = 1 ] || { echo "debian_chroot: FAILED: the refusal is not one line" >&2; exit 1; }
    printf '%s\n' "$refusal" | grep -q "As root, run 'apt-get update && apt-get install -y .*g++.* && apt-get install -y --no-install-recommends python3-torch python3-numpy locales', then make again" ||
        { echo "debian_chroot: FAILED: the refusal does not name the apt-get line" >&2; exit 1; }
    [ ! -e "$root/home/learner/whereami/build" ] || { echo "debian_chroot: FAILED: something was built without the packages" >&2; exit 1; }
    echo "debian_chroot: ok: one line naming the apt-get line, exit $refusal_status, nothing built"

    # The other order's root: this one as it is now, nothing installed but make and sudo.
    if [ "$orders" = both ]; then
        unmount_all
        cp -a "$root" "$second"
        mount_all "$root"
        mount_all "$second"
    fi

    # run_make LABEL COMMAND LOG: COMMAND as sudoer in root ${in:-$root}, timed into $took; stops the
    # script with the log's end on failure.
    run_make() {
        local label=$1 command=$2 log=$3 began
        began=$(date +%s)
        echo "debian_chroot: $label: as sudoer: $command"
        as_user sudoer "$command" > "$log" 2>&1 ||
            { tail -n 60 "$log"; echo "debian_chroot: FAILED: $label: $command (log: $log)" >&2; exit 1; }
        grep -E '^set-up:|^experiment:|^tests: [0-9]+ passed' "$log" | sed 's/^/  | /'
        took=$(elapsed "$began")
    }
    check_table() {
        [ "$(grep -c . "${in:-$root}/home/sudoer/whereami/results/table.txt")" -ge 28 ] ||
            { echo "debian_chroot: FAILED: $1: results/table.txt has fewer than 28 lines" >&2; exit 1; }
    }

    in=$root
    run_make "make test first" "make test" "$root.test.log"
    closing=$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$root.test.log" | tail -n 1)
    test_time=$took
    echo "debian_chroot: ok: make test first, from nothing, in $test_time: $closing"
    run_make "make test first" "make experiment RUN_FLAGS='--steps 100'" "$root.experiment.log"
    check_table "make test first"
    after_test_time=$took
    echo "debian_chroot: ok: make experiment after it in $after_test_time"

    experiment_first="make experiment first left out (ORDERS=test-first)"
    after_experiment=""
    if [ "$orders" = both ]; then
    in=$second
    run_make "make experiment first" "make experiment RUN_FLAGS='--steps 100'" "$second.experiment.log"
    check_table "make experiment first"
    experiment_time=$took
    experiment_first="make experiment first $experiment_time"
    echo "debian_chroot: ok: make experiment first, from nothing, in $experiment_time (set-up, build, 28 runs, table and picture)"
    fi
    if [ "$orders" = both ] && [ "${FULL:-0}" = 1 ]; then
        run_make "make experiment first" "make test" "$second.test.log"
        after_experiment=", make test after it $took ($(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$second.test.log" | tail -n 1))"
    fi
    in=
    versions=$(in_root dpkg-query -W -f='${Package} ${Version}\n' g++ libopenblas-openmp-dev catch2 python3-torch | tr '\n' ';' | sed 's/;$//; s/;/; /g')
    echo "debian_chroot: Debian $release ($versions): make test first $test_time, make experiment after it $after_test_time; $experiment_first$after_experiment; all $(elapsed "$start")"
    rm -f "$root.experiment.log" "$root.test.log" "$second.experiment.log" "$second.test.log"
}
main "$@"
exit
