# Generates a synthetic, deterministic dpkg status database and a debfoster
# keeper file for tests/clients/debfoster.sh (input to the real client
# debfoster, run on stock libgc and on bibop).
#
# Usage: awk -v n=3000 -v status=FILE -v keepers=FILE [-v names=FILE] \
#            -f gen-dpkg-status.awk
# Writes the status file (n packages with Depends / Pre-Depends /
# Recommends / Suggests / Provides, alternatives, versioned relations,
# virtual packages, a few dependency cycles, mixed priorities, sections,
# Essential and hold flags, some packages only in config-files state), the
# keeper file (a deterministic subset of the package names, plus a few names
# that are not installed) and, if asked, the list of all package names.
# Pure POSIX awk, deterministic for a given awk; the pseudo-random
# numbers come from the Park-Miller generator, exact in double arithmetic.

function rnd(m) {                 # uniform integer in [0, m)
    seed = (seed * 16807) % 2147483647
    return seed % m
}

function word(k,    s, i, len) {  # a pronounceable word chosen by k
    len = 2 + k % 3
    s = ""
    for (i = 0; i < len; i++) {
        s = s syl[k % nsyl]
        k = int(k / nsyl) + 7 * i + 3
    }
    return s
}

function rel(j,    r, v) {        # a relation on package j, sometimes versioned
    r = pkg[j]
    v = rnd(10)
    if (v == 0)      r = r " (>= " ver[j] ")"
    else if (v == 1) r = r " (<< 99:" ver[j] ")"
    else if (v == 2) r = r " (= " ver[j] ")"
    else if (v == 3) r = r ":any"
    return r
}

function target(i,    j) {        # a dependency target, mostly earlier packages
    if (i > 0 && rnd(40) != 0)
        j = rnd(i)                # earlier: the graph is mostly a DAG
    else
        j = rnd(n)                # anywhere: makes some cycles
    return j
}

function deplist(i, cnt,    s, k, j, alt) {
    s = ""
    for (k = 0; k < cnt; k++) {
        alt = rnd(8)
        if (alt == 0 && nvirt > 0)
            j = "virt-" word(rnd(nvirt) * 13 + 5)     # a virtual package
        else {
            j = rel(target(i))
            if (alt == 1) j = j " | " rel(target(i))
            if (alt == 2) j = j " | " rel(target(i)) " | nonexistent-" word(i + k)
        }
        s = (s == "") ? j : s ", " j
    }
    return s
}

BEGIN {
    if (n == "") n = 3000
    if (status == "" || keepers == "") {
        print "usage: awk -v n=N -v status=F -v keepers=F [-v names=F] -f gen-dpkg-status.awk" > "/dev/stderr"
        exit 2
    }
    seed = 20240611
    nsyl = split("ba ko ri mu te sa lo vi ne xu da pe fo gi ha zu wy qe tro sil", syl, " ")
    for (k = 1; k <= nsyl; k++) syl[k - 1] = syl[k]
    npre = split("lib python3- golang- node- fonts- r-cran- perl- ruby- gir1.2- x11- ", pre, " ")
    npre++; pre[npre] = ""          # plain names too
    nsuf = split("-dev -doc -utils -common -data -bin -tools", suf, " ")
    nsec = split("libs utils devel doc admin net text python perl web x11 games contrib/games non-free/utils oldlibs misc", sec, " ")
    split("required important standard optional extra optional optional optional", prio, " ")
    nvirt = int(n / 40)

    for (i = 0; i < n; i++) {
        p = pre[1 + rnd(npre)] word(i * 7 + 11)
        if (rnd(3) == 0) p = p (i % 97)
        if (rnd(4) == 0) p = p suf[1 + rnd(nsuf)]
        p = p "-" i                 # unique
        pkg[i] = p
        ver[i] = (rnd(5) == 0 ? rnd(3) + 1 ":" : "") rnd(20) "." rnd(40) "." rnd(9) "-" (1 + rnd(4))
        if (names != "") print p > names
    }

    for (i = 0; i < n; i++) {
        st = rnd(50)
        if (st == 0)      state = "deinstall ok config-files"
        else if (st == 1) state = "hold ok installed"
        else if (st == 2) state = "install ok half-configured"
        else              state = "install ok installed"
        print "Package: " pkg[i] > status
        print "Status: " state > status
        print "Priority: " prio[1 + (rnd(100) < 4 ? rnd(3) : 3 + rnd(5))] > status
        print "Section: " sec[1 + rnd(nsec)] > status
        print "Installed-Size: " (1 + rnd(90000)) > status
        print "Maintainer: Test Maintainer " (i % 31) " <maint" (i % 31) "@example.org>" > status
        print "Architecture: " (rnd(6) == 0 ? "all" : "amd64") > status
        if (rnd(8) == 0) print "Multi-Arch: same" > status
        print "Source: " word(i * 7 + 11) > status
        print "Version: " ver[i] > status
        if (i < n / 200) print "Essential: yes" > status
        if (rnd(5) == 0) {
            nv = 1 + rnd(2); s = ""
            for (k = 0; k < nv; k++) {
                v = "virt-" word(rnd(nvirt) * 13 + 5)
                s = (s == "") ? v : s ", " v
            }
            print "Provides: " s > status
        }
        if (rnd(12) == 0 && i > 0) print "Pre-Depends: " deplist(i, 1 + rnd(2)) > status
        if (i > 0 && rnd(6) != 0) print "Depends: " deplist(i, 1 + rnd(6)) > status
        if (i > 0 && rnd(4) == 0) print "Recommends: " deplist(i, 1 + rnd(3)) > status
        if (i > 0 && rnd(5) == 0) print "Suggests: " deplist(i, 1 + rnd(4)) > status
        if (rnd(10) == 0) print "Conflicts: " pkg[rnd(n)] > status
        if (st == 0) print "Conffiles:\n /etc/" word(i) ".conf 0123456789abcdef0123456789abcdef" > status
        print "Description: synthetic package number " i " for the bibop client test" > status
        nl = 1 + rnd(5)
        for (k = 0; k < nl; k++)
            print " Line " k " of the long description of " pkg[i] " (" word(i + k) " " word(i * k + 1) ")." > status
        if (nl > 2) print " ." > status
        if (nl > 2) print " A second paragraph mentioning " pkg[rnd(n)] "." > status
        print "" > status
    }

    # The keeper file: about one package in six, plus names not installed.
    for (i = 0; i < n; i++)
        if (rnd(6) == 0) print pkg[i] > keepers
    for (k = 0; k < 25; k++)
        print "missing-" word(k * 3 + 1) "-" k > keepers
    close(status); close(keepers)
    if (names != "") close(names)
}
