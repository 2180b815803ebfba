// The one store a figure (and the page's whole lesson) renders from: the state, what the reader brought
// that has no place in a URL (imported attention, edited weights, the by-hand sheet's numbers), what
// is loaded, and the one Result computed from all of it (compute.js), with the by-hand sheet's result
// beside it on the page. Every change goes through set() (or setImported, setEdits, setHand for what the
// reader brought, each replaced by a new object, never changed in place); it recomputes once and tells
// every subscriber, which redraws from (state, result). Nothing else holds a copy of the sentence or
// computes anything.
import {
  loadCommonVectors,
  loadComposedShards,
  loadCore,
  loadEncoder,
  loadFirstVectors,
  loadModel,
  loadShardedVectors,
  loadVectors,
} from './loader.js';
import { HAND_DEFAULT, compute, computeHand, release, unitsOf } from './compute.js';
import { frozenCells } from './cells.js';
import { DEFAULTS, apply, isTrained } from './state.js';
import { isAvailable, viewNamed } from './views/registry.js';

// A change redraws at once, unless more tokens than this are drawn: then it waits for the next frame,
// so fast typing or a dragged slider on a long input coalesces into one redraw per frame.
const DEFER_TOKENS = 128;
// The most word-vector shards (of 128, ≈ 9 KiB gzip each) one change fetches: a text that needs more at
// once (a pasted page of rare words) fetches the whole table (≈ 1.1 MB) in one request instead.
const MAX_SHARDS = 32;
// How long typing must pause before the shards of the word being typed are fetched (ms): a reader typing
// a rare word fetches its shards once, not those of each prefix on the way.
const TYPING_PAUSE_MS = 250;

export class Store {
  /**
   * options: { preloadVectors (load the word vectors even when the model is shown), byHand (the page's
   * by-hand sheet: hold its numbers, starting from the example, and compute its result with the rest),
   * walkthrough (the page's walkthrough draws every step of the head: all of them come out of the core;
   * otherwise only the steps the shown view draws, views/registry.js draws) }
   */
  constructor(initial = {}, options = {}) {
    this.state = apply(DEFAULTS, initial);
    this.options = options;
    this.sources = {
      core: null,
      vectors: null,
      trained: { decoder: null, encoder: null }, // { core, model, timing } once loaded
      imported: null,
      edits: null, // the walkthrough's edited weights: { Wq, Wk, Wv, bq, bk, bv } as rows of strings (setEdits)
      hand: options.byHand ? HAND_DEFAULT : null, // the by-hand sheet's numbers: { X, Wq, Wk, Wv } as rows of strings (setHand)
      vectorsError: null,
      trainedError: { decoder: null, encoder: null },
      composedShards: new Set(), // issue 24: composed-vector shards attached to the table (compute/vectors.js)
    };
    this.composedWanted = new Set(); // composed shards asked for
    this.composedBytes = null; // those that arrived, merged: attached again to every new table
    this.trainedLoading = { decoder: null, encoder: null };
    this.shardsWanted = new Set(); // word-vector shards asked for while only the first chunk is here
    this.result = null; // the latest Result (ok or not)
    this.extra = null; // the shown view's extra numbers, if it has any (views/registry.js extra: the compare view's second sentence)
    this.good = null; // the latest Result that was ok: views keep showing it under a 'cells' problem, or while a word's vector loads
    this.handResult = null; // with byHand: the sheet's latest result (compute.js computeHand)
    this.handGood = null; // and the latest that was ok, which the sheet keeps showing under a bad cell
    this.typedAt = -Infinity; // when a keystroke last changed the sentence (performance.now())
    this.listeners = new Set();
    this.started = false;
    this.frame = 0;
  }

