// bench label: the labelling workbench's page. Every text of the corpus
// and the labels reaches the page through textContent or text nodes, never
// as markup; every request carries the session token.
'use strict';

const token = document.querySelector('meta[name="bench-token"]').content;
const $ = (sel) => document.querySelector(sel);

let state = null;          // GET /api/state
let listName = 'all';
let items = [];            // the work list shown
let active = -1;           // its selected item
let cur = null;            // the question edited: {isNew, view}
let activePassage = -1;    // the passage grade keys act on
let docView = null;        // the document shown: {id, text, len, u16}
let extraMarks = [];       // marks besides the question's passages: {doc, s, e, cls}
let openHit = -1;

async function api(path, body) {
  const opt = {headers: {'X-Bench-Token': token}};
  if (body !== undefined) {
    opt.method = 'POST';
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  const r = await fetch(path, opt);
  const ct = r.headers.get('Content-Type') || '';
  const data = ct.startsWith('application/json') ? await r.json() : {error: await r.text()};
  if (!r.ok) {
    const e = new Error(data.error || r.statusText);
    e.data = data;
    throw e;
  }
  return data;
}

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

function clip(s, n) {
  const cps = Array.from(s);
  return cps.length > n ? cps.slice(0, n).join('') + '…' : s;
}

function banner(msg, isError, problems) {
  const b = $('#banner');
  b.textContent = '';
  if (!msg) { b.hidden = true; return; }
  b.hidden = false;
  b.className = isError ? 'error' : '';
  b.append(msg);
  for (const p of problems || []) b.append(el('div', {}, p.message, p.hint ? el('span', {class: 'hint'}, ' — ' + p.hint) : null));
}

function report(e) { banner(e.message, true, e.data && e.data.problems); }

// ---- state and work lists ----

async function refreshState() {
  state = await api('/api/state');
  $('#labels-path').textContent = state.labels;
  const ready = state.cells.filter((c) => c.state === 'ready').length;
  const building = state.cells.filter((c) => c.state === 'building').length;
  const st = $('#status');
  st.textContent = `${state.counts.all || 0} question${state.counts.all === 1 ? '' : 's'} · retrievers: ${ready} of ${state.cells.length} ready` + (building ? ` (${building} building)` : '') + ' · ';
  st.append(el('span', {class: state.dirty ? 'dirty' : ''}, state.dirty ? `${state.dirty} unsaved` : 'saved'));
  $('#save').classList.toggle('dirty', state.dirty > 0);
  for (const b of document.querySelectorAll('.tabs button')) {
    const n = state.counts[b.dataset.list] || 0;
    b.querySelector('.n').textContent = n ? String(n) : '';
  }
  const dl = $('#slice-list');
  dl.textContent = '';
  for (const s of state.slices) dl.append(el('option', {value: s}));
  if (state.read_only) {
    banner('Read-only: ' + state.read_only, true);
    for (const id of ['#save', '#add-span', '#add-alt', '#delete-q']) $(id).disabled = true;
  }
  renderCells(state.cells);
  if (building) setTimeout(() => refreshState().catch(report), 1500);
}

function renderCells(cells) {
  const box = $('#cells-status');
  box.textContent = '';
  for (const c of cells) {
    if (c.state === 'ready') continue;
    box.append(el('div', {}, `${c.cell}: ${c.state}` + (c.note ? ` — ${c.note}` : '')));
  }
}

async function showList(name, keep) {
  listName = name;
  for (const b of document.querySelectorAll('.tabs button')) b.setAttribute('aria-selected', String(b.dataset.list === name));
  items = await api('/api/list?name=' + encodeURIComponent(name));
  if (!keep) active = -1;
  active = Math.min(active, items.length - 1);
  renderList();
}

function renderList() {
  const ol = $('#list-items');
  ol.textContent = '';
  ol.dataset.list = listName;
  if (items.length === 0) {
    ol.append(el('li', {class: 'muted'}, {all: 'No questions yet: + New question', unlabelled: 'Every question has a gold passage or is marked unanswerable',
      stale: 'Every label checks', missed: state && state.results ? 'The last run missed nothing' : 'No run read (bench label --results DIR, or run bench run first)',
      pool: state && state.results ? 'No unjudged passage in the top 10 of any cell' : 'No run read'}[listName]));
    return;
  }
  items.forEach((it, i) => {
    const li = el('li', {class: i === active ? 'active' : '', onclick: () => pick(i)});
    if (listName === 'stale') {
      li.append(el('span', {class: 'badge stale'}, it.status || 'problem'), it.id || `line ${it.line}`,
        el('div', {class: 'meta'}, clip(it.message, 140)));
    } else if (listName === 'missed') {
      li.append(el('span', {class: 'badge stale'}, `missed by ${it.cells.length}`), it.query,
        el('div', {class: 'meta'}, clip(it.text, 120)));
    } else if (listName === 'pool') {
      li.append(el('div', {}, clip(it.text, 110)),
        el('div', {class: 'meta'}, `${it.query}: ${clip(it.question, 80)} · returned ${it.hits.length}× (best rank ${Math.min(...it.hits.map((h) => h.rank))})`));
    } else {
      li.append(el('span', {class: 'badge ' + it.status}, it.status), it.id + ' ', el('span', {}, clip(it.question, 90)),
        el('div', {class: 'meta'}, `${it.gold} gold` + (it.slice ? ` · ${it.slice}` : '') + (it.edited ? ' · edited' : '')));
    }
    ol.append(li);
  });
  const a = ol.children[active];
  if (a) a.scrollIntoView({block: 'nearest'});
}

async function pick(i) {
  if (i < 0 || i >= items.length) return;
  active = i;
  renderList();
  const it = items[i];
  try {
    if (listName === 'missed') return await openMiss(it);
    if (listName === 'pool') return await openPoolPair(it);
    const id = it.id;
    if (!id) return banner(`line ${it.line}: ${it.message}`, true);
    await loadQuestion(id);
    if (listName === 'stale') {
      const p = cur.view.passages.find((q) => q.field === it.field);
      if (it.suggest) await showSuggestion(it.suggest);
      else if (p && p.placed) await openDoc(p.doc, {s: p.start, e: p.end});
    }
  } catch (e) { report(e); }
}

// ---- the question ----

async function loadQuestion(id) {
  const view = await api('/api/question?id=' + encodeURIComponent(id));
  cur = {isNew: false, view};
  activePassage = view.passages.length - 1;
  renderEditor();
  if (docView) renderDoc();
}

function newQuestion() {
  const taken = new Set(items.map((it) => it.id));
  let n = (state && state.counts.all || 0) + 1;
  while (taken.has('q-' + n)) n++;
  cur = {isNew: true, view: {id: 'q-' + n, question: '', slice: '', note: '', unanswerable: false, passages: [], problems: [], status: 'new'}};
  activePassage = -1;
  renderEditor();
  $('#q-text').focus();
  if (docView) renderDoc();
}

function renderEditor() {
  const v = cur.view;
  $('#q-id').value = v.id;
  $('#q-id').readOnly = !cur.isNew;
  $('#q-state').textContent = cur.isNew ? 'new (written when it gets a passage, a mark or a note)' : `line ${v.line} · ${v.status}`;
  $('#q-text').value = v.question;
  $('#q-slice').value = v.slice;
  $('#q-note').value = v.note;
  $('#q-unanswerable').checked = v.unanswerable;
  const ol = $('#passages');
  ol.textContent = '';
  v.passages.forEach((p, i) => {
    const grade = el('select', {title: 'grade', onchange: (e) => setGrade(i, +e.target.value)});
    for (const g of [1, 2, 3, 0]) {
      const o = el('option', {value: String(g)}, g === 0 ? '0 not relevant' : `grade ${g}`);
      if (g === p.grade) o.selected = true;
      grade.append(o);
    }
    const li = el('li', {class: (i === activePassage ? 'active ' : '') + (p.problem ? 'bad' : '')},
      el('div', {class: 'meta'}, `${p.doc} [${p.start}, ${p.end})` + (p.group ? ` · alternative ${String.fromCharCode(64 + p.group)}` : '') + (p.placed ? '' : ' · not placed')),
      el('div', {class: 'snippet'}, '“' + clip(p.text, 300) + '”'),
      p.problem ? el('div', {class: 'hint'}, p.problem) : null,
      el('div', {class: 'controls'}, grade,
        el('button', {onclick: () => { activePassage = i; if (p.placed) openDoc(p.doc, {s: p.start, e: p.end}).catch(report); }}, 'open'),
        el('button', {onclick: () => removePassage(i)}, 'remove')));
    ol.append(li);
  });
  if (v.passages.length === 0) ol.append(el('li', {class: 'muted'}, cur.view.unanswerable ? 'Marked: no answer in the corpus' : 'No passage yet'));
  const pb = $('#q-problems');
  pb.textContent = '';
  for (const p of v.problems || []) {
    const box = el('div', {class: 'problem'}, el('div', {}, `${p.field}: ${p.message}`));
    if (p.hint) box.append(el('div', {class: 'hint'}, 'hint: ' + p.hint));
    const acts = el('div', {class: 'row'});
    if (p.repair) acts.append(el('button', {class: 'accept', onclick: () => acceptRepair(p.field)}, 'Accept repair: ' + p.repair));
    if (p.suggest) acts.append(el('button', {onclick: () => showSuggestion(p.suggest).catch(report)}, `Show the nearest passage (${Math.round(100 * p.suggest.similarity)}% similar)`));
    box.append(acts);
    pb.append(box);
  }
}

function keptPassages() {
  return cur.view.passages.map((p) => ({orig: p.i, grade: p.grade, group: p.group}));
}

async function commit(passages) {
  if (!cur) return;
  const body = {id: $('#q-id').value.trim(), new: cur.isNew, question: $('#q-text').value, slice: $('#q-slice').value,
    note: $('#q-note').value, unanswerable: $('#q-unanswerable').checked, passages: passages || keptPassages()};
  try {
    const view = await api('/api/question', body);
    cur = {isNew: false, view};
    activePassage = Math.min(activePassage, view.passages.length - 1);
    banner('');
    renderEditor();
    if (docView) renderDoc();
    await refreshState();
    await showList(listName, true);
  } catch (e) {
    report(e);
    if (!cur.isNew) await loadQuestion(cur.view.id).catch(() => {});
  }
}

function setGrade(i, g) {
  const ps = keptPassages();
  ps[i].grade = g;
  if (g === 0) ps[i].group = 0;
  activePassage = i;
  return commit(ps);
}

function removePassage(i) {
  const ps = keptPassages();
  ps.splice(i, 1);
  return commit(ps);
}

async function addSelection(asAlternative) {
  if (!cur) newQuestion();
  const sel = selectionOffsets();
  if (!sel) return banner('Select the passage in the document first (with the mouse), then press a.', true);
  const ps = cur.isNew ? [] : keptPassages();
  const add = {doc: docView.id, start: sel.start, end: sel.end, grade: 1, group: 0};
  if (asAlternative) {
    const last = ps.length - 1;
    if (last < 0 || ps[last].grade === 0) return banner('An alternative stands beside an earlier relevant passage: add that one first.', true);
    let g = ps[last].group;
    if (!g) g = 1 + Math.max(0, ...ps.map((p) => p.group));
    ps[last].group = g;
    add.group = g;
  }
  ps.push(add);
  activePassage = ps.length - 1;
  window.getSelection().removeAllRanges();
  await commit(ps);
}

async function acceptRepair(field) {
  try {
    const view = await api('/api/repair', {id: cur.view.id, field});
    cur = {isNew: false, view};
    banner('Repair accepted (as bench labels check --fix writes it); save to write the file.');
    renderEditor();
    if (docView) renderDoc();
    await refreshState();
    await showList(listName, true);
  } catch (e) { report(e); }
}

async function deleteQuestion() {
  if (!cur || cur.isNew) return newQuestion();
  if (!window.confirm(`Delete question ${cur.view.id}?`)) return;
  try {
    await api('/api/delete', {id: cur.view.id});
    newQuestion();
    await refreshState();
    await showList(listName);
  } catch (e) { report(e); }
}

async function save() {
  try {
    const r = await api('/api/save', {});
    if (r.conflict) banner(r.conflict, true);
    else {
      // Nothing is unsaved any more, before the state is read again: a
      // server stopped in between must not leave the page asking "leave
      // the page?" for edits that are on disk.
      if (state) state.dirty = 0;
      banner(`Saved ${r.rows} questions to ${r.path}` + (r.recorded ? ' (every label checks; anchor record written)' : ` (${r.problems.length} label problems left: see Stale)`));
    }
    await refreshState();
    await showList(listName, true);
    if (cur && !cur.isNew) await loadQuestion(cur.view.id);
  } catch (e) { report(e); }
}

// ---- search ----

async function search() {
  const q = $('#q-text').value.trim();
  if (!q) return;
  $('#results-title').textContent = 'Searching…';
  try {
    const r = await api('/api/search?q=' + encodeURIComponent(q));
    renderCells(r.cells);
    $('#results-title').textContent = `${r.hits.length} passages pooled from the top ${10} of each retriever` + (r.notes.length ? ' · ' + r.notes.join('; ') : '');
    renderHits(r.hits.map((h) => ({doc: h.doc, s: h.start, e: h.end, text: h.text, tags: h.cells.map((c) => `${c.cell} #${c.rank}`)})));
  } catch (e) { $('#results-title').textContent = ''; report(e); }
}

async function find() {
  const q = $('#find').value;
  if (!q.trim()) return;
  try {
    const r = await api('/api/find?q=' + encodeURIComponent(q));
    $('#results-title').textContent = `${r.length} place${r.length === 1 ? '' : 's'} of the text (white space, quotes, dashes and case ignored)`;
    renderHits(r.map((f) => ({doc: f.doc, s: f.start, e: f.end, text: f.before.slice(-40) + f.text + f.after.slice(0, 40), tags: [`line ${f.line}`]})));
  } catch (e) { report(e); }
}

function renderHits(hits) {
  const ol = $('#results');
  ol.textContent = '';
  openHit = -1;
  hits.forEach((h, i) => {
    const li = el('li', {onclick: () => { openHit = i; markOpen(); openDoc(h.doc, {s: h.s, e: h.e}).catch(report); }},
      el('div', {class: 'meta'}, `${h.doc} [${h.s}, ${h.e})`),
      el('div', {class: 'snippet'}, clip(h.text, 260)),
      el('div', {}, ...h.tags.map((t) => el('span', {class: 'cellhit'}, t))));
    ol.append(li);
  });
}

function markOpen() {
  [...$('#results').children].forEach((li, i) => li.classList.toggle('open', i === openHit));
}

// ---- the document ----

function cpIndex(text) {
  const idx = [];
  let u = 0;
  for (const ch of text) { idx.push(u); u += ch.length; }
  idx.push(u);
  return Int32Array.from(idx);
}

function cpCount(s) {
  let n = 0;
  for (const _ of s) n++; // eslint-disable-line no-unused-vars
  return n;
}

async function openDoc(id, focus, cls) {
  if (!docView || docView.id !== id) {
    const d = await api('/api/doc?id=' + encodeURIComponent(id));
    docView = {id: d.id, text: d.text, len: d.len, u16: cpIndex(d.text)};
    $('#doc-id').textContent = d.id + (d.title ? ` — ${d.title}` : '') + ` (${d.len} code points)`;
  }
  extraMarks = extraMarks.filter((m) => m.keep);
  if (focus) extraMarks.push({doc: id, s: focus.s, e: focus.e, cls: cls || 'focus'});
  renderDoc();
  const f = $('#doc .' + (cls || 'focus'));
  if (f) f.scrollIntoView({block: 'center'});
}

function renderDoc() {
  const pre = $('#doc');
  pre.textContent = '';
  if (!docView) return;
  const marks = [];
  if (cur) {
    for (const p of cur.view.passages) {
      if (p.placed && p.doc === docView.id) marks.push({s: p.start, e: p.end, cls: p.grade === 0 ? 'nonrel' : (p.group ? 'alt' : 'gold')});
    }
  }
  for (const m of extraMarks) if (m.doc === docView.id) marks.push(m);
  const cuts = new Set([0, docView.len]);
  for (const m of marks) { cuts.add(Math.max(0, Math.min(docView.len, m.s))); cuts.add(Math.max(0, Math.min(docView.len, m.e))); }
  const pts = [...cuts].sort((a, b) => a - b);
  const frag = document.createDocumentFragment();
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i], b = pts[i + 1];
    const span = document.createElement('span');
    span.dataset.s = String(a);
    const cls = new Set(marks.filter((m) => m.s <= a && b <= m.e).map((m) => m.cls));
    if (cls.size) span.className = [...cls].join(' ');
    span.textContent = docView.text.slice(docView.u16[a], docView.u16[b]);
    frag.append(span);
  }
  pre.append(frag);
}

