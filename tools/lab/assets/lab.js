// tokenlab lab: the page. Everything it shows comes from the server's JSON API
// (lab_api.hpp); nothing is loaded from elsewhere.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { tokenizers: [], bpe: null, bpeStep: 0, sweep: null };

// The access code, when the lab has one: from the URL (?code=) or typed in,
// sent with every API request as X-Access-Code.
const access = { code: new URLSearchParams(location.search).get("code") || sessionStorage.getItem("lab-code") || "" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One API request. 429 (this computer's share of the lab is used up) is
// retried after the server's Retry-After, a few times; 401 asks for the code.
async function api(path, body, tries = 3) {
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  if (access.code) headers["X-Access-Code"] = access.code;
  const response = await fetch(path, body === undefined ? { headers } : {
    method: "POST", headers, body: JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status === 429 && tries > 1) {
    await sleep(1000 * Math.min(10, Number(response.headers.get("Retry-After")) || 1));
    return api(path, body, tries - 1);
  }
  if (response.status === 401) askForCode(json.error);
  if (!response.ok) throw new Error(json.error || response.statusText);
  return json;
}

function askForCode(message) {
  $("access").hidden = false;
  $("access-status").textContent = access.code ? message : "";
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
  // The server sends the pairs ranked as BPE ranks them: count, then first seen.
  const rows = pairs.map((p) => {
    const key = p.left + "\u0000" + p.right;
    const isChosen = chosen && key === chosen.left + "\u0000" + chosen.right;
    return element("tr", { class: isChosen ? "chosen" : tied.has(key) ? "tied" : "" },
      element("td", { text: `${p.left} + ${p.right}` }), element("td", { class: "num", text: p.count }),
      element("td", { class: "first", text: p.first_word !== undefined ? `${p.first_word}, symbol ${p.first_position}` : "" }));
  });
  const pairsTotal = next ? (next.pairs_total ?? pairs.length) : 0;
  if (pairsTotal > pairs.length) {
    rows.push(element("tr", {}, element("td", { colspan: "3", text: `the ${pairs.length} most frequent of ${pairsTotal} pairs` })));
  }
  $("bpe-pairs").tBodies[0].replaceChildren(...rows);
  $("bpe-pairs-title").textContent = !next ? "Pair counts: no more merges" :
    (k === 0 ? "Pair counts at the start" : `Pair counts after step ${k}`) + `: step ${k + 1} merges the top one`;
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
    showSweep();
  } catch (e) {
    $("sweep-status").textContent = e.message;
  }
}

// The slider is a log scale from 256 to 256,000 entries; sizes that matter to
// the lesson (the sweep's, 32,000, 256,000, the real tokenizers') are stops it
// snaps to when near.
const SLIDER_MAX = 256000, SLIDER_STEPS = 1000;
// 256, or the sweep's smallest size if it trained smaller.
const sliderMin = () => Math.min(256, ...(state.sweep ? state.sweep.points.map((p) => p.vocab_size) : []));
const sliderSize = (v) => Math.exp(Math.log(sliderMin()) + (v / SLIDER_STEPS) * (Math.log(SLIDER_MAX) - Math.log(sliderMin())));
const sliderValue = (size) => Math.round(SLIDER_STEPS * (Math.log(size) - Math.log(sliderMin())) / (Math.log(SLIDER_MAX) - Math.log(sliderMin())));
// The widths of the models some real tokenizers belong to (for "its model").
const MODEL_WIDTHS = { gpt2: [768, "GPT-2 small"], llama3: [4096, "Llama 3 8B"] };

function sweepPoints() {
  if (!state.sweep) return [];
  const a = $("sweep-algorithm").value;
  return state.sweep.points.filter((p) => p.algorithm === a).sort((x, y) => x.vocab_size - y.vocab_size);
}

function sizeStops() {
  const stops = new Set([sliderMin(), 1000, 32000, 64000, 128000, SLIDER_MAX]);
  for (const p of state.sweep ? state.sweep.points : []) stops.add(p.vocab_size);
  for (const t of state.tokenizers) if (t.pretrained && t.vocab_size <= SLIDER_MAX) stops.add(t.vocab_size);
  return [...stops].sort((a, b) => a - b);
}

// The size the slider stands on: a stop when it is within half a step of one.
function chosenSize() {
  const v = Number($("vocab-slider").value);
  // A size set exactly (a real tokenizer's button) holds until the slider moves.
  if (state.exactSize && sliderValue(state.exactSize) === v) return state.exactSize;
  for (const stop of sizeStops()) if (Math.abs(sliderValue(stop) - v) <= 2) return stop;
  const size = sliderSize(v);
  const unit = Math.pow(10, Math.floor(Math.log10(size)) - 1);  // two significant figures
  return Math.round(size / unit) * unit;
}

function setSize(size) {
  state.exactSize = size;
  $("vocab-slider").value = sliderValue(size);
  showSweep();
}

function sweepAlgorithmChanged() {
  showSweep();
}

function showSweep() {
  const size = chosenSize();
  const width = Math.max(1, Number($("sweep-width").value) || 1);
  const reference = Math.max(1, Number($("sweep-reference").value) || 1);
  $("sweep-size").textContent = integer(size);
  $("sweep-tied").textContent = compact(size * width);
  $("sweep-untied").textContent = compact(2 * size * width);
  const delta = (size - reference) * width;
  $("sweep-delta").textContent = (delta >= 0 ? "+" : "−") + compact(Math.abs(delta)) +
    ` (${integer(reference)} to ${integer(size)} entries at d = ${integer(width)})`;
  showRealSizes(width);
  const points = sweepPoints();
  // The measured point: the largest trained at or below the size (else the smallest).
  const below = points.filter((p) => p.vocab_size <= size);
  const p = below.length ? below[below.length - 1] : points[0];
  if (!p) {
    drawSweep([], null, size);
    return;
  }
  const largest = points[points.length - 1];
  $("sweep-measured").textContent = integer(p.vocab_size) + (p.vocab_size < p.requested ? ` (asked ${integer(p.requested)})` : "") +
    (size > largest.vocab_size ? ` · the largest the sweep trained: the corpus is too small for ${integer(size)} entries` :
      p.vocab_size > size ? " · the smallest the sweep trained" :
        p.vocab_size !== size ? " · the nearest trained size below" : "");
  $("sweep-tokens-per-word").textContent = number(p.tokens_per_word, 3);
  $("sweep-characters-per-token").textContent = number(p.characters_per_token, 3);
  $("sweep-unknown").textContent = number(100 * p.unknown_rate, 3) + "%";
  $("sweep-window").textContent = integer(128000 / p.tokens_per_word);
  drawSweep(points, p, size);
}

function showRealSizes(width) {
  const real = state.tokenizers.filter((t) => t.pretrained).sort((a, b) => a.vocab_size - b.vocab_size);
  $("real-sizes").tBodies[0].replaceChildren(...real.map((t) => {
    const show = element("button", { text: t.name, title: `move the slider to ${integer(t.vocab_size)}` });
    show.addEventListener("click", () => setSize(Math.min(t.vocab_size, SLIDER_MAX)));
    const model = MODEL_WIDTHS[t.name];
    return element("tr", { "data-name": t.name }, element("td", {}, show),
      element("td", { class: "num", text: integer(t.vocab_size) }),
      element("td", { class: "num", text: compact(t.vocab_size * width) }),
      element("td", { class: "model", text: model ? `${model[1]}: ${integer(t.vocab_size)} × ${integer(model[0])} = ${compact(t.vocab_size * model[0])}` : "" }));
  }));
}

function drawSweep(points, current, size) {
  const svg = $("sweep-plot");
  const W = 640, H = 250, left = 58, bottom = 40, top = 16, right = 24;
  const lo = sliderMin(), x0 = Math.log(lo), x1 = Math.log(SLIDER_MAX);
  const ys = points.map((p) => p.tokens_per_word);
  const y0 = 1, y1 = Math.max(2, ...ys) * 1.05;
  const X = (v) => left + ((Math.log(v) - x0) / (x1 - x0)) * (W - left - right);
  const Y = (y) => H - bottom - ((y - y0) / Math.max(1e-9, y1 - y0)) * (H - top - bottom);
  const path = points.map((p, i) => `${i ? "L" : "M"}${X(p.vocab_size).toFixed(1)},${Y(p.tokens_per_word).toFixed(1)}`).join(" ");
  const xTicks = [lo, ...[1000, 4000, 16000, 64000, 256000].filter((v) => v > 2 * lo)].map((v, i, all) =>
    `<line x1="${X(v)}" y1="${H - bottom}" x2="${X(v)}" y2="${H - bottom + 4}" stroke="#999"/>` +
    `<text x="${X(v)}" y="${H - bottom + 16}" font-size="11" text-anchor="${i === 0 ? "start" : i === all.length - 1 ? "end" : "middle"}">${v >= 1000 ? Math.round(v / 1000) + "k" : v}</text>`).join("");
  const yTicks = [y0, (y0 + y1) / 2, y1].map((y) =>
    `<text x="${left - 6}" y="${Y(y) + 4}" font-size="11" text-anchor="end">${number(y, 1)}</text>`).join("");
  const real = state.tokenizers.filter((t) => t.pretrained && t.vocab_size <= SLIDER_MAX).map((t) =>
    `<line x1="${X(t.vocab_size)}" y1="${top}" x2="${X(t.vocab_size)}" y2="${H - bottom}" stroke="#bbb" stroke-dasharray="2,3"/>` +
    `<text class="real-mark" x="${X(t.vocab_size) - 3}" y="${top + 4}" font-size="10" fill="#777" text-anchor="end" transform="rotate(-90 ${X(t.vocab_size) - 3} ${top + 4})">${t.name}</text>`).join("");
  svg.innerHTML = `<line x1="${left}" y1="${H - bottom}" x2="${W - right}" y2="${H - bottom}" stroke="#999"/>` +
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${H - bottom}" stroke="#999"/>` +
    `<text x="14" y="${(top + H - bottom) / 2}" font-size="11" text-anchor="middle" transform="rotate(-90 14 ${(top + H - bottom) / 2})">tokens per word</text>` +
    `<text x="${(left + W - right) / 2}" y="${H - 4}" font-size="11" text-anchor="middle">vocabulary size (log scale)</text>` +
    xTicks + yTicks + real +
    (path ? `<path d="${path}" fill="none" stroke="#2f6fdf" stroke-width="2"/>` : "") +
    `<line x1="${X(size)}" y1="${top}" x2="${X(size)}" y2="${H - bottom}" stroke="#c62828" stroke-dasharray="4,3"/>` +
    (current ? `<circle cx="${X(current.vocab_size)}" cy="${Y(current.tokens_per_word)}" r="5" fill="#c62828"/>` : "");
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

// ---- your own language (section 7) ------------------------------------------

async function showLanguages(texts) {
  const names = state.tokenizers.map((t) => t.name);
  try {
    const counts = [];
    for (const t of texts) counts.push((await api("/api/encode", { text: t.text, tokenizers: names })).results);
    const head = element("tr", {}, element("th", { text: "tokenizer" }),
      ...texts.map((t, i) => element("th", { text: i === 0 ? `${t.language} tokens` : `${t.language} tokens (× ${texts[0].language})` })),
      element("th", { text: "unknown" }));
    $("lang-table").tHead.replaceChildren(head);
    $("lang-table").tBodies[0].replaceChildren(...names.map((name, n) => element("tr", { "data-name": name },
      element("td", { text: name }),
      ...counts.map((results, i) => {
        const r = results[n], base = counts[0][n].token_count;
        return element("td", { class: "num", text: i === 0 ? integer(r.token_count) : `${integer(r.token_count)} (× ${number(r.token_count / Math.max(1, base))})` });
      }),
      element("td", { class: "num", text: integer(counts.reduce((sum, results) => sum + results[n].unknown, 0)) }))));
  } catch (e) {
    $("lang-table").tBodies[0].replaceChildren(element("tr", {}, element("td", { class: "error", text: e.message })));
  }
}

const languageLive = debounce(async () => {
  try {
    const { results } = await api("/api/encode", { text: $("lang-text").value, tokenizers: selectedTokenizers() });
    $("lang-chips").replaceChildren(...results.map((r) => {
      const head = element("div", { class: "head" });
      head.innerHTML = `<b>${r.name}</b> · <span class="token-count">${r.token_count}</span> tokens` +
        (r.unknown ? ` · ${r.unknown} unknown` : "") + ` · ${r.tokens.filter((t) => t[3] & 2).length} byte chips`;
      return element("div", { class: "tokenizer", "data-name": r.name }, head, chipsOf(r.tokens));
    }));
    $("lang-chips").dataset.ready = "1";
  } catch (e) {
    $("lang-chips").replaceChildren(element("p", { class: "error", text: e.message }));
  }
}, 150);

async function checkFont(fonts) {
  const name = "NotoSansDevanagari-Regular.ttf";
  if (!fonts.includes(name)) {
    $("font-note").textContent = "This server has no Devanagari font to send (Debian: apt install fonts-noto-core, " +
      "then restart tokenlab lab). If the Hindi above shows as boxes, install a Devanagari font on this computer.";
    return;
  }
  try {
    await document.fonts.load('15px "Lab Devanagari"', "ब");
    $("font-note").textContent = "Devanagari is drawn with Noto Sans Devanagari, sent by the lab (from Debian's fonts-noto-core), " +
      "so it reads on a computer that has no font for it. Other scripts need a font on this computer.";
  } catch (e) {
    $("font-note").textContent = "The Devanagari font did not load: " + e.message;
  }
}

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

// The real tokenizers ticked at first: the two the labs talk about, if loaded.
const DEFAULT_REAL = ["gpt4o", "llama3"];

async function start() {
  $("access-go").addEventListener("click", () => {
    access.code = $("access-code").value.trim();
    sessionStorage.setItem("lab-code", access.code);
    location.reload();
  });
  const info = await api("/api/tokenizers");
  $("access").hidden = true;
  state.tokenizers = info.tokenizers;
  const real = info.tokenizers.filter((t) => t.pretrained);
  const defaults = real.some((t) => DEFAULT_REAL.includes(t.name)) ? DEFAULT_REAL : real.slice(0, 2).map((t) => t.name);
  $("tokenizer-choice").replaceChildren(...info.tokenizers.map((t) => {
    const box = element("input", { type: "checkbox", value: t.name });
    box.checked = !t.pretrained || defaults.includes(t.name);
    box.addEventListener("change", () => { encodeLive(); languageLive(); });
    return element("label", { title: `${t.algorithm}, ${integer(t.vocab_size)} ids` }, box, " " + t.name);
  }));
  $("sample-tokenizer").replaceChildren(...info.tokenizers.filter((t) => t.sampling)
    .map((t) => element("option", { value: t.name, text: t.name })));
  if (info.tokenizers.some((t) => t.name === "unigram" && t.sampling)) $("sample-tokenizer").value = "unigram";
  $("text").value = info.opening_texts.join("\n");
  $("cost-text").value = info.opening_texts.join("\n");
  const texts = info.multilingual_texts || [];
  $("lang-text").value = texts.length > 1 ? texts[texts.length - 1].text : "";
  $("text").addEventListener("input", encodeLive);
  $("cost-text").addEventListener("input", costLive);
  $("cost-price").addEventListener("input", costLive);
  $("lang-text").addEventListener("input", languageLive);
  $("straw-word").addEventListener("input", strawberryLive);
  $("straw-letter").addEventListener("input", strawberryLive);
  $("bpe-load").addEventListener("click", loadBpe);
  $("bpe-forward").addEventListener("click", () => { state.bpeStep = Math.min(state.bpeStep + 1, state.bpe.steps.length); showBpeStep(); });
  $("bpe-back").addEventListener("click", () => { state.bpeStep = Math.max(state.bpeStep - 1, 0); showBpeStep(); });
  $("vocab-slider").addEventListener("input", () => { state.exactSize = 0; showSweep(); });
  $("sweep-width").addEventListener("input", showSweep);
  $("sweep-reference").addEventListener("input", showSweep);
  $("sweep-algorithm").addEventListener("change", sweepAlgorithmChanged);
  $("sample-draw").addEventListener("click", drawSamples);
  encodeLive();
  costLive();
  strawberryLive();
  languageLive();
  loadBpe();
  showSweep();
  pollSweep();
  showLanguages(texts);
  checkFont(info.fonts || []);
}

start().catch((e) => document.body.prepend(element("p", { class: "error", text: "tokenlab lab: " + e.message })));
