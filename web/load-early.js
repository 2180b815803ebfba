// Starts the loads the first heatmap waits for as soon as index.html's head is parsed: compiling the
// attention core (attention_wasm_relaxed.wasm where relaxed SIMD validates, else attention_wasm.wasm:
// lib/core-file.js) and reading the word vectors' first chunk (vectors-first.bin; the whole table,
// vectors.bin, is fetched only when a view needs it: lib/store.js), and, when the URL asks for the
// trained model (source=model), its module and its weights too. They then overlap the page's first
// layout and app.js's download instead of following app.js. lib/loader.js takes each one over from
// window.attentionEarly when it names the same file, and loads the file itself when it is missing or
// failed. A file, not an inline script: the page runs under a strict Content-Security-Policy. It is
// written as a module for its one import; scripts/build-site.mjs bundles it into a classic script
// (index.html loads it without type="module", so it runs before the page's modules).
import { coreFile } from './lib/core-file.js';

(function loadEarly() {
  var early = (window.attentionEarly = {});
  function start(file, result) {
    result.catch(function () {}); // a failure is loader.js's to handle (it loads again), not an unhandled rejection
    early[file] = { url: new URL(file, document.baseURI).href, result: result };
  }
  function compile(file) {
    start(
      file,
      typeof WebAssembly === 'object' && typeof WebAssembly.compileStreaming === 'function'
        ? WebAssembly.compileStreaming(fetch(file))
        : Promise.reject(new Error('this browser cannot compile WebAssembly while it downloads')),
    );
  }
  function read(file) {
    start(
      file,
      fetch(file).then(function (response) {
        if (!response.ok) throw new Error(file + ': HTTP ' + response.status);
        return response.arrayBuffer();
      }),
    );
  }
  // A link with a state of its own (or an embed, sized for its view): the static first figure in
  // index.html, the default state's, is not shown (style.css); the live figure draws the link's state.
  // The names: lib/state.js's STATE_KEYS (and its legacy scale), which this classic script does not import.
  var linked =
    /(^|[?&])(sentence2?|input|source|view|word|score|scale|temperature|mask|norm|diagonal|heads|seed|layer|head|blank|weights|dk|bias|full|tour|off|off-mode|units|embed)=/;
  if (linked.test(location.search)) document.documentElement.classList.add('linked-state');
  // The word vectors serve the figure and, below it, the walkthrough (even when the figure shows the model).
  compile(coreFile());
  read('vectors-first.bin'); // the examples' words: the first figure draws from these
  var source = new URLSearchParams(location.search).get('source');
  if (source === 'model' || source === 'decoder' || source === 'encoder') {
    compile('attention_model_wasm.wasm');
    read(source === 'encoder' ? 'encoder.bin' : 'model.bin');
    // The model module's glue, which app.js imports on demand: fetched and parsed now.
    var glue = document.createElement('link');
    glue.rel = 'modulepreload';
    glue.href = 'attention_model_wasm.js';
    document.head.appendChild(glue);
  }
})();
