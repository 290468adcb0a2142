// The lab page in headless Chromium (puppeteer-core driving Debian's chromium),
// as a student uses it: type text, step BPE forward 8 times, move the slider.
// The numbers on screen must be `tokenlab trace`'s and the API's.
//
//   node lab_browser.js URL TRACE_JSON SCREENSHOT
// TRACE_JSON: [{"pair": "e + s", "tokens": 98, "vocabulary": 12}, ...], the
// rows of `tokenlab trace bpe --marker suffix` for the textbook words.
// Exits 0 when everything matches, 1 (with the reason) otherwise.
"use strict";
const path = require("path");
const modules = process.env.TOKENLAB_REFERENCES_MODULES;
const puppeteer = require(modules ? path.join(modules, "puppeteer-core") : "puppeteer-core");

const [url, traceFile, screenshot] = process.argv.slice(2);
const trace = JSON.parse(require("fs").readFileSync(traceFile, "utf8"));
const failures = [];
const expect = (what, got, want) => {
  if (String(got) !== String(want)) failures.push(`${what}: the page shows ${got}, expected ${want}`);
};

(async () => {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on("pageerror", (e) => failures.push("page error: " + e.message));
    await page.goto(url, { waitUntil: "networkidle0" });

    // 1. Type text: every tokenizer's chips follow, with the API's counts.
    await page.waitForSelector("#chips[data-ready] .tokenizer");
    await page.$eval("#text", (e) => { e.value = ""; });
    await page.focus("#text");
    const typed = "Students tokenize the newest text.";
    await page.type("#text", typed, { delay: 5 });
    await new Promise((r) => setTimeout(r, 800));  // the last keystroke's request
    const api = await page.evaluate(async (text) => {
      const r = await fetch("/api/encode", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text, tokenizers: ["bpe"] }),
      });
      return (await r.json()).results[0];
    }, typed);
    const shown = await page.$$eval('#chips .tokenizer[data-name="bpe"] .chip', (cs) => cs.map((c) => c.textContent));
    expect("bpe chips", shown.join(" "), api.tokens.map((t) => t[1]).join(" "));
    expect("bpe token count", await page.$eval('#chips .tokenizer[data-name="bpe"] .token-count', (e) => e.textContent), api.token_count);

    // Section numbers are lab numbers: each link's number is its section's.
    const sections = await page.$$eval("nav a", (as) => as.map((a) => [a.textContent.split(" ")[0],
      document.querySelector(a.getAttribute("href") + " h2").textContent.split(" ")[0]]));
    expect("section numbers", sections.map((s) => s[0]).join(","), "1,2,3,4,5,7,8");
    for (const [link, heading] of sections) expect(`section ${link}'s heading`, heading, link);

    // 1. The page opens on English (what the models were trained on), and the
    // real tokenizers ticked are the labs' two, gpt4o and llama3.
    const opening = await page.$eval("#text", (e) => e.value);
    expect("the opening text has no Devanagari", /[\u0900-\u097F]/.test(opening), false);
    const realCount = Number(process.env.LAB_REAL_TOKENIZERS || 0);
    if (realCount > 0) {
      const ticked = await page.$$eval("#tokenizer-choice input", (is) => is.filter((i) => i.checked).map((i) => i.value));
      expect("ticked real tokenizers", ticked.filter((n) => !["character", "word", "bpe", "wordpiece", "unigram"].includes(n)).join(","), "gpt4o,llama3");
    }

    // 3. BPE by hand: the textbook, 8 steps forward, each step as the trace has
    // it; the pair table ranks by count with the tie rule, its top row the next merge.
    await page.waitForFunction(() => document.querySelector("#bpe-status").textContent.includes("symbols at the start"));
    expect("start", await page.$eval("#bpe-status", (e) => e.textContent.split(";")[0]), "107 tokens and 11 symbols at the start");
    const pairTable = () => page.$$eval("#bpe-pairs tbody tr", (rs) => rs.map((r) => ({
      chosen: r.classList.contains("chosen"), cells: [...r.cells].map((c) => c.textContent) })));
    let table = await pairTable();
    expect("the pair table's title", await page.$eval("#bpe-pairs-title", (e) => e.textContent), "Pair counts at the start: step 1 merges the top one");
    expect("step 1's top row", table[0].cells.join(" | "), "e + s | 9 | newest, symbol 4");
    expect("step 1's top row is bold", table[0].chosen, true);
    for (let i = 0; i < 8; ++i) {
      table = await pairTable();
      const counts = table.map((r) => Number(r.cells[1]));
      expect(`before step ${i + 1}: counts ranked`, counts.every((c, j) => j === 0 || c <= counts[j - 1]), true);
      expect(`before step ${i + 1}: the top row is the next merge`, table[0].cells[0], trace[i].pair);
      await page.click("#bpe-forward");
      const row = trace[i];
      expect(`step ${i + 1} tokens`, await page.$eval("#bpe-tokens", (e) => e.textContent), row.tokens);
      expect(`step ${i + 1} vocabulary`, await page.$eval("#bpe-vocabulary", (e) => e.textContent), row.vocabulary);
      expect(`step ${i + 1} pair`, await page.$eval("#bpe-merged", (e) => e.textContent.replace(/ \(\d+\)$/, "")), row.pair);
    }
    expect("lowest after 8 merges", await page.$$eval("#bpe-encoded .chip", (cs) => cs.map((c) => c.textContent).join(" + ")), "low + est</w>");

    // 4. The slider: a trained size shows that sweep point's figures; the slider
    // reaches 256,000; the plot's labels stay inside it and apart.
    await page.waitForFunction(() => document.querySelector("#sweep-measured").textContent !== "–", { timeout: 120000 });
    const sweep = await page.evaluate(async () => (await (await fetch("/api/sweep")).json()).points
      .filter((p) => p.algorithm === "bpe").sort((a, b) => a.vocab_size - b.vocab_size));
    const last = sweep[sweep.length - 1];
    await page.evaluate((size) => setSize(size), last.vocab_size);
    expect("slider size", await page.$eval("#sweep-size", (e) => e.textContent), last.vocab_size.toLocaleString("en-US"));
    expect("slider tokens per word", await page.$eval("#sweep-tokens-per-word", (e) => e.textContent),
      last.tokens_per_word.toLocaleString("en-US", { minimumFractionDigits: 3, maximumFractionDigits: 3 }));
    expect("untied parameters at d=4096", await page.$eval("#sweep-untied", (e) => e.textContent),
      (2 * last.vocab_size * 4096 / 1e6).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }) + " M");
    await page.$eval("#vocab-slider", (s) => { s.value = s.max; s.dispatchEvent(new Event("input")); });
    expect("the slider's largest size", await page.$eval("#sweep-size", (e) => e.textContent), "256,000");
    expect("32k to 256k at d=4096", await page.$eval("#sweep-delta", (e) => e.textContent.split(" (")[0]), "+917.50 M");
    const clipped = await page.$eval("#sweep-plot", (svg) => {
      const box = svg.viewBox.baseVal;
      const labels = [...svg.querySelectorAll("text")].filter((t) => !t.classList.contains("real-mark"));
      const rects = labels.map((t) => { const r = t.getBoundingClientRect(); return [t.textContent, r]; });
      const outer = svg.getBoundingClientRect();
      const problems = [];
      for (const [text, r] of rects) {
        if (r.left < outer.left - 0.5 || r.right > outer.right + 0.5 || r.top < outer.top - 0.5 || r.bottom > outer.bottom + 0.5) problems.push(`'${text}' is clipped`);
      }
      for (let i = 0; i < rects.length; ++i) for (let j = i + 1; j < rects.length; ++j) {
        const [a, ra] = rects[i], [b, rb] = rects[j];
        if (ra.left < rb.right && rb.left < ra.right && ra.top < rb.bottom && rb.top < ra.bottom) problems.push(`'${a}' overlaps '${b}'`);
      }
      return problems;
    });
    expect("the plot's labels", clipped.join("; "), "");
    if (realCount > 0) {
      await page.$eval("#sweep-width", (e) => { e.value = "768"; e.dispatchEvent(new Event("input")); });
      await page.click('#real-sizes tr[data-name="gpt2"] button');
      expect("GPT-2's size on the slider", await page.$eval("#sweep-size", (e) => e.textContent), "50,257");
      expect("GPT-2's embedding at d=768", await page.$eval("#sweep-tied", (e) => e.textContent), "38.60 M");
      expect("GPT-2's row", await page.$eval('#real-sizes tr[data-name="gpt2"] td.model', (e) => e.textContent),
        "GPT-2 small: 50,257 × 768 = 38.60 M");
    }

    // 7. Your own language: the same sentence per language, and partial UTF-8
    // in one notation, <0xNN>, never \xNN.
    await page.waitForSelector("#lang-table tbody tr[data-name]");
    expect("languages compared", await page.$$eval("#lang-table thead th", (ths) => ths.length), 1 + 3 + 1);
    await page.waitForSelector("#lang-chips[data-ready] .tokenizer");
    await page.$eval("#lang-text", (e) => { e.value = "नमस्ते दुनिया 🙂"; e.dispatchEvent(new Event("input")); });
    await new Promise((r) => setTimeout(r, 800));
    const chipTexts = await page.$$eval("#lang-chips .chip", (cs) => cs.map((c) => c.textContent));
    expect("no \\x notation", chipTexts.filter((t) => /\\x[0-9A-F]{2}/.test(t)).join(" "), "");
    expect("byte chips in <0xNN> notation", chipTexts.some((t) => /^(<0x[0-9A-F]{2}>)+$/.test(t)), true);
    const fonts = await page.evaluate(async () => (await (await fetch("/api/tokenizers")).json()).fonts);
    if (fonts.includes("NotoSansDevanagari-Regular.ttf")) {
      expect("the Devanagari font loads", await page.evaluate(async () => {
        await document.fonts.load('15px "Lab Devanagari"', "न");
        return document.fonts.check('15px "Lab Devanagari"', "न");
      }), true);
    } else {
      expect("the note on fonts", await page.$eval("#font-note", (e) => e.textContent.includes("fonts-noto-core")), true);
    }

    await page.screenshot({ path: screenshot, fullPage: true });
  } finally {
    await browser.close();
  }
  if (failures.length) {
    console.log(failures.join("\n"));
    process.exit(1);
  }
  console.log("the page shows the trace's and the API's numbers");
})().catch((e) => { console.log("error: " + e.message); process.exit(1); });
