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

    // 3. BPE by hand: the textbook, 8 steps forward, each step as the trace has it.
    await page.waitForFunction(() => document.querySelector("#bpe-status").textContent.includes("symbols at the start"));
    expect("start", await page.$eval("#bpe-status", (e) => e.textContent.split(";")[0]), "107 tokens and 11 symbols at the start");
    for (let i = 0; i < 8; ++i) {
      await page.click("#bpe-forward");
      const row = trace[i];
      expect(`step ${i + 1} tokens`, await page.$eval("#bpe-tokens", (e) => e.textContent), row.tokens);
      expect(`step ${i + 1} vocabulary`, await page.$eval("#bpe-vocabulary", (e) => e.textContent), row.vocabulary);
      expect(`step ${i + 1} pair`, await page.$eval("#bpe-merged", (e) => e.textContent.replace(/ \(\d+\)$/, "")), row.pair);
    }
    expect("lowest after 8 merges", await page.$$eval("#bpe-encoded .chip", (cs) => cs.map((c) => c.textContent).join(" + ")), "low + est</w>");

    // 4. The slider: each position shows that sweep point's figures.
    await page.waitForFunction(() => document.querySelector("#sweep-size").textContent !== "–", { timeout: 120000 });
    const sweep = await page.evaluate(async () => (await (await fetch("/api/sweep")).json()).points.filter((p) => p.algorithm === "bpe"));
    const last = sweep.length - 1;
    await page.$eval("#vocab-slider", (s, v) => { s.value = v; s.dispatchEvent(new Event("input")); }, last);
    expect("slider size", await page.$eval("#sweep-size", (e) => e.textContent), sweep[last].vocab_size.toLocaleString("en-US"));
    expect("slider tokens per word", await page.$eval("#sweep-tokens-per-word", (e) => e.textContent),
      sweep[last].tokens_per_word.toLocaleString("en-US", { minimumFractionDigits: 3, maximumFractionDigits: 3 }));
    expect("untied parameters at d=4096", await page.$eval("#sweep-untied", (e) => e.textContent),
      (2 * sweep[last].vocab_size * 4096 / 1e6).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }) + " M");

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
