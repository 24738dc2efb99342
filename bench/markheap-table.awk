# markheap-table.awk: Markdown tables from run-markheap.sh's raw lines
# ("CONFIG SIZE markheap key=value ..."): one table per heap size (medians
# over rounds), the targets of issue 7, and the prefetch curve. awk only, so
# the runner needs nothing beyond what a fresh machine has.
function median(list,    n, a, i, j, t) {
  n = split(list, a, " ")
  if (n == 0) return ""
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function add(key, v) { vals[key] = (key in vals) ? vals[key] " " v : v }
{
  config = $1; size = $2
  for (i = 3; i <= NF; i++) if (split($i, kv, "=") == 2) {
    add(config SUBSEP size SUBSEP kv[1], kv[2])
    last[config SUBSEP size SUBSEP kv[1]] = kv[2]
  }
  seen[config SUBSEP size] = 1
}
function m(c, s, k) { return median(vals[c SUBSEP s SUBSEP k]) }
function fmt(x, d) { return x == "" ? "-" : sprintf("%." d "f", x) }
END {
  nc = split("bibop bibop-nopf bibop-hash bibop-nothp stock", cfg, " ")
  ns = split(sizes, sz, " ")
  for (si = 1; si <= ns; si++) {
    s = sz[si]
    lim = m("limit", s, "ns_per_load")
    st = m("stock", s, "cpu_med_ms")
    bb = m("bibop", s, "cpu_med_ms")
    printf "#### %s MiB heap (%s blocks; random-load limit %s ns/load)\n\n", s, last["bibop" SUBSEP s SUBSEP "blocks"], fmt(lim, 1)
    print "| configuration | full GC wall (ms) | full GC CPU (ms) | CPU ns/object | × stock | × bibop | × load limit |"
    print "|---|---:|---:|---:|---:|---:|---:|"
    for (ci = 1; ci <= nc; ci++) {
      c = cfg[ci]
      if (!((c SUBSEP s) in seen)) continue
      cpu = m(c, s, "cpu_med_ms"); npo = m(c, s, "cpu_ns_per_obj")
      printf "| %s | %s | %s | %s | %s | %s | %s |\n", c, fmt(m(c, s, "gc_med_ms"), 1), fmt(cpu, 1), fmt(npo, 1),
             st ? fmt(cpu / st, 2) : "-", bb ? fmt(cpu / bb, 2) : "-", lim ? fmt(npo / lim, 2) : "-"
    }
    k = "bibop" SUBSEP s SUBSEP
    printf "\nbibop's marker (last run): %s candidates: not ours %s, free %s, static %s, object %s; heap %s KiB, %s KiB on huge pages.\n\n",
      last[k "candidates"], last[k "not_ours"], last[k "free"], last[k "cstatic"], last[k "object"],
      last[k "heap_committed_kib"], last[k "thp_kib"]
    if (s + 0 >= 1000 && st && bb) {
      hs = m("bibop-hash", s, "cpu_med_ms"); np = m("bibop-nopf", s, "cpu_med_ms")
      tgt = tgt sprintf("| %s | %s (≤ 0.50) | %s (≥ 30%%) | %s (≥ 20%%) | %s (≤ 2) |\n", s,
        fmt(bb / st, 2), np ? fmt(100 * (1 - bb / np), 0) "%" : "-", hs ? fmt(100 * (1 - bb / hs), 0) "%" : "-",
        lim ? fmt(m("bibop", s, "cpu_ns_per_obj") / lim, 2) : "-")
    }
  }
  if (tgt != "") {
    print "#### Targets (random heap ≥ 1 GB)\n"
    print "| heap MiB | bibop / stock | prefetching gain | one-load vs hash table | bibop / load limit |"
    print "|---|---:|---:|---:|---:|"
    printf "%s\n", tgt
  }
  for (k in seen) {
    split(k, p, SUBSEP)
    if (p[1] ~ /^pf-/) { pfsize = p[2]; have[substr(p[1], 4) + 0] = 1 }
    if (p[1] ~ /^sa-/) { sahave[substr(p[1], 4) + 0] = 1 }
  }
  if (pfsize != "") {
    printf "#### Prefetch FIFO size (BIBOP_PREFETCH, low mark 3/4 of it), %s MiB heap\n\n", pfsize
    print "| candidate FIFO | CPU ns/object | gain vs off |"
    print "|---:|---:|---:|"
    off = m("pf-0", pfsize, "cpu_ns_per_obj")
    n = split("0 4 8 16 32 64 128 256 512 1024", pfs, " ")
    for (i = 1; i <= n; i++) if (pfs[i] + 0 in have) {
      v = m("pf-" pfs[i], pfsize, "cpu_ns_per_obj")
      printf "| %s | %s | %s |\n", pfs[i] == 0 ? "off" : pfs[i], fmt(v, 1), off ? fmt(100 * (1 - v / off), 0) "%" : "-"
    }
    print ""
    print "| scan-ahead FIFO (BIBOP_PREFETCH_SCAN; candidate FIFO at its default) | CPU ns/object | gain vs off |"
    print "|---:|---:|---:|"
    n = split("1 2 4 8 16 32 64", sas, " ")
    for (i = 1; i <= n; i++) {
      v = sas[i] + 0 in sahave ? m("sa-" sas[i], pfsize, "cpu_ns_per_obj") : ""
      if (v != "") printf "| %s%s | %s | %s |\n", sas[i], sas[i] == 8 ? " (default)" : "", fmt(v, 1), off ? fmt(100 * (1 - v / off), 0) "%" : "-"
    }
    print ""
  }
}
