"""The review page's style sheet and script (`ai.review.page` puts them inline). The script
reads the page's data (`review-data`: the shared board pieces, one frame per decision, the
seats' names) and shows one decision at a time: the board, the status line (decision, round,
turn, who moves), the move played against the best move (a mistake or blunder with why), the
cursor on the chart; a row of the biggest mistakes shows its decision.
"""
from __future__ import annotations

__all__ = ["CSS", "SCRIPT"]

CSS = """
body{font-family:sans-serif;margin:12px;background:#f5f3ee;color:#222}
h1{font-size:18px;margin:0 0 6px}
#about{margin:0 0 4px}
#controls{margin:6px 0;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
#controls button{font-size:15px;padding:3px 10px}
#status{flex:1 1 320px;font-size:14px}
#layout{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
#main{flex:0 1 800px;min-width:0;max-width:800px}
#board{background:#fff;border:1px solid #ccc}
#board svg,#chart{display:block;width:100%;height:auto}
/* #status says where the game is; the board's own status text (right of its title)
   would repeat it and, when long, runs into the title */
#board #header text[text-anchor="end"]{display:none}
#side{flex:1 1 300px;min-width:0;max-width:420px}
#moves{height:520px;overflow-y:auto;background:#fff;border:1px solid #ccc;font-size:12px}
#moves div{padding:2px 6px;cursor:pointer;overflow-wrap:anywhere}
#moves .notation{color:#888;font-size:11px}
#notation-legend{font-size:12px;color:#555;margin-top:6px}
#notation-legend td{padding:0 4px;vertical-align:top}
#moves div.current{background:#ffe9a8}
#moves .mark{font-weight:bold;margin-left:4px}
table{border-collapse:collapse;font-size:12px;background:#fff}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}
#side table{max-width:100%}
#summary td{overflow-wrap:break-word}
#details{margin:0 0 8px}
#details .why{margin:4px 0;color:#444;font-size:13px}
#moves .why{display:block;color:#555;font-size:11px}
#biggest-mistakes{margin:4px 0 8px;font-size:12px}
#biggest-mistakes summary{cursor:pointer;font-weight:bold}
#biggest-mistakes .scroll{max-height:40vh;overflow-y:auto;max-width:1234px;margin-top:4px}
#biggest-mistakes tr[data-index]{cursor:pointer}
#biggest-mistakes tr[data-index]:hover{background:#ffe9a8}
#biggest-mistakes td.why{color:#555}
#result{font-weight:bold}
.inaccuracy{color:#b58900}.mistake{color:#d35400}.blunder{color:#c0392b}
"""

SCRIPT = """
(function(){
const DATA = JSON.parse(document.getElementById('review-data').textContent);
const D = DATA.frames, CH = DATA.chunks, NAMES = DATA.names, SOLO = DATA.solo;
const board = document.getElementById('board');
const rows = Array.from(document.querySelectorAll('#moves div'));
const cursor = document.getElementById('chart-cursor');
const points = document.querySelectorAll('.chart-point');
const xs = {};
points.forEach(function(p){ xs[p.dataset.index] = p.getAttribute('cx'); });
let cur = -1;
function num(n){ return n.toLocaleString('en-US'); }
function counted(n, one, many){ return num(n) + ' ' + (n === 1 ? one : (many || one + 's')); }
function esc(s){ return String(s).replace(/[&<>"]/g, function(c){
  return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]; }); }
function cells(r){ return '<td>' + r.map(esc).join('</td><td>') + '</td>'; }
function who(p){ return 'P' + p + (NAMES[p] ? ' (' + NAMES[p] + ')' : ''); }
function where(f){
  if (f.turn === 0) return 'setup (start locations)';
  let s = (f.round === null ? '' : 'round ' + num(f.round) + ', ') + 'turn ' + num(f.turn)
        + (SOLO ? '' : ', P' + f.turn_player + "'s turn");
  if (f.ea_used) s += ', executive action used';
  if (f.turns_left !== null) s += '; the end is triggered: ' + counted(f.turns_left, 'turn') + ' left';
  if (f.intermediate_done) s += '; intermediate scoring done';
  return s;
}
function lost(f){
  return SOLO ? '$' + f.loss.toFixed(1) + ' of expected money'
              : (100 * f.loss).toFixed(1) + '% of win probability';
}
function details(f){
  let h = '<b>' + esc(who(f.player)) + ' played ' + esc(f.move) + '</b>';
  if (f.description) h += ': ' + esc(f.description);
  if (f.label) h += '<br><span class="' + f.label + '">' + f.label + ': ' + lost(f)
                 + ' lost against the best move: ' + esc(f.best_description) + '</span>';
  if (f.why) h += '<div class="why">Why: ' + esc(f.why) + '</div>';
  if (f.hint_drawn) h += '<br>The arrow shows the best move (' + esc(f.best) + ').';
  h += '<table><tr><th></th><th>move</th>' + DATA.head + '</tr>'
     + '<tr><th>played</th>' + cells(f.played) + '</tr><tr><th>best</th>' + cells(f.best_row) + '</tr>';
  f.moves.forEach(function(m, k){ h += '<tr><th>' + (k + 1) + '</th>' + cells(m) + '</tr>'; });
  return h + '</table>';
}
function show(i){
  i = Math.max(0, Math.min(D.length - 1, i));
  if (i === cur) return;
  if (cur >= 0) rows[cur].classList.remove('current');
  cur = i;
  const f = D[i];
  board.innerHTML = f.svg.map(function(k){ return CH[k]; }).join('');
  board.dataset.index = i;
  rows[i].classList.add('current');
  rows[i].scrollIntoView({block: 'nearest'});
  document.getElementById('status').textContent = 'Decision ' + num(i + 1) + ' of ' + num(D.length)
    + ' \\u00b7 ' + where(f) + ' \\u00b7 ' + who(f.player) + ' to move';
  if (cursor && xs[i] !== undefined) { cursor.setAttribute('x1', xs[i]); cursor.setAttribute('x2', xs[i]); }
  document.getElementById('details').innerHTML = details(f);
}
rows.forEach(function(r){ r.addEventListener('click', function(){ show(+r.dataset.index); }); });
points.forEach(function(p){ p.addEventListener('click', function(){ show(+p.dataset.index); }); });
document.querySelectorAll('#biggest-mistakes tr[data-index]').forEach(function(r){
  r.addEventListener('click', function(){ show(+r.dataset.index); }); });
document.getElementById('first').onclick = function(){ show(0); };
document.getElementById('prev').onclick = function(){ show(cur - 1); };
document.getElementById('next').onclick = function(){ show(cur + 1); };
document.getElementById('last').onclick = function(){ show(D.length - 1); };
document.addEventListener('keydown', function(e){
  if (e.key === 'ArrowRight' || e.key === 'ArrowDown') { show(cur + 1); e.preventDefault(); }
  else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') { show(cur - 1); e.preventDefault(); }
  else if (e.key === 'Home') { show(0); e.preventDefault(); }
  else if (e.key === 'End') { show(D.length - 1); e.preventDefault(); }
});
show(0);
})();
"""