// selectionOffsets is the mouse selection in the document as code points
// [start, end), or null.
function selectionOffsets() {
  const sel = window.getSelection();
  if (!docView || !sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
  const r = sel.getRangeAt(0);
  const pre = $('#doc');
  if (!pre.contains(r.startContainer) || !pre.contains(r.endContainer)) return null;
  const s = pointCp(r.startContainer, r.startOffset), e = pointCp(r.endContainer, r.endOffset);
  if (s === null || e === null || e <= s) return null;
  return {start: s, end: e};
}

function pointCp(node, off) {
  const pre = $('#doc');
  if (node.nodeType === Node.TEXT_NODE) {
    const seg = node.parentElement;
    if (!seg || seg.dataset.s === undefined) return null;
    return Number(seg.dataset.s) + cpCount(node.data.slice(0, off));
  }
  const kids = node.childNodes;
  if (off < kids.length) return startOf(kids[off]);
  if (node === pre) return docView.len;
  return startOf(node) + cpCount(node.textContent);
}

function startOf(n) {
  const seg = n.nodeType === Node.TEXT_NODE ? n.parentElement : n;
  return seg && seg.dataset && seg.dataset.s !== undefined ? Number(seg.dataset.s) : null;
}

async function showSuggestion(sg) {
  await openDoc(sg.doc, {s: sg.start, e: sg.end}, 'suggest');
  banner(`The nearest passage (${Math.round(100 * sg.similarity)}% similar) is marked: select the right text and press a, then remove the stale passage.`);
}

// ---- missed and pool ----

async function openMiss(m) {
  await loadQuestion(m.query);
  await openDoc(m.doc, {s: m.start, e: m.end}, 'miss');
  $('#results-title').textContent = `Missed at k = ${m.k} by ${m.cells.length} cells: the gold passage is marked in red; each cell's top ${m.k} below. Label wrong, or retriever wrong?`;
  const hits = [];
  for (const c of m.cells) {
    for (const h of c.returned) {
      hits.push({doc: h.doc || '?', s: h.start, e: h.end, text: h.snippet, tags: [`${c.cell} #${h.rank}` + (h.relevant ? ' (relevant)' : ''), h.chunk]});
    }
  }
  renderHits(hits);
}

async function openPoolPair(p) {
  await loadQuestion(p.query);
  await openDoc(p.doc, {s: p.start, e: p.end});
  $('#results-title').textContent = `Pooled passage for ${p.query}: r relevant, x not relevant`;
  renderHits([{doc: p.doc, s: p.start, e: p.end, text: p.text, tags: p.hits.map((h) => `${h.cell} #${h.rank}`)}]);
}

async function judge(grade) {
  if (listName !== 'pool' || active < 0) return;
  const p = items[active];
  try {
    await api('/api/judge', {id: p.query, doc: p.doc, start: p.start, end: p.end, grade});
    banner(`${p.query}: judged ${grade ? 'relevant' : 'not relevant'}`);
    await refreshState();
    const at = active;
    await showList('pool', true);
    if (items.length) await pick(Math.min(at, items.length - 1));
  } catch (e) { report(e); }
}

// ---- keys ----

function typing(e) {
  const t = e.target;
  return t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement;
}

document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 's') { e.preventDefault(); save(); return; }
  if (e.key === 'Escape') { $('#help').hidden = true; if (typing(e)) e.target.blur(); return; }
  if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
  // Keys that move the focus into a text box do so when released, so that
  // the key's own character is never typed into the box.
  const focusOnUp = (sel) => document.addEventListener('keyup', () => $(sel).focus(), {once: true});
  const act = {
    '/': () => focusOnUp('#q-text'),
    'f': () => focusOnUp('#find'),
    'a': () => addSelection(false),
    'A': () => addSelection(true),
    'u': () => { $('#q-unanswerable').checked = !$('#q-unanswerable').checked; commit(); },
    'n': () => { newQuestion(); $('#q-text').blur(); focusOnUp('#q-text'); },
    'j': () => pick(active + 1),
    'k': () => pick(active - 1),
    'r': () => judge(1),
    'x': () => judge(0),
    '?': () => { $('#help').hidden = !$('#help').hidden; },
    '1': () => activePassage >= 0 && setGrade(activePassage, 1),
    '2': () => activePassage >= 0 && setGrade(activePassage, 2),
    '3': () => activePassage >= 0 && setGrade(activePassage, 3),
    '0': () => activePassage >= 0 && setGrade(activePassage, 0),
  }[e.key];
  if (act) { e.preventDefault(); act(); }
});

