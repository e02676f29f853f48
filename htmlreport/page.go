package htmlreport

import (
	"fmt"
	"html/template"
	"math"
)

var funcs = template.FuncMap{
	// num prints a value with 4 decimals ("–" for NaN).
	"num": func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.4f", v)
	},
	// sortKey is a TableCell's data-v attribute ("" for NaN: sort by text).
	"sortKey": func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return fmt.Sprintf("%g", v)
	},
	// pairClass colours a matrix entry: "win" when the row cell is
	// significantly better than the column cell, "loss" when worse.
	"pairClass": func(d, p, alpha float64) string {
		switch {
		case math.IsNaN(p) || p > alpha:
			return ""
		case d > 0:
			return "win"
		case d < 0:
			return "loss"
		}
		return ""
	},
	"pval": func(p float64) string {
		switch {
		case math.IsNaN(p):
			return ""
		case p < 0.001:
			return "p < 0.001"
		}
		return fmt.Sprintf("p = %.3f", p)
	},
	"signed": func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%+.4f", v)
	},
	// interval prints [low, high] with signs ("[–, –]" when undefined:
	// NaN bounds).
	"interval": func(lo, hi float64) string {
		if math.IsNaN(lo) || math.IsNaN(hi) {
			return "[–, –]"
		}
		return fmt.Sprintf("[%+.4f, %+.4f]", lo, hi)
	},
}

