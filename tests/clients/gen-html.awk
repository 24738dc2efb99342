# Generates a deterministic HTML page (about 1.5 MB by default) for
# tests/clients/w3m.sh: the real client w3m renders it with -dump on stock
# libgc and on bibop and the two renderings must be identical.
#
# Usage: awk -v kb=1500 -f gen-html.awk > page.html
# The page has headings, paragraphs with inline markup, links (to anchors in
# the page and to external URLs), nested ordered/unordered lists four levels
# deep, definition lists, preformatted blocks, block quotes, character
# entities, tables with borders, colspan/rowspan, alignment and tables nested
# in table cells, and a few form controls.  Pure POSIX awk; the
# pseudo-random numbers come from the Park-Miller generator, which is exact
# in double arithmetic, so the page depends only on the seed and on kb.

function rnd(m) {
    seed = (seed * 16807) % 2147483647
    return seed % m
}

function out(s) { printf "%s\n", s; bytes += length(s) + 1 }

function w() { return words[1 + rnd(nwords)] }

function phrase(k,    s, i) {
    s = w()
    for (i = 1; i < k; i++) s = s " " w()
    return s
}

function inline_text(k,    s, i, r) {   # k words with occasional markup
    s = ""
    for (i = 0; i < k; i++) {
        r = rnd(40)
        if (r == 0)      s = s " <b>" w() "</b>"
        else if (r == 1) s = s " <i>" w() " " w() "</i>"
        else if (r == 2) s = s " <code>" w() "_" rnd(1000) "()</code>"
        else if (r == 3) s = s " <a href=\"#sec" rnd(nsec_est) "\">" w() " " w() "</a>"
        else if (r == 4) s = s " <a href=\"http://www" rnd(50) ".example.org/" w() "/" rnd(100000) ".html?q=" w() "&amp;n=" rnd(99) "\">" w() "</a>"
        else if (r == 5) s = s " " ents[1 + rnd(nents)]
        else if (r == 6) s = s " <em>" w() "</em>,"
        else if (r == 7) s = s " " rnd(100000) "."
        else             s = s " " w()
    }
    return substr(s, 2)
}

function para() { out("<p>" inline_text(30 + rnd(90)) ".</p>") }

function list(depth,    tag, n, i) {
    tag = (rnd(2) == 0) ? "ul" : "ol"
    if (tag == "ol" && rnd(3) == 0) out("<ol type=\"" (rnd(2) ? "a" : "i") "\" start=\"" (1 + rnd(5)) "\">")
    else out("<" tag ">")
    n = 2 + rnd(5)
    for (i = 0; i < n; i++) {
        out("<li>" inline_text(3 + rnd(15)))
        if (depth < 4 && rnd(3) == 0) list(depth + 1)
        out("</li>")
    }
    out("</" tag ">")
}

function dlist(    n, i) {
    out("<dl>")
    n = 2 + rnd(4)
    for (i = 0; i < n; i++) {
        out("<dt>" phrase(1 + rnd(3)) "</dt>")
        out("<dd>" inline_text(10 + rnd(30)) "</dd>")
    }
    out("</dl>")
}

function pre(    n, i, j, s, ind) {
    out("<pre>")
    n = 3 + rnd(10)
    for (i = 0; i < n; i++) {
        ind = ""
        for (j = rnd(5); j > 0; j--) ind = ind "  "
        s = ind w() "(" rnd(1000) ", \"" w() "\") &lt;= " rnd(77) ";"
        out(s)
    }
    out("</pre>")
}

function small_table(    r, c, nr, nc) {
    out("<table border=\"1\">")
    nr = 2 + rnd(3); nc = 2 + rnd(2)
    for (r = 0; r < nr; r++) {
        out("<tr>")
        for (c = 0; c < nc; c++) out("<td>" phrase(1 + rnd(3)) "</td>")
        out("</tr>")
    }
    out("</table>")
}