window.addEventListener('beforeunload', (e) => {
  if (state && state.dirty) { e.preventDefault(); e.returnValue = ''; }
});

function wire() {
  $('#save').addEventListener('click', save);
  $('#help-btn').addEventListener('click', () => { $('#help').hidden = !$('#help').hidden; });
  $('#new-q').addEventListener('click', newQuestion);
  $('#search-btn').addEventListener('click', search);
  $('#find-btn').addEventListener('click', find);
  $('#find').addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); find(); } });
  $('#q-text').addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); search(); } });
  $('#q-text').addEventListener('change', () => { if (cur && !cur.isNew) commit(); });
  $('#q-slice').addEventListener('change', () => commit());
  $('#q-note').addEventListener('change', () => commit());
  $('#q-unanswerable').addEventListener('change', () => commit());
  $('#add-span').addEventListener('mousedown', (e) => e.preventDefault()); // keep the selection
  $('#add-span').addEventListener('click', () => addSelection(false));
  $('#add-alt').addEventListener('mousedown', (e) => e.preventDefault());
  $('#add-alt').addEventListener('click', () => addSelection(true));
  $('#delete-q').addEventListener('click', deleteQuestion);
  for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showList(b.dataset.list).catch(report));
}

async function start() {
  wire();
  newQuestion();
  try {
    await refreshState();
    await showList('all');
    document.body.dataset.ready = 'true';
  } catch (e) { report(e); }
}

start();