var page = template.Must(template.New("report.html").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; margin: 0 auto; max-width: 1180px; padding: 0 1.2rem 3rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-top: 1.4rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
nav a { margin-right: .9rem; }
table { border-collapse: collapse; font-size: .88rem; margin: .6rem 0; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: right; white-space: nowrap; }
#main-table th { white-space: normal; min-width: 3.5rem; vertical-align: bottom; }
#main-table td:first-child, #main-table th:first-child { position: sticky; left: 0; background: #fff; z-index: 1; }
#main-table th:first-child { background: #f4f4f4; }
th { background: #f4f4f4; } td:first-child, th:first-child, td[data-v=""] { text-align: left; }
table.sortable th { cursor: pointer; user-select: none; } table.sortable th:hover { background: #e8eef7; }
th[data-dir="asc"]::after { content: " ▲"; } th[data-dir="desc"]::after { content: " ▼"; }
td.best { font-weight: bold; } td.win { background: #d9f2e3; } td.loss { background: #f8dcdc; }
.matrix td { font-size: .78rem; } .matrix td small { color: #555; display: block; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; } .charts figure { margin: 0; }
svg.chart { max-width: 100%; height: auto; }
.note { color: #555; font-size: .9rem; }
#misses { display: grid; grid-template-columns: minmax(260px, 1fr) 2fr; gap: 1rem; }
#miss-list { max-height: 32rem; overflow: auto; font-size: .88rem; padding-left: 0; list-style: none; margin: 0; }
#miss-list li { display: flex; gap: .4em; padding: .1rem 0; } #miss-list .num { flex: none; min-width: 2.6em; text-align: right; color: #555; }
#miss-list a.current { font-weight: bold; } .cause { display: inline-block; font-size: .78rem; padding: 0 .35em; border-radius: .25em; background: #eee; color: #333; }
#miss-detail { font-size: .9rem; min-width: 0; } #miss-detail li { margin-bottom: .35rem; overflow-wrap: anywhere; } #miss-detail li.rel { background: #d9f2e3; }
#miss-detail .snip { display: block; color: #333; } mark.gold { background: #ffe08a; } mark.term { background: none; font-weight: bold; text-decoration: underline; }
#miss-detail .detail { display: block; color: #555; font-size: .85rem; }
.wide { overflow-x: auto; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Summary}}<p class="note">{{.}}</p>
{{end}}<nav><a href="#table">Table</a><a href="#recall">Recall@k</a><a href="#slices">Slices</a>{{if .Comparisons}}<a href="#significance">Significance</a>{{end}}{{if .Matrix}}<a href="#matrix-section">All pairs</a>{{end}}{{if .History}}<a href="#history">History</a>{{end}}{{range .Sections}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}<a href="#misses-section">Misses</a></nav>

<h2 id="table">{{.Table.Caption}}</h2>
<p class="note">Click a column heading to sort.</p>
<div class="wide"><table class="sortable" id="main-table">
<thead><tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Table.Rows}}<tr>{{range .}}<td data-v="{{sortKey .Sort}}"{{if .Bold}} class="best"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>

<h2 id="recall">Recall@k</h2>
<p class="note">One chart per chunking, one line per retriever, k on a log scale. A dashed line is a rerank's ceiling: its input's recall at the rerank depth, which reordering cannot exceed.</p>
<div class="charts">{{range .RecallSVG}}<figure class="chart-recall">{{.}}</figure>
{{end}}</div>

<h2 id="slices">Primary metric by slice</h2>
<p class="note">Means over each group's answerable queries, with 95% Student-t confidence intervals.</p>
<div class="charts">{{range .SliceSVG}}<figure class="chart-slice">{{.}}</figure>
{{end}}</div>
{{with .Comparisons}}
<h2 id="significance">{{.Title}}: {{.Metric}}</h2>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}<figure class="chart-comparison">{{$.ComparisonSVG}}</figure>
<div class="wide"><table class="sortable" id="comparisons">
<thead><tr><th>cell</th><th>{{.Metric}}</th><th>vs</th><th>vs {{.Metric}}</th><th>difference</th><th>95% CI ({{.Interval}})</th><th>p (corrected)</th><th>verdict</th></tr></thead>
<tbody>{{range .Rows}}<tr><td data-v="">{{.A}}</td><td data-v="{{sortKey .MeanA}}">{{num .MeanA}}</td><td data-v="">{{.B}}</td><td data-v="{{sortKey .MeanB}}">{{num .MeanB}}</td><td data-v="{{sortKey .Diff}}"{{if .Class}} class="{{.Class}}"{{end}}>{{signed .Diff}}</td><td data-v="{{sortKey .Low}}">{{interval .Low .High}}</td><td data-v="">{{.P}}</td><td data-v=""{{if .Class}} class="{{.Class}}"{{end}}>{{.Verdict}}</td></tr>
{{end}}</tbody></table></div>
{{end}}{{with .Matrix}}
<h2 id="matrix-section">Significance of all pairs: {{.Metric}}</h2>
<p class="note">On request (significance.matrix). Each entry is row − column and its p-value after {{.Correction}} correction over the {{.Comparisons}} comparisons of all pairs, a family apart from the plan's ({{.Test}} test); green: the row is significantly better (p ≤ {{.Alpha}}), red: significantly worse.</p>
<div class="wide"><table class="matrix" id="matrix">
<thead><tr><th></th>{{range .Cells}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{$m := .}}{{range $i, $row := .Cells}}<tr><th>{{$row}}</th>{{range $j, $col := $m.Cells}}{{$d := index (index $m.Diff $i) $j}}{{$p := index (index $m.P $i) $j}}<td class="{{pairClass $d $p $m.Alpha}}">{{if ne $i $j}}{{signed $d}}<small>{{pval $p}}</small>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{if .History}}
<h2 id="history">History</h2>
<p class="note">This config's runs in its history CSV, this one last; a dashed line marks a change of dataset.</p>
<figure class="chart-history">{{.HistorySVG}}</figure>
{{end}}{{range $i, $s := .Sections}}
<h2 id="{{$s.ID}}">{{$s.Title}}</h2>
<p class="note">{{$s.Note}}</p>
{{with index $.SectionSVG $i}}<figure class="chart-section">{{.}}</figure>
{{end}}{{with $s.Table}}<div class="wide"><table class="sortable section-table">{{if .Caption}}<caption>{{.Caption}}</caption>{{end}}
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td data-v="{{sortKey .Sort}}"{{if .Bold}} class="best"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{end}}
<h2 id="misses-section">Misses at k = {{.Misses.K}}</h2>
<p class="note">Answerable queries with a gold passage missing from the top {{.Misses.K}}: pick a cell, then a query. Each miss shows its cause (docs/misses.md); in the texts, <mark class="gold">highlighted</mark> text is the missed gold passage's and <mark class="term">underlined</mark> words carry the query's terms.</p>
<p><label>Cell <select id="miss-cell"></select></label></p>
<div id="misses"><ol id="miss-list"></ol><div id="miss-detail"><p class="note">No query selected.</p></div></div>

