# plot-markheap.awk: SVG plot of CPU ns per marked object against heap size
# for the five configurations and the random-load limit, from the raw lines
# of run-markheap.sh. Plain awk writing SVG by hand: no plotting package is
# needed on the machine that runs the benchmark (gnuplot, python and R are
# not dependencies of bibop).
function median(list,    n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  for (i = 3; i <= NF; i++) if ($i ~ /^(cpu_ns_per_obj|ns_per_load)=/) {
    split($i, kv, "="); k = $1 SUBSEP $2
    v[k] = (k in v) ? v[k] " " kv[2] : kv[2]
  }
}
function X(s) { return L + (W - L - R) * (log(s) - log(xmin)) / (xmax > xmin ? log(xmax) - log(xmin) : 1) }
function Y(y) { return H - B - (H - B - T) * y / ymax }
END {
  W = 720; H = 440; L = 70; R = 170; T = 40; B = 50
  ns = split(sizes, sz, " "); xmin = sz[1]; xmax = sz[1]
  for (i = 1; i <= ns; i++) { if (sz[i] + 0 < xmin + 0) xmin = sz[i]; if (sz[i] + 0 > xmax + 0) xmax = sz[i] }
  nc = split("bibop bibop-nopf bibop-hash bibop-nothp stock limit", cfg, " ")
  split("#1f77b4 #ff7f0e #2ca02c #9467bd #d62728 #555555", col, " ")
  ymax = 0
  for (k in v) { split(k, p, SUBSEP); if (p[1] !~ /^pf-/) { med[k] = median(v[k]); if (med[k] + 0 > ymax) ymax = med[k] + 0 } }
  if (ymax == 0) ymax = 1
  step = 10 ^ int(log(ymax) / log(10)); if (ymax / step < 3) step /= 2; ymax = (int(ymax / step) + 1) * step
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H
  printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
  printf "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>\n", L, title
  for (y = 0; y <= ymax + step / 2; y += step) {
    printf "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", L, W - R, Y(y), Y(y)
    printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, Y(y) + 4, y
  }
  for (i = 1; i <= ns; i++)
    printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", X(sz[i]), H - B + 18, sz[i]
  printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">heap size (MiB, log scale)</text>\n", (L + W - R) / 2, H - 12
  printf "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">CPU ns per marked object (limit: per load)</text>\n", (T + H - B) / 2
  printf "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, W - R, H - B, H - B
  for (ci = 1; ci <= nc; ci++) {
    c = cfg[ci]; pts = ""
    for (i = 1; i <= ns; i++) if ((c SUBSEP sz[i]) in med) pts = pts sprintf("%.1f,%.1f ", X(sz[i]), Y(med[c SUBSEP sz[i]]))
    if (pts == "") continue
    printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>\n", col[ci], c == "limit" ? " stroke-dasharray=\"6,4\"" : "", pts
    n = split(pts, q, " ")
    for (i = 1; i <= n; i++) { split(q[i], xy, ","); printf "<circle cx=\"%s\" cy=\"%s\" r=\"3\" fill=\"%s\"/>", xy[1], xy[2], col[ci] }
    printf "\n<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>", W - R + 12, W - R + 36, T + 20 * ci, T + 20 * ci, col[ci]
    printf "<text x=\"%d\" y=\"%d\">%s</text>\n", W - R + 42, T + 20 * ci + 4, c == "limit" ? "random-load limit" : c
  }
  print "</svg>"
}
