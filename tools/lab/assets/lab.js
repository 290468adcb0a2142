// tokenlab lab: the page. Everything it shows comes from the server's JSON API
// (lab_api.hpp); nothing is loaded from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { tokenizers: [], bpe: null, bpeStep: 0, sweep: null };

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(json.error || response.statusText);
  return json;
}

function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

function element(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

const number = (x, digits = 2) => Number(x).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const integer = (x) => Math.round(x).toLocaleString("en-US");
const compact = (x) => x >= 1e9 ? number(x / 1e9) + " B" : x >= 1e6 ? number(x / 1e6) + " M" : integer(x);

// ---- chips -----------------------------------------------------------------

// tokens: [id, text, word, flags] (flags: 1 unknown, 2 byte fallback).
function chipsOf(tokens) {
  const box = element("div", { class: "chips" });
  let word = -1;
  let colour = 0;
  for (const [id, text, w, flags] of tokens) {
    if (w !== word && word !== -1) box.append(element("span", { class: "word-gap" }));
    word = w;
    const classes = ["chip", "c" + (colour++ % 5)];
    if (flags & 1) classes.push("unknown");
    if (flags & 2) classes.push("byte");
    box.append(element("span", { class: classes.join(" "), title: "id " + id, "data-id": id, text }));
  }
  return box;
}

function selectedTokenizers() {
  return [...document.querySelectorAll("#tokenizer-choice input:checked")].map((i) => i.value);
}

const encodeLive = debounce(async () => {
  const text = $("text").value;
  const out = $("chips");
  try {
    const { results } = await api("/api/encode", { text, tokenizers: state.tokenizers.map((t) => t.name) });
    const shown = new Set(selectedTokenizers());
    out.replaceChildren(...results.filter((r) => shown.has(r.name)).map((r) => {
      const head = element("div", { class: "head" });
      head.innerHTML = `<b>${r.name}</b> · <span class="token-count">${r.token_count}</span> tokens · ` +
        `${number(r.characters_per_token)} characters per token` + (r.unknown ? ` · ${r.unknown} unknown` : "");
      return element("div", { class: "tokenizer", "data-name": r.name }, head, chipsOf(r.tokens));
    }));
    drawRace(results);
    out.dataset.ready = "1";
  } catch (e) {
    out.replaceChildren(element("p", { class: "error", text: e.message }));
  }
}, 120);

function drawRace(results) {
  const builtIn = ["character", "word", "bpe", "wordpiece", "unigram"];
  const rows = results.filter((r) => builtIn.includes(r.name));
  const most = Math.max(1, ...rows.map((r) => r.token_count));
  $("race-table").tBodies[0].replaceChildren(...rows.map((r) => element("tr", {},
    element("td", { text: r.name }),
    element("td", { class: "num", text: integer(r.token_count) }),
    element("td", { class: "num" + (r.unknown ? " error" : ""), text: integer(r.unknown) }),
    element("td", { class: "num", text: number(r.characters_per_token) }),
    element("td", {}, element("div", { class: "bar", style: `width:${(300 * r.token_count) / most}px` })))));
}

// ---- BPE by hand ------------------------------------------------------------

async function loadBpe() {
  $("bpe-status").textContent = "training…";
  try {
    state.bpe = await api("/api/bpe", {
      words: $("bpe-words").value, merges: Number($("bpe-merges").value), encode: $("bpe-word").value.trim(),
    });
    state.bpeStep = 0;
    $("bpe-status").textContent = `${state.bpe.start_tokens} tokens and ${state.bpe.start_symbols} symbols at the start; ` +
      `${state.bpe.steps.length} merges` + (state.bpe.note ? " · " + state.bpe.note.trim() : "");
    showBpeStep();
  } catch (e) {
    state.bpe = null;
    $("bpe-status").textContent = "";
    $("bpe-status").append(element("span", { class: "error", text: e.message }));
  }
}

function showBpeStep() {
  const walk = state.bpe;
  if (!walk) return;
  const k = state.bpeStep;
  const step = k > 0 ? walk.steps[k - 1] : null;
  $("bpe-step").textContent = k;
  $("bpe-tokens").textContent = step ? step.tokens : walk.start_tokens;
  $("bpe-vocabulary").textContent = step ? step.vocabulary : walk.start_symbols;
  $("bpe-merged").textContent = step ? `${step.merged.left} + ${step.merged.right} (${step.merged.count})` : "–";
  $("bpe-back").disabled = k === 0;
  $("bpe-forward").disabled = k === walk.steps.length;
  const next = walk.steps[k];  // the pairs as they stand now, before the next merge
  const pairs = next ? next.pairs : [];
  const chosen = next ? next.merged : null;
  // The server lists at most walk.pairs_shown pairs (the most frequent) and
  // tied pairs; pairs_total and tied_total count them all.
  const tiedTotal = next ? (next.tied_total ?? next.tied.length) : 0;
  if (next && tiedTotal > 1) {
    $("bpe-tie").textContent = `Next: ${tiedTotal} pairs share the top count ${chosen.count} (` +
      next.tied.map((p) => p.left + " + " + p.right).join(", ") + (tiedTotal > next.tied.length ? ", …" : "") +
      `); ${chosen.left} + ${chosen.right} is seen first and wins.`;
  } else {
    $("bpe-tie").textContent = next ? `Next: ${chosen.left} + ${chosen.right}, the one pair with count ${chosen.count}.` : "No more merges.";
  }
  const tied = new Set(next ? next.tied.map((p) => p.left + "\u0000" + p.right) : []);
  const rows = pairs.map((p) => {
    const key = p.left + "\u0000" + p.right;
    const isChosen = chosen && key === chosen.left + "\u0000" + chosen.right;
    return element("tr", { class: isChosen ? "chosen" : tied.has(key) ? "tied" : "" },
      element("td", { text: `${p.left} + ${p.right}` }), element("td", { class: "num", text: p.count }));
  });
  const pairsTotal = next ? (next.pairs_total ?? pairs.length) : 0;
  if (pairsTotal > pairs.length) {
    rows.push(element("tr", {}, element("td", { colspan: "2", text: `the ${pairs.length} most frequent of ${pairsTotal} pairs` })));
  }
  $("bpe-pairs").tBodies[0].replaceChildren(...rows);
  const vocabulary = [...walk.alphabet, ...walk.steps.slice(0, k).map((s) => s.merged.left + s.merged.right)];
  $("bpe-vocab-list").replaceChildren(...vocabulary.map((v, i) =>
    element("span", { class: "chip c" + (i < walk.alphabet.length ? 0 : 2), text: v })));
  const encoded = step ? step.encoded : walk.encoded_at_start;
  $("bpe-encoded").replaceChildren(...encoded.map((s, i) => element("span", { class: "chip c" + (i % 5), text: s })));
}

// ---- vocabulary size ----------------------------------------------------------

async function pollSweep() {
  try {
    const sweep = await api("/api/sweep");
    if (sweep.status === "running") {
      $("sweep-status").textContent = `training the sweep: ${Math.round(100 * sweep.progress)}% (${sweep.stage})`;
      setTimeout(pollSweep, 500);
      return;
    }
    if (sweep.status === "failed") {
      $("sweep-status").textContent = "";
      $("sweep-status").append(element("span", { class: "error", text: sweep.error }));
      return;
    }
    state.sweep = sweep;
    $("sweep-status").textContent = "";
    const algorithms = [...new Set(sweep.points.map((p) => p.algorithm))];
    $("sweep-algorithm").replaceChildren(...algorithms.map((a) => element("option", { value: a, text: a })));
    if (algorithms.includes("bpe")) $("sweep-algorithm").value = "bpe";
    sweepAlgorithmChanged();
  } catch (e) {
    $("sweep-status").textContent = e.message;
  }
}

function sweepPoints() {
  if (!state.sweep) return [];
  const a = $("sweep-algorithm").value;
  return state.sweep.points.filter((p) => p.algorithm === a).sort((x, y) => x.requested - y.requested);
}

function sweepAlgorithmChanged() {
  const points = sweepPoints();
  $("vocab-slider").max = Math.max(0, points.length - 1);
  $("vocab-slider").value = Math.min(Number($("vocab-slider").value), points.length - 1);
  showSweep();
}

function showSweep() {
  const points = sweepPoints();
  if (points.length === 0) return;
  const p = points[Number($("vocab-slider").value)];
  const width = Math.max(1, Number($("sweep-width").value) || 1);
  $("sweep-size").textContent = integer(p.vocab_size) + (p.vocab_size < p.requested ? ` (asked ${integer(p.requested)})` : "");
  $("sweep-tokens-per-word").textContent = number(p.tokens_per_word, 3);
  $("sweep-characters-per-token").textContent = number(p.characters_per_token, 3);
  $("sweep-unknown").textContent = number(100 * p.unknown_rate, 3) + "%";
  $("sweep-window").textContent = integer(128000 / p.tokens_per_word);
  $("sweep-tied").textContent = compact(p.vocab_size * width);
  $("sweep-untied").textContent = compact(2 * p.vocab_size * width);
  drawSweep(points, p);
}

function drawSweep(points, current) {
  const svg = $("sweep-plot");
  const W = 600, H = 220, left = 50, bottom = 30, top = 10, right = 10;
  const xs = points.map((p) => Math.log(p.vocab_size));
  const ys = points.map((p) => p.tokens_per_word);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = 1, y1 = Math.max(...ys) * 1.05;
  const X = (x) => left + ((x - x0) / Math.max(1e-9, x1 - x0)) * (W - left - right);
  const Y = (y) => H - bottom - ((y - y0) / Math.max(1e-9, y1 - y0)) * (H - top - bottom);
  const path = points.map((p, i) => `${i ? "L" : "M"}${X(xs[i]).toFixed(1)},${Y(ys[i]).toFixed(1)}`).join(" ");
  const ticks = points.map((p, i) => `<text x="${X(xs[i])}" y="${H - 10}" font-size="10" text-anchor="middle">${compact(p.vocab_size)}</text>`).join("");
  svg.innerHTML = `<line x1="${left}" y1="${H - bottom}" x2="${W - right}" y2="${H - bottom}" stroke="#999"/>` +
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${H - bottom}" stroke="#999"/>` +
    `<text x="8" y="${top + 10}" font-size="11">tokens/word</text>${ticks}` +
    `<text x="${left}" y="${Y(y1) + 12}" font-size="10" text-anchor="end">${number(y1, 1)} </text>` +
    `<path d="${path}" fill="none" stroke="#2f6fdf" stroke-width="2"/>` +
    `<circle cx="${X(Math.log(current.vocab_size))}" cy="${Y(current.tokens_per_word)}" r="5" fill="#c62828"/>`;
}

// ---- cost and context -------------------------------------------------------

const costLive = debounce(async () => {
  try {
    const { results } = await api("/api/encode", { text: $("cost-text").value, tokenizers: state.tokenizers.map((t) => t.name) });
    const price = Number($("cost-price").value) || 0;
    $("cost-table").tBodies[0].replaceChildren(...results.map((r) => element("tr", {},
      element("td", { text: r.name }),
      element("td", { class: "num", text: integer(r.token_count) }),
      element("td", { class: "num", text: number(r.characters_per_token) }),
      element("td", { class: "num", text: number((100 * r.token_count) / 128000, 3) + "%" }),
      element("td", { class: "num", text: "$" + number((price * r.token_count) / 1e6, 6) }))));
  } catch (e) {
    $("cost-table").tBodies[0].replaceChildren(element("tr", {}, element("td", { class: "error", text: e.message })));
  }
}, 200);

const strawberryLive = debounce(async () => {
  const word = $("straw-word").value;
  const letter = $("straw-letter").value.toLowerCase();
  try {
    const { results } = await api("/api/encode", { text: word, tokenizers: state.tokenizers.map((t) => t.name) });
    $("straw-table").tBodies[0].replaceChildren(...results.map((r) => {
      const counts = r.tokens.map(([, text]) => letter ? [...text.toLowerCase()].filter((c) => c === letter).length : 0);
      return element("tr", {}, element("td", { text: r.name }), element("td", {}, chipsOf(r.tokens)),
        element("td", { text: r.tokens.map(([, text], i) => `${text.trim() || text}: ${counts[i]}`).join(" · ") }));
    }));
  } catch (e) {
    $("straw-table").tBodies[0].replaceChildren(element("tr", {}, element("td", { class: "error", text: e.message })));
  }
}, 150);

// ---- sampling ---------------------------------------------------------------

let sampleSeed = 1;
async function drawSamples() {
  try {
    const { samples } = await api("/api/sample", {
      tokenizer: $("sample-tokenizer").value, word: $("sample-word").value.trim(), count: 10, seed: sampleSeed++,
    });
    const distinct = new Set(samples.map((s) => s.join("\u0000"))).size;
    $("sample-status").textContent = `${distinct} different segmentations in ${samples.length} draws`;
    $("sample-list").replaceChildren(...samples.map((s) => element("li", {},
      chipsOf(s.map((text, i) => [i, text, 0, 0])))));
  } catch (e) {
    $("sample-status").textContent = "";
    $("sample-status").append(element("span", { class: "error", text: e.message }));
  }
}

// ---- start ------------------------------------------------------------------

async function start() {
  const info = await api("/api/tokenizers");
  state.tokenizers = info.tokenizers;
  $("tokenizer-choice").replaceChildren(...info.tokenizers.map((t) => {
    const box = element("input", { type: "checkbox", value: t.name });
    box.checked = !t.pretrained || info.tokenizers.filter((u) => u.pretrained).indexOf(t) < 2;
    box.addEventListener("change", encodeLive);
    return element("label", { title: `${t.algorithm}, ${integer(t.vocab_size)} ids` }, box, " " + t.name);
  }));
  $("sample-tokenizer").replaceChildren(...info.tokenizers.filter((t) => t.sampling)
    .map((t) => element("option", { value: t.name, text: t.name })));
  if (info.tokenizers.some((t) => t.name === "unigram" && t.sampling)) $("sample-tokenizer").value = "unigram";
  $("text").value = info.opening_texts.join("\n");
  $("cost-text").value = info.opening_texts.join("\n");
  $("text").addEventListener("input", encodeLive);
  $("cost-text").addEventListener("input", costLive);
  $("cost-price").addEventListener("input", costLive);
  $("straw-word").addEventListener("input", strawberryLive);
  $("straw-letter").addEventListener("input", strawberryLive);
  $("bpe-load").addEventListener("click", loadBpe);
  $("bpe-forward").addEventListener("click", () => { state.bpeStep = Math.min(state.bpeStep + 1, state.bpe.steps.length); showBpeStep(); });
  $("bpe-back").addEventListener("click", () => { state.bpeStep = Math.max(state.bpeStep - 1, 0); showBpeStep(); });
  $("vocab-slider").addEventListener("input", showSweep);
  $("sweep-width").addEventListener("input", showSweep);
  $("sweep-algorithm").addEventListener("change", sweepAlgorithmChanged);
  $("sample-draw").addEventListener("click", drawSamples);
  encodeLive();
  costLive();
  strawberryLive();
  loadBpe();
  pollSweep();
}

start().catch((e) => document.body.prepend(element("p", { class: "error", text: "tokenlab lab: " + e.message })));