<script type="application/json" id="misses-data">{{.MissesJSON}}</script>
<script>
"use strict";
document.querySelectorAll("table.sortable th").forEach(function (th, col) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0], rows = Array.from(body.rows);
    var dir = th.dataset.dir === "desc" ? "asc" : "desc";
    th.parentNode.querySelectorAll("th").forEach(function (h) { delete h.dataset.dir; });
    th.dataset.dir = dir;
    var numeric = rows.every(function (r) { return r.cells[col].dataset.v !== ""; });
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col];
      var c = numeric ? parseFloat(x.dataset.v) - parseFloat(y.dataset.v) : x.textContent.localeCompare(y.textContent);
      return dir === "asc" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
(function () {
  var M = JSON.parse(document.getElementById("misses-data").textContent);
  var sel = document.getElementById("miss-cell"), list = document.getElementById("miss-list"), detail = document.getElementById("miss-detail");
  function el(tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
  M.cells.forEach(function (c, i) {
    var n = M.misses.filter(function (m) { return m.c === i; }).length;
    var o = el("option", c + " (" + n + " missed)"); o.value = String(i); sel.appendChild(o);
  });
  // snip renders text index i with its marks ([start, end, kind] in code
  // points; kind 0 gold text, 1 a query term) as text nodes and <mark>
  // elements: never innerHTML, so the corpus' own markup stays text.
  function snip(i, marks) {
    var cps = Array.from(M.texts[i] || ""), kind = new Array(cps.length).fill(0);
    marks.forEach(function (x) { for (var j = x[0]; j < x[1] && j < cps.length; j++) kind[j] |= x[2] === 0 ? 1 : 2; });
    var out = el("span", undefined, "snip"), j = 0;
    while (j < cps.length) {
      var k = j; while (k < cps.length && kind[k] === kind[j]) k++;
      var part = cps.slice(j, k).join("");
      if (kind[j] === 0) out.appendChild(document.createTextNode(part));
      else out.appendChild(el("mark", part, ["", "gold", "term", "gold term"][kind[j]]));
      j = k;
    }
    return out;
  }
  function show(m, a) {
    list.querySelectorAll("a.current").forEach(function (x) { x.className = ""; });
    a.className = "current";
    var gold = el("ul", undefined, "gold-list");
    m.g.forEach(function (g) {
      var li = el("li");
      li.appendChild(el("strong", g[0]));
      li.appendChild(document.createTextNode(" (" + (g[1] ? "grade " + g[1] + ", " : "") + (g[2] ? "best rank " + g[2] : "not retrieved") + ") "));
      if (g[3]) li.appendChild(el("span", g[3], "cause"));
      if (g[4]) li.appendChild(el("span", g[4], "detail"));
      li.appendChild(snip(g[5], g[6]));
      gold.appendChild(li);
    });
    var got = el("ol", undefined, "returned");
    m.r.forEach(function (r) {
      var li = el("li", undefined, r[2] ? "rel" : "");
      li.appendChild(el("strong", r[0]));
      li.appendChild(document.createTextNode(" (" + r[1] + ")"));
      li.appendChild(snip(r[3], r[4]));
      got.appendChild(li);
    });
    detail.replaceChildren(el("h3", "Query " + m.q), el("p", M.queries[m.q] || ""), el("p", "Query terms: " + (m.t.length ? m.t.join(" ") : "none"), "note"),
      el("h4", "Gold missed from the top " + M.k), gold, el("h4", "What came back (relevant in green)"), got);
  }
  function showCell() {
    list.replaceChildren();
    var n = 0;
    M.misses.forEach(function (m, i) {
      if (String(m.c) !== sel.value) return;
      n++;
      // A query missing several passages has a row each: name the passage.
      var where = m.g.length === 1 && m.g[0][0].indexOf(" [") > 0 ? " — " + m.g[0][0] : "";
      var li = el("li"), a = el("a", m.q + ": " + (M.queries[m.q] || "") + where);
      a.href = "#miss-detail";
      a.dataset.miss = String(i);
      a.addEventListener("click", function (e) { e.preventDefault(); show(m, a); });
      li.appendChild(el("span", n + ".", "num"));
      li.appendChild(a); list.appendChild(li);
    });
    detail.replaceChildren(el("p", list.children.length ? "No query selected." : "No miss in this cell.", "note"));
  }
  sel.addEventListener("change", showCell);
  showCell();
})();
</script>
</body>
</html>
`))
