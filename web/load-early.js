// Starts the two loads the first heatmap waits for as soon as index.html's head is parsed: compiling
// the attention core (attention_wasm.wasm) and reading the word vectors (vectors.bin), so that both
// overlap the page's first layout and app.js's download instead of following app.js. lib/core.js takes
// window.attentionEarly over when it names the same files, and loads them itself when it is missing
// or a load failed. A file, not an inline script: the page runs under a strict Content-Security-Policy.
'use strict';
(function loadEarly() {
  function quiet(promise) {
    promise.catch(function () {}); // a failure is core.js's to handle (it loads again), not an unhandled rejection
    return promise;
  }
  function start(file, load) {
    return { url: new URL(file, document.baseURI).href, result: quiet(load(file)) };
  }
  window.attentionEarly = {
    wasm: start('attention_wasm.wasm', function (file) {
      return typeof WebAssembly === 'object' && typeof WebAssembly.compileStreaming === 'function'
        ? WebAssembly.compileStreaming(fetch(file))
        : Promise.reject(new Error('this browser cannot compile WebAssembly while it downloads'));
    }),
    vectors: start('vectors.bin', function (file) {
      return fetch(file).then(function (response) {
        if (!response.ok) throw new Error(file + ': HTTP ' + response.status);
        return response.arrayBuffer();
      });
    }),
  };
})();
