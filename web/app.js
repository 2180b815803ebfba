// The page: loads the WebAssembly attention core and the word vectors, then redraws the heatmap
// on every keystroke. All maths (tokenising, embedding, X·Xᵀ, softmax) happens in the wasm core;
// this file only moves its results onto the screen.
import { loadAttention, AttentionError } from 'attention-core';
import { drawHeatmap, format4 } from './heatmap.js';

const MAX_TOKENS = 64;
const $ = (id) => document.getElementById(id);
const input = $('sentence');
const temperature = $('temperature');
const temperatureOut = $('temperature-value');
const status = $('status');
const message = $('message');
const plot = $('plot');
const readout = $('readout');
const notes = $('notes');
const READOUT_HINT = 'Hover over a cell, or Tab into the grid and use the arrow keys, to read its exact weight.';
const number = (n) => n.toLocaleString('en-US');

let core, vectors, view;

/** kind 'hint' (nothing to draw yet) or 'error'. */
function showMessage(text, kind = 'error') {
  message.textContent = text;
  message.className = `message ${kind}`;
  message.hidden = !text;
}

function clearFigure() {
  plot.hidden = true;
  $('heatmap').replaceChildren();
  $('legend').replaceChildren();
  notes.replaceChildren();
  view = null;
}

function showCell(cell) {
  if (!cell) {
    readout.textContent = READOUT_HINT;
    return;
  }
  readout.replaceChildren();
  const strong = document.createElement('strong');
  strong.textContent = `${cell.query.text} → ${cell.key.text}: ${format4(cell.weight)}`;
  const where = document.createElement('span');
  where.className = 'muted';
  where.textContent = ` (query word ${cell.row + 1}, key word ${cell.col + 1})`;
  readout.append(strong, where);
}

function tokenErrorMessage(text, err) {
  let count = 0;
  try {
    count = core.tokenize(text).length;
  } catch {
    // fall through to the core's own message
  }
  if (count === 0) return 'Type a sentence: there are no words to compare yet.';
  if (count > MAX_TOKENS) {
    return `That is ${number(count)} tokens; the heatmap shows at most ${MAX_TOKENS} — shorten the sentence.`;
  }
  return err.message;
}

function render() {
  if (!vectors) return;
  const text = input.value;
  if (!text.trim()) {
    clearFigure();
    showMessage('Type a sentence… its words will appear as the rows and columns of the heatmap.', 'hint');
    return;
  }
  let embedding, steps;
  const tau = Number(temperature.value);
  try {
    embedding = vectors.embed(text, MAX_TOKENS);
    steps = core.parameterFree(embedding.X, Math.sqrt(vectors.dim), { temperature: tau });
  } catch (err) {
    clearFigure();
    showMessage(err instanceof AttentionError ? tokenErrorMessage(text, err) : `Something went wrong: ${err.message}`);
    if (!(err instanceof AttentionError)) console.error(err);
    return;
  }
  showMessage('');
  const focusAt = view?.focused;
  plot.hidden = false;
  view = drawHeatmap($('heatmap'), $('legend'), embedding.tokens, steps.weights, showCell, focusAt);
  showCell(null);
  writeNotes(embedding.tokens);
}

function writeNotes(tokens) {
  const seen = new Set();
  const items = [];
  for (const t of tokens) {
    if (t.lookup === 'known' || seen.has(t.text)) continue;
    seen.add(t.text);
    const li = document.createElement('li');
    const word = document.createElement('span');
    word.className = `token ${t.lookup}`;
    word.textContent = `‘${t.text}’`;
    li.append(word, t.lookup === 'unknown'
      ? ' is not in the vocabulary: it uses a zero vector, so it attends evenly to every word.'
      : ` is not in the vocabulary: it uses the vector of ‘${t.matched}’.`);
    items.push(li);
  }
  notes.replaceChildren(...items);
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  status.textContent = 'Loading the attention core and the word vectors…';
  try {
    const [loaded, bytes] = await Promise.all([
      loadAttention({ locateFile: (path) => new URL(path, document.baseURI).href }),
      fetchBytes('vectors.bin'),
    ]);
    core = loaded;
    vectors = core.loadVectors(bytes);
  } catch (err) {
    console.error(err);
    status.textContent = 'Not loaded.';
    showMessage(`Could not load the attention core or the word vectors (${err.message}). Reload the page to try again.`);
    return;
  }
  status.textContent = `Vocabulary: ${number(vectors.size)} words, ${vectors.dim} dimensions each.`;
  for (const d of document.querySelectorAll('.dim')) d.textContent = String(vectors.dim);
  render();
}

input.addEventListener('input', render);
temperature.addEventListener('input', () => {
  temperatureOut.textContent = Number(temperature.value).toFixed(2);
  render();
});
temperatureOut.textContent = Number(temperature.value).toFixed(2);
start();
