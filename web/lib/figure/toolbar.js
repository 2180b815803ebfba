// The figure's toolbar: "Share / embed" (a link and an iframe snippet of the state), SVG, PNG and JSON
// exports of what is drawn, and "Import attention…" (JSON from a real model, pasted or loaded).
import { h } from '../dom.js';

export class Toolbar {
  /**
   * actions: { share() → { url, snippet, note }, svg(), png(), json() (each downloads; may throw),
   *            importText(text) (draws it, or says why not), problem(message) }
   */
  constructor(actions) {
    const e = (this.els = {});
    this.actions = actions;
    const button = (name, text, title) => (e[name] = h('button', { type: 'button', class: name, title }, text));
    e.root = h(
      'div',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Share and export' },
      button('shareButton', 'Share / embed', 'A link and an iframe snippet that reproduce this figure'),
      button('svgButton', 'SVG', 'Download the figure as SVG'),
      button('pngButton', 'PNG', 'Download the figure as PNG'),
      button('jsonButton', 'JSON', 'Download the numbers as JSON'),
      button('importButton', 'Import attention…', 'Draw attention weights from a real model'),
    );
    e.shareURL = h('input', { type: 'text', readonly: true, class: 'share-url', 'aria-label': 'Link to this figure' });
    e.shareSnippet = h('textarea', { readonly: true, rows: 4, class: 'share-snippet', 'aria-label': 'Iframe snippet' });
    e.shareNote = h('p', { class: 'muted', 'aria-live': 'polite' });
    e.copyURL = h('button', { type: 'button', class: 'copy-url' }, 'Copy link');
    e.copySnippet = h('button', { type: 'button', class: 'copy-snippet' }, 'Copy iframe');
    e.sharePanel = h(
      'div',
      { class: 'panel share', hidden: true },
      h('p', {}, h('strong', {}, 'Link'), ': opens the full page in this exact state'),
      e.shareURL,
      h('p', {}, h('strong', {}, 'Embed'), ': paste into your article'),
      e.shareSnippet,
      h('div', { class: 'row' }, e.copyURL, e.copySnippet),
      e.shareNote,
    );
    e.importText = h('textarea', {
      rows: 5,
      class: 'import-text',
      'aria-label': 'Attention JSON',
      placeholder: '{"tokens": ["[CLS]", "the", …], "attentions": [[[[…T weights…], …T rows], …heads], …layers]}',
    });
    e.importFile = h('input', { type: 'file', accept: '.json,application/json', class: 'import-file', 'aria-label': 'Load a JSON file' });
    e.importGo = h('button', { type: 'button', class: 'import-go' }, 'Draw it');
    e.importMessage = h('p', { class: 'import-message', role: 'alert' });
    e.importPanel = h(
      'div',
      { class: 'panel import', hidden: true },
      h(
        'p',
        {},
        'Paste or load the attention of a real model: ',
        h('code', {}, '{"tokens": [...], "attentions": layers × heads × T × T}'),
        ', what Hugging Face transformers returns with ',
        h('code', {}, 'output_attentions=True'),
        ' (as nested lists).',
      ),
      e.importText,
      h('div', { class: 'row' }, e.importFile, e.importGo),
      e.importMessage,
    );
    this.panels = [e.sharePanel, e.importPanel];
    this.#wire();
  }

  #wire() {
    const e = this.els,
      a = this.actions;
    const run = async (action) => {
      try {
        await action();
      } catch (err) {
        a.problem(`Export failed: ${err.message}`);
      }
    };
    e.shareButton.addEventListener('click', () => this.#toggle(e.sharePanel, e.shareButton, () => this.fillShare()));
    e.importButton.addEventListener('click', () => this.#toggle(e.importPanel, e.importButton));
    e.copyURL.addEventListener('click', () => this.#copy(e.shareURL, 'Link copied.'));
    e.copySnippet.addEventListener('click', () => this.#copy(e.shareSnippet, 'Iframe snippet copied.'));
    e.svgButton.addEventListener('click', () => run(a.svg));
    e.pngButton.addEventListener('click', () => run(a.png));
    e.jsonButton.addEventListener('click', () => run(a.json));
    e.importGo.addEventListener('click', () => a.importText(e.importText.value));
    e.importFile.addEventListener('change', async () => {
      const file = e.importFile.files?.[0];
      if (!file) return;
      const text = await file.text();
      e.importText.value = text.length > 20000 ? '' : text;
      a.importText(text);
    });
  }

  #toggle(panel, button, fill) {
    panel.hidden = !panel.hidden;
    button.setAttribute('aria-expanded', String(!panel.hidden));
    if (!panel.hidden) fill?.();
  }

  async #copy(field, done) {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      this.els.shareNote.textContent = done;
    } catch {
      this.els.shareNote.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  }

  /** Refreshes the share panel (while it is open, after every change). */
  fillShare() {
    const e = this.els,
      { url, snippet, note } = this.actions.share();
    e.shareURL.value = url;
    e.shareSnippet.value = snippet;
    e.shareNote.textContent = note;
  }

  /** Shows the buttons the `controls` set names; says why an import was refused. */
  draw(allowed, { importMessage } = {}) {
    const e = this.els;
    e.shareButton.hidden = !allowed.has('share');
    for (const b of ['svgButton', 'pngButton', 'jsonButton']) e[b].hidden = !allowed.has('export');
    e.importButton.hidden = !allowed.has('import');
    e.root.hidden = !['share', 'export', 'import'].some((c) => allowed.has(c));
    if (!allowed.has('share')) e.sharePanel.hidden = true;
    if (!allowed.has('import')) e.importPanel.hidden = true;
    if (importMessage !== undefined) {
      e.importMessage.textContent = importMessage;
      if (importMessage) e.importPanel.hidden = !allowed.has('import');
    }
    if (!e.sharePanel.hidden) this.fillShare();
  }
}