  /** listener(state, result, store) after every change; returns an unsubscribe function. */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Applies changes (see state.apply) and recomputes. defer: let a long input wait for the next frame.
   * typing: a keystroke changed the sentence (its last word may be unfinished: #askShards).
   */
  set(changes, { defer = false, typing = false } = {}) {
    const before = this.state;
    this.state = apply(this.state, changes);
    if (this.state.sentence !== before.sentence) this.typedAt = typing ? performance.now() : -Infinity;
    // Picking a trained model again retries a load that failed.
    if (isTrained(this.state.source) && this.state.source !== before.source) this.sources.trainedError[this.state.source] = null;
    if (defer && (this.good?.T ?? 0) > DEFER_TOKENS) return this.#schedule();
    this.recompute();
  }

  /**
   * The reader's weights, W_Q, W_K, W_V and biases ({ Wq, Wk, Wv, bq, bk, bv } as rows of strings), in
   * place of the last: a new object per edit (cells.withCell), frozen here, so the object before the edit
   * still holds what it held and the computation tells them apart by identity. The weights become
   * "edited" in the same change: one recompute.
   */
  setEdits(next) {
    this.sources.edits = frozenCells(next);
    this.state = apply(this.state, { weights: 'edited' });
    this.recompute();
  }

  /** The by-hand sheet's numbers ({ X, Wq, Wk, Wv } as rows of strings) in place of the last, as setEdits: one recompute. */
  setHand(next) {
    this.sources.hand = frozenCells(next);
    this.recompute();
  }

  /** Imported attention (importer.parseAttention's result) replaces the computed source until cleared. */
  setImported(parsed) {
    this.sources.imported = parsed ? { ...parsed, id: (this.sources.imported?.id ?? 0) + 1 } : null;
    // A view that cannot draw imported attention (the steps: it has no scores) gives way to the first view.
    const view = parsed && !isAvailable(viewNamed(this.state.view), this.state, { imported: parsed }) ? { view: DEFAULTS.view } : {};
    this.state = apply(this.state, { ...view, word: null, layer: 0, head: 0 });
    this.recompute();
  }

  /** Starts loading what the state needs (the word vectors, the trained model), then keeps doing so. */
  start() {
    this.started = true;
    this.recompute();
  }

  #schedule() {
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      this.recompute();
    });
  }

  /** Recomputes from the current state and tells every subscriber. */
  recompute() {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    this.#load();
    const started = performance.now();
    this.result = compute(this.state, this.sources, this.good, { keep: this.#keep() });
    if (this.result.shards?.length) this.#askShards(this.result);
    if (this.result.composed?.length) this.#askComposed(this.result);
    if (this.result.ok) this.good = this.result;
    else if (!this.#keepsGood(this.result)) {
      release(this.good); // no view draws it again: its sentence leaves the core's heap
      this.good = null;
    }
    // The view's extra numbers from the same sources (the compare view's second sentence), reusing the last where they match.
    const extra = viewNamed(this.state.view).extra;
    this.extra = extra ? extra(this.state, this.sources, this.shown, this.extra) : null;
    this.#computeHand();
    this.timing = { compute: performance.now() - started };
    for (const listener of this.listeners) listener(this.state, this.result, this);
    this.timing.total = performance.now() - started;
    // The figure has drawn from the first chunk (the listeners draw at once): now the frequent words.
    if (this.sources.vectorsPartial && this.result.kind !== 'loading') this.#loadCommon();
  }

  /**
   * The by-hand sheet's result, in the same recompute as the figure's: again only when its numbers were
   * replaced (computeHand reuses the last otherwise), and once the core is here.
   */
  #computeHand() {
    const s = this.sources;
    if (!s.hand || !s.core) return;
    this.handResult = computeHand(s.core, s.hand, this.handResult);
    if (this.handResult.ok) this.handGood = this.handResult;
  }

  /** The steps of the head that come out of the core: those the shown view draws, or all for the walkthrough. */
  #keep() {
    return this.options.walkthrough ? null : new Set(viewNamed(this.state.view).draws ?? ['weights']);
  }

  /** The result views draw: the latest, or under a bad edited cell (or while a word's vector loads) the last good one. */
  get shown() {
    return this.result?.ok ? this.result : this.result && this.#keepsGood(this.result) ? this.good : null;
  }

  /** What the figure draws: `shown`, or with units=words a pieces model's words (compute.js unitsOf). */
  get drawn() {
    return unitsOf(this.state, this.shown, viewNamed(this.state.view));
  }

  /**
   * Whether views keep the last good figure under this result: a bad edited cell (the message says which),
   * a word-vector shard on its way (a moment, said in the message) when the last figure is of word
   * vectors too — rather than blank the figure at every keystroke of a rarer word — or a trained model
   * still loading.
   */
  #keepsGood(result) {
    if (result.kind === 'cells') return true;
    if (result.kind !== 'loading' || !this.good) return false;
    // A trained model on its way (under 1 MB, once): the last figure stays, usable, while a quiet line says so.
    return (Boolean(result.shards) && this.good.kind === 'vectors') || isTrained(this.state.source);
  }

  /** Fetches the shards a result waits for: at once, but those of a word still being typed after a pause in typing. */
  #askShards(result) {
    const typing = new Set(result.typing);
    const now = result.shards.filter((id) => !typing.has(id));
    if (now.length) this.#loadShards(now);
    if (!typing.size) return;
    const wait = this.typedAt + TYPING_PAUSE_MS - performance.now();
    if (wait <= 0) return this.#loadShards([...typing]);
    // Recompute then: the text may have changed meanwhile, and its result asks again.
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.recompute(), wait);
  }

  /**
   * The first chunk with every shard asked for so far, as one table in place of the one drawn from (the
   * sentence's words then draw without the whole table). A change that needs more than MAX_SHARDS new
   * ones, or a shard that cannot be fetched, asks for the whole table instead.
   */
  #loadShards(ids) {
    const fresh = ids.filter((id) => !this.shardsWanted.has(id));
    if (!fresh.length || this.vectorsLoading) return; // the whole table is on its way: it has them all
    if (fresh.length > MAX_SHARDS) return this.#loadWhole();
    for (const id of fresh) this.shardsWanted.add(id);
    this.#loadPartial().catch(() => {
      for (const id of fresh) this.shardsWanted.delete(id);
      this.#loadWhole();
    });
  }

  /**
   * The first chunk, the frequent words if they are here and every shard asked for so far, as one table in
   * place of the one drawn from. Each call merges all of them, so only the latest call's table is kept.
   */
  async #loadPartial() {
    const s = this.sources;
    const wanted = [...this.shardsWanted];
    const call = (this.partialCalls = (this.partialCalls ?? 0) + 1);
    const table = await loadShardedVectors(wanted);
    // Too late (the whole table is here) or overtaken by a later call: not needed.
    if (!s.vectorsPartial || call < (this.partialApplied ?? 0)) return table.delete();
    this.partialApplied = call;
    const before = s.vectorsShards ? s.vectors : null; // the first chunk's table stays the loader's
    s.vectors = this.#attachComposed(table);
    s.vectorsShards = new Set(wanted);
    s.vectorsMerge = call; // a new table: compute.js's key changes with it
    before?.delete();
    this.recompute();
  }

  /**
   * The frequent words, once the first figure has drawn from the first chunk (so they never share its bytes
   * on a slow link): the loader's shared table of both, or merged with the shards asked for so far. They
   * spare most typed sentences a shard; a failure leaves the shards to do it.
   */
  #loadCommon() {
    if (this.commonAsked) return;
    this.commonAsked = true;
    loadCommonVectors().then((table) => {
      const s = this.sources;
      if (!table || !s.vectorsPartial) return;
      if (this.shardsWanted.size) return void this.#loadPartial().catch(() => {});
      // The loader's, as the first chunk's table was: shared, never deleted here (vectorsShards stays null).
      s.vectors = this.#attachComposed(table);
      s.vectorsMerge = this.partialApplied = this.partialCalls = (this.partialCalls ?? 0) + 1;
      this.recompute();
    });
  }

  // ---- issue 24: vectors composed from character n-grams ------------------------------------------------
  /** Fetches the composed shards a result waits for: at once, those of a word still being typed after a pause. */
  #askComposed(result) {
    const typing = new Set(result.typing);
    const now = result.composed.filter((id) => !typing.has(id));
    if (now.length) this.#loadComposed(now);
    if (!typing.size) return;
    const wait = this.typedAt + TYPING_PAUSE_MS - performance.now();
    if (wait <= 0) return this.#loadComposed([...typing]);
    clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => this.recompute(), wait);
  }

  /** Every composed shard asked for so far, merged and attached to the table (a shard that fails counts as empty). */
  #loadComposed(ids) {
    const fresh = ids.filter((id) => !this.composedWanted.has(id));
    if (!fresh.length) return;
    for (const id of fresh) this.composedWanted.add(id);
    const wanted = [...this.composedWanted];
    const call = (this.composedCalls = (this.composedCalls ?? 0) + 1);
    loadComposedShards(wanted).then((bytes) => {
      // Each call asks for every shard asked so far: one that ends after a later one has nothing new.
      if (call < (this.composedApplied ?? 0)) return;
      this.composedApplied = call;
      this.composedBytes = bytes;
      this.#attachComposed(this.sources.vectors);
      this.sources.composedShards = new Set(wanted);
      this.recompute();
    });
  }

  /**
   * A table the store is about to draw from, with the composed vectors that arrived so far. The first
   * chunk's table is the loader's, shared by the page's stores: a composed word it gains is one more known
   * to them all, never a different vector for a word (the table always comes first).
   */
  #attachComposed(table) {
    if (table && this.composedBytes) table.attachComposed(this.composedBytes);
    return table;
  }

  /**
   * Whether the state needs the whole word-vector table rather than the first chunk and some shards:
   * a view that searches every word of the vocabulary (the compare view's nearest words) says so.
   */
  #needsWholeTable() {
    return Boolean(viewNamed(this.state.view).needsWholeTable?.(this.state, { imported: this.sources.imported }));
  }

  /**
   * The word vectors. The first chunk (the examples' words) comes first and draws the first figure, then
   * the frequent words (#loadCommon), which draw most sentences; a word outside them brings its shards (#loadShards). The whole table (≈ 1.1 MB) is fetched only when something
   * needs it (#needsWholeTable, a text of too many shards, a shard or the first chunk that cannot load),
   * so a reader who never asks for it never pays for it.
   */
  #load() {
    if (!this.started) return;
    const s = this.sources,
      trained = isTrained(this.state.source) && !s.imported ? this.state.source : null;
    const needVectors = (!trained && !s.imported) || this.options.preloadVectors;
    if (needVectors && !s.vectors && !this.firstLoading) {
      this.firstLoading = loadFirstVectors().then(async (first) => {
        if (s.vectors) return; // the whole table came first
        if (!first) return this.#loadWhole(); // no first chunk here: the whole table will do
        s.core ??= await loadCore();
        if (s.vectors) return;
        s.vectors = this.#attachComposed(first);
        s.vectorsPartial = true;
        this.recompute();
      });
    }
    if (needVectors && this.#needsWholeTable()) this.#loadWhole();
    if (trained && !s.trained[trained] && !this.trainedLoading[trained] && !s.trainedError[trained]) {
      this.trainedLoading[trained] = this.#settle(trained === 'encoder' ? loadEncoder() : loadModel(), (loaded, err) => {
        this.trainedLoading[trained] = null;
        [s.trained[trained], s.trainedError[trained]] = [loaded, err];
        if (loaded) this.modelTiming = loaded.timing;
      });
    }
  }

  /** The whole word-vector table in place of the first chunk and its shards (once; a failure is kept). */
  #loadWhole() {
    const s = this.sources;
    if ((s.vectors && !s.vectorsPartial) || this.vectorsLoading || s.vectorsError) return;
    const whole = loadCore().then((core) => ((s.core = core), loadVectors()));
    this.vectorsLoading = this.#settle(whole, (table, err) => {
      this.vectorsLoading = null;
      if (err) return void (s.vectorsError = err);
      if (s.vectorsShards) s.vectors.delete(); // a table of shards, made here: nothing else holds it
      Object.assign(s, { vectors: this.#attachComposed(table), vectorsPartial: false, vectorsShards: null });
    });
  }

  /** A load's end: done(value) or done(undefined, error), then one recompute. Returns the load's promise. */
  #settle(promise, done) {
    return promise.then(
      (value) => (done(value, null), this.recompute()),
      (err) => (done(undefined, err), this.recompute()),
    );
  }
}