function table(    r, c, nr, nc, span, skip, cell) {
    nr = 3 + rnd(12); nc = 3 + rnd(5)
    out("<table border=\"" rnd(2) "\" cellpadding=\"" rnd(3) "\"" (rnd(4) == 0 ? " width=\"90%\"" : "") ">")
    out("<caption>Table " ntables++ ": " phrase(3) "</caption>")
    out("<tr>")
    for (c = 0; c < nc; c++) out("<th>" w() " " c "</th>")
    out("</tr>")
    for (c = 0; c < nc; c++) skip[c] = 0
    for (r = 0; r < nr; r++) {
        out("<tr" (rnd(5) == 0 ? " align=\"right\"" : "") ">")
        for (c = 0; c < nc; c++) {
            if (skip[c] > 0) { skip[c]--; continue }
            span = ""
            if (rnd(12) == 0 && r + 1 < nr) { span = " rowspan=\"2\""; skip[c] = 1 }
            else if (rnd(10) == 0 && c + 1 < nc && skip[c + 1] == 0) { span = " colspan=\"2\""; c++ }
            cell = rnd(20)
            if (cell == 0) {
                out("<td" span ">")
                small_table()
                out("</td>")
            } else if (cell == 1) {
                out("<td" span "><ul><li>" w() "</li><li>" w() " " w() "</li></ul></td>")
            } else if (cell == 2) {
                out("<td" span " align=\"center\"><a href=\"#sec" rnd(nsec_est) "\">" w() "</a></td>")
            } else if (cell < 6) {
                out("<td" span ">" rnd(1000000) "." rnd(100) "</td>")
            } else {
                out("<td" span ">" inline_text(1 + rnd(12)) "</td>")
            }
        }
        out("</tr>")
    }
    out("</table>")
}

function form() {
    out("<form action=\"/submit\"><p>" w() ": <input type=\"text\" name=\"" w() "\" value=\"" w() "\" size=\"" (5 + rnd(20)) "\">")
    out("<input type=\"checkbox\" name=\"c" rnd(99) "\"" (rnd(2) ? " checked" : "") "> " w())
    out("<select name=\"s\"><option>" w() "</option><option selected>" w() "</option></select>")
    out("<input type=\"submit\" value=\"" w() "\"></p></form>")
}

BEGIN {
    if (kb == "") kb = 1500
    seed = 7771
    nwords = split("garbage collector heap object pointer mark sweep page block region arena " \
        "root stack register conservative precise finaliser weak link allocation free list size " \
        "class granule chunk table descriptor bitmap thread signal barrier generation pacing " \
        "external memory boxroot vector structure interior offset header kind atomic " \
        "uncollectable lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod " \
        "tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud " \
        "exercitation ullamco laboris nisi aliquip ex ea commodo consequat", words, " ")
    nents = split("&amp; &lt;tag&gt; &quot;quoted&quot; &copy; &eacute;t&eacute; &mdash; &nbsp;&nbsp;x " \
        "&#955;-calculus &#x263A; &hellip; &laquo;guillemets&raquo; &frac12; &micro;s &deg;C &euro;5", ents, " ")
    nsec_est = int(kb / 12) + 1

    out("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\">")
    out("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\">")
    out("<title>bibop client test page</title></head><body>")
    out("<h1>Generated test page for w3m on bibop</h1>")
    out("<p>Contents:</p>")
    out("<ol>")
    for (i = 0; i < nsec_est; i += 10) out("<li><a href=\"#sec" i "\">Section " i "</a></li>")
    out("</ol>")

    sec = 0
    while (bytes < kb * 1024) {
        out("<h2><a name=\"sec" sec "\">" sec ". " phrase(2 + rnd(4)) "</a></h2>")
        nb = 4 + rnd(8)
        for (b = 0; b < nb; b++) {
            k = rnd(16)
            if (k < 5)        para()
            else if (k < 8)   list(1)
            else if (k < 10)  table()
            else if (k == 10) dlist()
            else if (k == 11) pre()
            else if (k == 12) out("<blockquote><p>" inline_text(20 + rnd(40)) "</p></blockquote>")
            else if (k == 13) out("<h3>" phrase(3) "</h3>")
            else if (k == 14) form()
            else              out("<hr><p align=\"center\">" inline_text(8) "</p>")
        }
        sec++
    }
    out("<address>end of generated page, " sec " sections</address>")
    out("</body></html>")
}
