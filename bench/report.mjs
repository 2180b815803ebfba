// Merges the JSON of one bench/run.sh into a table (markdown, on stdout) and bench/results.json.
//   node bench/report.mjs DIR [--load "..."] [--seconds N]     full run
//   node bench/report.mjs --smoke DIR                          checks the outputs agree; exits 1 if not
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const dir = args.find((a, i) => !a.startsWith('--') && !['--load', '--seconds'].includes(args[i - 1]));
const here = dirname(fileURLToPath(import.meta.url));

// The C++ driver prints one JSON object over several lines; the JS ones print one line.
const parseJSON = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(text.split('\n').pop());
  }
};
const runs = {};
for (const f of await readdir(dir)) {
  if (!f.endsWith('.json') || f.startsWith('mem-')) continue;
  const text = (await readFile(join(dir, f), 'utf8')).trim();
  if (text) runs[f.replace(/\.json$/, '')] = parseJSON(text);
}
const find = (run, kind, variant, T) => runs[run]?.results?.find((r) => r.kind === kind && r.variant === variant && r.T === T);

// ---- smoke: agreement only --------------------------------------------------------------------------
if (smoke) {
  const failures = [];
  let checks = 0;
  const compare = (what, a, ref) => {
    checks++;
    if (!a || !ref) return failures.push(`${what}: missing result`);
    const head = Math.max(...a.head.map((x, i) => Math.abs(x - ref.head[i])));
    const sum = Math.abs(a.checksum - ref.checksum) / Math.max(1, Math.abs(ref.checksum));
    if (!(head <= 1e-4 && sum <= 1e-4)) failures.push(`${what}: differs from plain JS (first values by ${head}, checksum by ${sum})`);
  };
  const T = 64;
  for (const run of ['native', 'wasm-simd']) {
    for (const v of ['full', 'output', 'eigen_sdpa', 'kernel_sdpa'])
      compare(`${run} ${v}`, find(run, 'sdpa', v, T), find('plain', 'sdpa', 'plain_js', T));
    for (const v of ['mha', 'mha_output']) compare(`${run} ${v}`, find(run, 'mha', v, T), find('plain', 'mha', 'plain_js', T));
  }
  compare('shipped module attentionOutput', find('shipped', 'sdpa', 'js_api_output', T), find('plain', 'sdpa', 'plain_js', T));
  // Nearest words: the shipped module and plain JS agree word for word (bench/nearest.mjs compares them).
  checks++;
  const agreement = runs.nearest?.agreement;
  if (!agreement || !find('nearest', 'nearest', 'wasm_js_api', runs.nearest.words)) failures.push('nearest words: missing result');
  else if (agreement.mismatches.length || !(agreement.max_abs_diff <= 1e-5)) {
    failures.push(
      `nearest words: the module and plain JS differ (${agreement.mismatches.slice(0, 3).join('; ')}; similarities by up to ${agreement.max_abs_diff})`,
    );
  }
  if (failures.length) {
    console.error(`bench smoke: ${failures.length} of ${checks} output checks failed:\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`bench smoke: the core (native, wasm, shipped JS API) and plain JS agree (${checks} output checks); no timing is checked`);
  process.exit(0);
}

// ---- full: tables -------------------------------------------------------------------------------------
const SDPA_T = [16, 64, 128, 256, 512, 1024, 4096];
const ms = (r) =>
  r ? (r.median_ms < 1 ? r.median_ms.toFixed(3) : r.median_ms < 100 ? r.median_ms.toFixed(2) : r.median_ms.toFixed(0)) : '—';
const gf = (r) => (r && r.flops ? (r.flops / r.median_ms / 1e6).toFixed(1) : '—');
const cell = (r) => (r ? `${ms(r)} (${gf(r)})` : '—');
const ratio = (a, b) => (a && b ? (a.median_ms / b.median_ms).toFixed(2) + '×' : '—');
const lines = [];
const table = (head, rows) => {
  lines.push(`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`);
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  lines.push('');
};
const kernelsOf = (run) => runs[run]?.kernels ?? '?';

lines.push(
  `Scaled dot-product attention, d_k = 64: median ms (GFLOP/s, 4·T²·d flops). "ours" = the core's output-only`,
  `path (streaming_attention_output), the same maths as every peer; native = clang -O3 -march=native`,
  `(${kernelsOf('native')}), portable = clang -O3 x86-64 (${kernelsOf('portable')}), wasm = the same driver under node.`,
  '',
);
table(
  ['T', 'ours native', 'ours portable', 'ours wasm scalar', 'ours wasm simd', 'plain JS', 'tfjs-wasm', 'ORT-wasm', 'PyTorch 1 thr'],
  SDPA_T.map((T) => [
    T,
    ...['native', 'portable', 'wasm-scalar', 'wasm-simd'].map((r) => cell(find(r, 'sdpa', 'output', T))),
    cell(find('plain', 'sdpa', 'plain_js', T)),
    cell(find('tfjs', 'sdpa', 'tfjs_wasm', T)),
    cell(find('ort', 'sdpa', 'ort_wasm', T)),
    cell(find('torch', 'sdpa', 'torch', T)),
  ]),
);

lines.push('Ratios (time ÷ time, same run; > 1 means ours is faster for peer ÷ ours):', '');
table(
  [
    'T',
    'wasm simd ÷ native',
    'wasm simd ÷ portable',
    'plain JS ÷ wasm',
    'tfjs ÷ wasm',
    'ORT ÷ wasm',
    'PyTorch ÷ native',
    'PyTorch ÷ portable',
  ],
  SDPA_T.map((T) => {
    const n = find('native', 'sdpa', 'output', T),
      p = find('portable', 'sdpa', 'output', T),
      w = find('wasm-simd', 'sdpa', 'output', T);
    return [
      T,
      ratio(w, n),
      ratio(w, p),
      ratio(find('plain', 'sdpa', 'plain_js', T), w),
      ratio(find('tfjs', 'sdpa', 'tfjs_wasm', T), w),
      ratio(find('ort', 'sdpa', 'ort_wasm', T), w),
      ratio(find('torch', 'sdpa', 'torch', T), n),
      ratio(find('torch', 'sdpa', 'torch', T), p),
    ];
  }),
);

lines.push(
  'The full (explainer) path, attention_from_qkv: keeps scores, scaled and weights (three T×T matrices) for the page;',
  'and the output-only T×T variants: the pre-kernel maths (Eigen products, scalar std::exp softmax) against the kernels.',
  '',
);
table(
  [
    'T',
    'full native',
    'full wasm simd',
    'full wasm ÷ native',
    'eigen_sdpa wasm scalar',
    'eigen_sdpa wasm simd',
    'kernel_sdpa wasm simd',
    'kernel_sdpa native',
    'kernel_sdpa wasm ÷ native',
  ],
  SDPA_T.map((T) => [
    T,
    cell(find('native', 'sdpa', 'full', T)),
    cell(find('wasm-simd', 'sdpa', 'full', T)),
    ratio(find('wasm-simd', 'sdpa', 'full', T), find('native', 'sdpa', 'full', T)),
    cell(find('wasm-scalar', 'sdpa', 'eigen_sdpa', T)),
    cell(find('wasm-simd', 'sdpa', 'eigen_sdpa', T)),
    cell(find('wasm-simd', 'sdpa', 'kernel_sdpa', T)),
    cell(find('native', 'sdpa', 'kernel_sdpa', T)),
    ratio(find('wasm-simd', 'sdpa', 'kernel_sdpa', T), find('native', 'sdpa', 'kernel_sdpa', T)),
  ]),
);

lines.push('What each kernel step bought (one step alone; softmax rows include a T×T copy, shown as copy):', '');
const stepRows = [];
for (const T of [64, 128, 512])
  for (const [step, before, after] of [
    ['Q·Kᵀ', 'qk_eigen', 'qk_kernel'],
    ['row softmax', 'softmax_scalar', 'softmax_kernel'],
    ['weights·V', 'pv_eigen', 'pv_kernel'],
    ['copy T×T', 'copy_TxT', null],
  ])
    stepRows.push([
      T,
      step,
      ...['wasm-scalar', 'wasm-simd', 'portable', 'native'].map((r) => {
        const b = find(r, 'step', before, T),
          a = after && find(r, 'step', after, T);
        return after ? `${ms(b)} → ${ms(a)} (${ratio(b, a)})` : ms(b);
      }),
    ]);
table(['T', 'step', 'wasm scalar: Eigen/scalar → kernel', 'wasm simd', 'portable', 'native'], stepRows);

lines.push('Multi-head attention, 8 heads, d_model 512 (projections Q, K, V, O included; 8·T·d² + 4·T²·d flops):', '');
table(
  [
    'T',
    'core mha (all steps) native',
    'wasm simd',
    'ours mha_output native',
    'portable',
    'wasm scalar',
    'wasm simd',
    'plain JS',
    'tfjs-wasm',
    'ORT-wasm',
    'PyTorch',
  ],
  [64, 512].map((T) => [
    T,
    cell(find('native', 'mha', 'mha', T)),
    cell(find('wasm-simd', 'mha', 'mha', T)),
    ...['native', 'portable', 'wasm-scalar', 'wasm-simd'].map((r) => cell(find(r, 'mha', 'mha_output', T))),
    cell(find('plain', 'mha', 'plain_js', T)),
    cell(find('tfjs', 'mha', 'tfjs_wasm', T)),
    cell(find('ort', 'mha', 'ort_wasm', T)),
    cell(find('torch', 'mha', 'torch', T)),
  ]),
);
table(
  ['T', 'wasm ÷ native', 'plain JS ÷ wasm', 'tfjs ÷ wasm', 'ORT ÷ wasm', 'PyTorch ÷ native'],
  [64, 512].map((T) => {
    const n = find('native', 'mha', 'mha_output', T),
      w = find('wasm-simd', 'mha', 'mha_output', T);
    return [
      T,
      ratio(w, n),
      ratio(find('plain', 'mha', 'plain_js', T), w),
      ratio(find('tfjs', 'mha', 'tfjs_wasm', T), w),
      ratio(find('ort', 'mha', 'ort_wasm', T), w),
      ratio(find('torch', 'mha', 'torch', T), n),
    ];
  }),
);

// Agreement of every implementation with ours (checksums of the outputs).
let worst = 0,
  worstWhat = '';
for (const [name, run] of Object.entries(runs))
  for (const r of run.results ?? []) {
    const ref = find('native', r.kind, r.kind === 'mha' ? 'mha_output' : 'output', r.T);
    if (!ref || !['sdpa', 'mha'].includes(r.kind)) continue;
    const d = Math.max(...r.head.map((x, i) => Math.abs(x - ref.head[i])));
    if (d > worst) [worst, worstWhat] = [d, `${name} ${r.variant} T=${r.T}`];
  }
lines.push(`Every implementation's first 8 outputs agree with ours natively to ${worst.toExponential(1)} (worst: ${worstWhat}).`, '');

const shipped = runs.shipped ?? {};
if (shipped.bytes) {
  lines.push('Bytes (gzip -9):', '');
  table(
    ['file', 'raw', 'gzip'],
    shipped.bytes.map((b) => [b.file, b.raw, b.gzip]),
  );
  const mod = shipped.bytes.filter((b) => b.file.startsWith('build/wasm/'));
  lines.push(
    `Module = wasm + glue + wrapper: ${mod.reduce((s, b) => s + b.raw, 0)} B raw, ${mod.reduce((s, b) => s + b.gzip, 0)} B gzip.` +
      (shipped.bytes.some((b) => b.file.endsWith('attention_wasm_relaxed.wasm'))
        ? " The page fetches one of build/site's two .wasm files: the relaxed-SIMD build where it validates, else the fixed one."
        : ''),
    '',
  );
}
let memory = '';
try {
  memory = (await readFile(join(dir, 'memory.txt'), 'utf8')).trim();
} catch {
  /* none */
}
const heaps = {};
for (const name of ['wasm-full', 'wasm-output', 'wasm-none']) {
  try {
    heaps[name] = parseJSON((await readFile(join(dir, `mem-${name}.json`), 'utf8')).trim()).wasm_heap_bytes;
  } catch {
    /* none */
  }
}
if (memory) {
  lines.push('Peak memory at T = 4096 (one forward pass; max RSS of the process, and the wasm heap after it):', '');
  table(
    ['run', 'max RSS', 'wasm heap'],
    memory.split('\n').map((l) => {
      const [name, kib] = l.split(' ');
      return [name, `${(kib / 1024).toFixed(1)} MiB`, heaps[name] ? `${(heaps[name] / 2 ** 20).toFixed(1)} MiB` : '—'];
    }),
  );
  if (shipped.heap_after)
    lines.push(
      `Shipped module (JS API): heap after attentionOutput T=4096 ${(shipped.heap_after.output_T4096 / 2 ** 20).toFixed(1)} MiB (fresh module), after the full path at T=4096 ${(shipped.heap_after.full_T4096 / 2 ** 20).toFixed(1)} MiB; full T=4096 through the JS API took ${shipped.full_T4096_ms?.toFixed(0)} ms; output-only vs full at T=4096: max |Δ| ${shipped.full_vs_output_T4096_max_abs_diff?.toExponential(1)}.`,
      '',
    );
}
if (shipped.results) {
  table(
    ['shipped module (JS API)', ...SDPA_T.map(String)],
    [['attentionOutput ms', ...SDPA_T.map((T) => ms(find('shipped', 'sdpa', 'js_api_output', T)))]],
  );
  table(
    ['page compute: embed + parameterFree', 'T=16', 'T=64', 'T=128'],
    [['ms', ...[16, 64, 128].map((T) => ms(find('shipped', 'page', 'embed_parameter_free', T)))]],
  );
  // The page's full path at T = 1,024: every step copied out (as the page calls it) against `keep`.
  const all = find('shipped', 'page', 'page_all_steps', 1024);
  if (all)
    table(
      [
        'page full path, T = 1,024 (embed + parameterFree)',
        'all 7 steps (the page today)',
        'keep what the page reads (no scores)',
        'keep weights (what the heatmap draws)',
      ],
      [
        [
          'ms (÷ all)',
          ms(all),
          ...['page_keep_read', 'page_keep_weights'].map((v) => {
            const r = find('shipped', 'page', v, 1024);
            return r ? `${ms(r)} (${ratio(r, all)})` : '—';
          }),
        ],
      ],
    );
}
const near = runs.nearest;
if (near) {
  const w = find('nearest', 'nearest', 'wasm_js_api', near.words),
    p = find('nearest', 'nearest', 'plain_js', near.words);
  lines.push(
    `Nearest words: the k = ${near.k} words of data/vectors.bin (${near.words.toLocaleString('en-US')} × ${near.dim}) nearest to one vector by cosine, the whole table (bench/nearest.mjs, one process):`,
    '',
  );
  table(
    [
      'shipped module (vectors.nearest, JS API)',
      'plain JS (Float32Array, norms precomputed)',
      'plain JS ÷ wasm',
      'first call (builds the index)',
    ],
    [[`${ms(w)} ms`, `${ms(p)} ms`, ratio(p, w), `${near.first_call_ms.toFixed(2)} ms`]],
  );
  lines.push(
    `Both give the same words in the same order on ${near.agreement.queries} queries (k = ${near.agreement.k}); similarities differ by at most ${near.agreement.max_abs_diff.toExponential(1)}.`,
    '',
  );
}
const b = runs.browser;
if (b) {
  const loads = (kind) => b.navigations.filter((n) => (n.kind ?? 'cold') === kind);
  const count = (kind) =>
    `median of ${loads(kind).filter((n) => !n.error).length} loads${loads(kind).some((n) => n.error) ? `; ${loads(kind).filter((n) => n.error).length} timed out` : ''}`;
  lines.push(
    `Headless chromium ${b.version}: navigation → first heatmap drawn ${b.first_heatmap_ms.toFixed(0)} ms (its frame begins at ${b.first_heatmap_frame_ms.toFixed(0)} ms) in a fresh browser context (${count('cold')})` +
      (b.first_heatmap_warm_ms != null
        ? `; ${b.first_heatmap_warm_ms.toFixed(0)} ms (frame ${b.first_heatmap_warm_frame_ms.toFixed(0)} ms) in a tab already open, HTTP cache off (${count('warm')})`
        : '') +
      (b.first_heatmap_revisit_ms != null
        ? `; ${b.first_heatmap_revisit_ms.toFixed(0)} ms (frame ${b.first_heatmap_revisit_frame_ms.toFixed(0)} ms) on a revisit, HTTP cache on, files revalidated (${count('revisit')})`
        : '') +
      (b.first_heatmap_link_ms != null
        ? `; ${b.first_heatmap_link_ms.toFixed(0)} ms (frame ${b.first_heatmap_link_frame_ms.toFixed(0)} ms) on an emulated 10 Mbit/s, 40 ms link, cold (${count('link')})`
        : '') +
      '.',
    '',
  );
  // A reader's own sentence on that link, pasted at the first figure: with the word-vector shards, and
  // with them refused (the page then fetches the whole table).
  if (b.custom?.length) {
    const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
    table(
      ['own sentence on the link', 'drawn after pasting', 'gzip received by then', 'rounds'],
      [true, false].map((shards) => {
        const rows = b.custom.filter((c) => c.shards === shards);
        return [
          shards ? 'first chunk + shards' : 'whole table (shards refused)',
          `${med(rows.map((c) => c.live_ms)).toFixed(0)} ms`,
          `${(med(rows.map((c) => c.received_bytes)) / 1024).toFixed(0)} KiB`,
          rows.length,
        ];
      }),
    );
  }
  table(
    ['keystroke at T', 'recompute + redraw (sync, to layout)', 'to next frame', 'cells drawn', 'page says'],
    b.keystrokes.map((k) => [k.T, `${k.sync_ms.toFixed(1)} ms`, `${k.frame_ms.toFixed(1)} ms`, k.cells, k.message || '']),
  );
}
// The first figure against the browser's floor (bench/first-figure.mjs): cold, interleaved loads.
const ff = runs['first-figure'];
if (ff) {
  table(
    [`first figure, ${ff.navigations} cold loads each, interleaved`, 'median', 'runs'],
    ff.rows.map((r) => [`${r.name} (${r.note})`, `${r.median_ms.toFixed(0)} ms`, r.runs.map((x) => x.toFixed(0)).join(' ')]),
  );
  lines.push(`Page ÷ floor (first contentful paint): ${ff.page_over_floor.toFixed(2)}× (goal ≤ 1.5×).`, '');
}
// Fixed SIMD, relaxed SIMD (fused multiply-adds) and onnxruntime-web through their JS APIs, one process
// each in node and in Chromium, interleaved rounds (bench/relaxed.mjs): medians of the round medians.
for (const where of ['node', 'chromium']) {
  const r = runs[`relaxed-${where}`];
  if (!r) continue;
  const at = (T, name) => {
    const x = r.rows.find((y) => y.T === T && y.name === name);
    return x && { median_ms: x.ms };
  };
  const rat = (key, T) => {
    const x = r.ratios[key]?.find((y) => y.T === T);
    return x ? `${x.ratio.toFixed(2)}× (${x.min.toFixed(2)}–${x.max.toFixed(2)})` : '—';
  };
  const Ts = [...new Set(r.rows.map((x) => x.T))];
  lines.push(
    `JS API, ${r.environment.runtime}, ${r.config.rounds} interleaved rounds: fixed SIMD, relaxed SIMD (FMA) and ORT-wasm (ms per call; ratios with the per-round range).`,
    '',
  );
  table(
    ['T', 'fixed', 'relaxed', 'ORT', 'fixed ÷ relaxed', 'ORT ÷ relaxed', 'ORT ÷ fixed'],
    Ts.map((T) => [
      T,
      ms(at(T, 'fixed')),
      ms(at(T, 'relaxed')),
      ms(at(T, 'ort')),
      rat('fixed/relaxed', T),
      rat('ort/relaxed', T),
      rat('ort/fixed', T),
    ]),
  );
}
const load = flag('--load'),
  seconds = flag('--seconds');
lines.push(
  `Machine: ${runs.native?.eigen_simd ? 'x86-64 with ' + runs.native.eigen_simd : ''}; node ${runs.plain?.node ?? ''}; load average at the end (1/5/15 min, running/total): ${load ?? '?'}; run took ${seconds ?? '?'} s.`,
);
const text = lines.join('\n');
console.log(text);
await writeFile(join(dir, 'table.md'), text + '\n');
await writeFile(
  join(here, 'results.json'),
  JSON.stringify({ generated: new Date().toISOString(), load, seconds: Number(seconds), runs }, null, 1) + '\n',
);
