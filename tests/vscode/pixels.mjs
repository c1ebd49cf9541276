// Pixel checks on the chat webview: is a glyph (an underscore, a descender) on screen, or painted over?
// A screenshot of an element is compared with one taken with those glyphs' text made transparent (the
// layout unchanged): where a glyph is visible the two differ inside its box. PNG decoding with node's
// zlib, so no image library is needed.
import * as zlib from "node:zlib";

/** A PNG as 8-bit samples: `{width, height, channels, data}` (Chromium writes RGB or RGBA, not interlaced). */
export function decodePng(buffer) {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString("latin1", offset + 4, offset + 8);
    const body = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8];
      const color = body[9];
      if (depth !== 8 || body[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, interlace ${body[12]}`);
      channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[color];
      if (!channels) throw new Error(`unsupported PNG colour type ${color}`);
    } else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const data = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? data[out + x - channels] : 0;
      const b = y > 0 ? data[out - stride + x] : 0;
      const c = x >= channels && y > 0 ? data[out - stride + x - channels] : 0;
      let value = line[x];
      if (filter === 1) value += a;
      else if (filter === 2) value += b;
      else if (filter === 3) value += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        value += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      data[out + x] = value & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** How many pixels inside `box` (image pixels) differ clearly between two images of the same size. */
export function differing(a, b, box) {
  let count = 0;
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(a.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(a.height, Math.ceil(box.y + box.height));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * a.width + x) * a.channels;
      let delta = 0;
      for (let k = 0; k < Math.min(3, a.channels); k++) delta += Math.abs(a.data[i + k] - b.data[i + k]);
      if (delta > 60) count++;
    }
  }
  return count;
}

// Glyphs to look for, and where in their box they must show: the lower part for those that reach
// below the baseline (what a line under them would paint over), all of it for the backtick.
const GLYPHS = { "_": "bottom", "|": "bottom", g: "bottom", j: "bottom", p: "bottom", q: "bottom", y: "bottom", "`": "whole" };

/** A screenshot of `handle`'s box at `scale` times its CSS size (the page's layout is not changed). */
export async function zoomed(page, handle, scale) {
  const box = await handle.boundingBox();
  return page.screenshot({ type: "png", clip: { ...box, scale } });
}

/**
 * For the element `selector` (its `index`-th match) in the webview `frame`: each glyph of GLYPHS in its
 * text, with the count of pixels that show it (`glyphs`), and the element's line boxes (`lines`: the
 * lines a wrapped inline element takes). A count of 0 is a glyph the user cannot see. The
 * screenshots are of the block around the element (a glyph may reach below an inline element's box),
 * at twice the CSS size.
 */
export async function glyphVisibility(page, frame, selector, index = 0) {
  const target = (await frame.$$(selector))[index];
  if (!target) throw new Error(`no ${selector} [${index}] in the view`);
  const handle = (await target.evaluateHandle((el) => el.closest("pre, p, table, li") ?? el)).asElement();
  await handle.evaluate((el) => el.scrollIntoView({ block: "center" }));
  // The workbench may still be laying the side bar out (after a theme change it has been seen to
  // narrow the side bar a moment later): wait until the block's box holds still for ~half a second.
  await handle.evaluate(
    (el) =>
      new Promise((resolve, reject) => {
        let last = "";
        let same = 0;
        let frames = 0;
        const check = () => {
          const r = el.getBoundingClientRect();
          const now = `${r.left},${r.top},${r.width},${r.height}`;
          same = now === last ? same + 1 : 0;
          last = now;
          if (same >= 30) resolve();
          else if (++frames > 300) reject(new Error(`the box never held still: ${now}`));
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
  );
  // Each glyph in a span of its own (a layout no different from plain text), with its box relative to
  // the block in CSS pixels; the second screenshot has those spans' text transparent, so the two
  // differ exactly where a glyph is visible.
  const boxes = await target.evaluate((el, glyphs) => {
    const origin = (el.closest("pre, p, table, li") ?? el).getBoundingClientRect();
    const limit = getComputedStyle(el).display === "inline" ? Infinity : el.clientLeft + el.clientWidth;
    const texts = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node);
    window.__glyphSpans = [];
    for (const node of texts) {
      if (![...node.data].some((c) => c in glyphs)) continue;
      const pieces = [];
      for (const c of node.data) {
        if (c in glyphs) {
          const span = document.createElement("span");
          span.textContent = c;
          span.dataset.glyph = glyphs[c];
          pieces.push(span);
          window.__glyphSpans.push(span);
        } else if (typeof pieces.at(-1) === "string") pieces[pieces.length - 1] += c;
        else pieces.push(c);
      }
      node.replaceWith(...pieces);
    }
    const found = [];
    for (const span of window.__glyphSpans) {
      for (const r of span.getClientRects()) {
        const g = { ch: span.textContent, region: span.dataset.glyph, x: r.left - origin.left, y: r.top - origin.top, width: r.width, height: r.height };
        // Only what the element shows: a glyph scrolled out of a code block's width is not drawn.
        if (g.x >= 0 && g.x + g.width <= limit) found.push(g);
      }
    }
    return { found, width: origin.width, lines: el.getClientRects().length };
  }, GLYPHS);
  const before = decodePng(Buffer.from(await zoomed(page, handle, 2)));
  await target.evaluate(() => {
    for (const span of window.__glyphSpans) {
      span.style.color = "transparent";
      span.style.webkitTextFillColor = "transparent";
    }
  });
  const after = decodePng(Buffer.from(await zoomed(page, handle, 2)));
  await target.evaluate((el) => {
    for (const span of window.__glyphSpans) span.replaceWith(span.textContent);
    window.__glyphSpans = [];
    el.normalize();
  });
  if (before.width !== after.width || before.height !== after.height) {
    throw new Error(`${selector} changed size when its glyphs were replaced: ${before.width}×${before.height} → ${after.width}×${after.height}`);
  }
  const scale = before.width / boxes.width;
  const glyphs = boxes.found.map((g) => {
    const top = g.region === "bottom" ? g.y + g.height * 0.6 : g.y;
    const bottom = g.y + g.height + 1; // a glyph may reach a little below its box
    const box = { x: g.x * scale, y: top * scale, width: g.width * scale, height: (bottom - top) * scale };
    return { ch: g.ch, line: Math.round(g.y), pixels: differing(before, after, box) };
  });
  return { glyphs, lines: boxes.lines };
}
