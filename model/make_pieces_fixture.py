#!/usr/bin/python3
"""Tiny pieces models for the core's tests (issue 24 §3), and their float64 PyTorch reference cases.

  /usr/bin/python3 model/make_pieces_fixture.py   # a few s → tests/reference/pieces_{decoder,encoder}.bin,
                                                  #   pieces_{decoder,encoder}_cases.txt, pieces_effects_cases.txt

The models are not trained: seeded random float weights (d_model 16, 2 layers, 2 heads, d_ff 32, context 32)
written by tinylm.write_model with a small pieces vocabulary: data/pieces.vocab's <unk>, its 256 byte pieces,
its first 400 other pieces (the highest scores: the earliest merges) and its single characters, so words
split into several pieces and rarer characters fall back to bytes. The bare "▁" is left out: its label would
be empty. The decoder is causal with V = pieces; the encoder has [MASK] after the pieces (V = pieces + 1).
Same seed, same bytes.

The cases are make_golden.py's format (its write, top5 and nearest are reused), run through the same
reference code (tinylm.model_from_file, run_with_attention, rollout), with pieces for tokens:
  token <label> known <piece as stored> <id> <word index>      one line per piece
For an encoder blank, `blank` is a word index, and then:
  masked 1 k                      the token positions of that word's pieces, all replaced by [MASK]
  guess <word>                    five lines, the whole-word guesses, best first
  top5_pieces 5 k                 each guess's pieces
  top5_logits 1 5                 each guess's sum of log-probabilities (one per masked position)
  top5_probabilities 1 5          exp of that sum
The guesses are found here by brute force, independently of the core's search: every combination of allowed
pieces (first position: word-start pieces "▁…" with text after the mark; later positions: continuation
pieces; never <unk>, [MASK] or byte pieces) in order of the sum (a heap over the product of the positions'
sorted lists: no pruning), keeping those that are canonical, i.e. SentencePiece itself (python3-sentencepiece,
given the fixture's vocabulary as a model proto written here) encodes the word they spell into exactly those
pieces, until five are kept.

pieces_effects_cases.txt: attn::head_effects on the pieces fixtures, the forward pass with a head switched off
being make_intervention_golden.forward (float64, from the equations), in make_intervention_golden.py's
format with what a pieces blank adds:
  model <decoder|encoder> <bytes> <fnv1a64 of the file, hex>
  case <name>, sentence <text>, blank <word index; -1 for the decoder>, effects <zero|mean|uniform>
  target 1 1                      the target's first piece (the decoder: its top next piece)
  target_pieces 1 k               the target's pieces (the hidden word's own; the decoder: that one piece)
  base 1 3                        probability, rank, 1 if the rank is exact (0: a lower bound)
  heads (layers·heads) × 6        layer, head, probability, rank, drop, exact
A pieces blank's probability is the product of its pieces' probabilities; its rank is 1 + the canonical
candidates (as for the guesses, by the same brute force) whose sum ranks before the word's own, counted up to
RANK_CAP (then RANK_CAP + 1, not exact)."""
import heapq
import pathlib
import struct
import sys

import numpy as np
import torch

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_golden  # noqa: E402
import make_intervention_golden  # noqa: E402  (its float64 forward pass with heads switched off)
import tinylm  # noqa: E402

REFERENCE = tinylm.ROOT / "tests" / "reference"
SEED = 24
D, LAYERS, HEADS, D_FF, CONTEXT = 16, 2, 2, 32, 32
SENTENCES = {
    "train_station": "the train left the station on time",
    "harbour": "we'd better leave before the storm reaches the harbour",
    "bytes": "the café served crème brûlée",  # characters outside the small vocabulary: byte pieces
}
# (name, sentence, word to blank or -1 for a plain run)
ENCODER_CASES = [
    ("train_station_run", SENTENCES["train_station"], -1),
    ("station", SENTENCES["train_station"], 4),  # several pieces
    ("the", SENTENCES["train_station"], 0),  # one piece
    ("harbour", SENTENCES["harbour"], 8),
    ("bytes", SENTENCES["bytes"], 3),  # crème: byte pieces hidden, whole words guessed
]
# head_effects cases: (model, name, sentence, blank word or -1, mode)
# The random fixture ranks a real hidden word of several pieces far down (past RANK_CAP); a word it guesses
# itself for the same blank ("neood" is its 2nd for station's two pieces, "negggl" its 4th for harbour's five:
# the masked input is the same) gives exact ranks that move when a head is switched off.
EFFECTS_CASES = [
    ("decoder", "next_zero", SENTENCES["train_station"], -1, "zero"),
    ("encoder", "neood_zero", "the train left the neood on time", 4, "zero"),
    ("encoder", "neood_mean", "the train left the neood on time", 4, "mean"),
    ("encoder", "negggl_uniform", "we'd better leave before the storm reaches the negggl", 8, "uniform"),
    ("encoder", "station_zero", SENTENCES["train_station"], 4, "zero"),  # past the cap
    ("encoder", "bytes_zero", SENTENCES["bytes"], 3, "zero"),  # crème: its byte pieces are never a guess
]
RANK_CAP = 200  # attn::kWordRankCap


def small_vocabulary():
    lines = (tinylm.ROOT / "data" / "pieces.vocab").read_text(encoding="utf-8").split("\n")
    header, entries = lines[0], [l for l in lines[1:] if l]
    special = entries[:257]  # <unk>, <0x00> … <0xFF>
    assert special[0].startswith("<unk>\t") and special[256].startswith("<0xFF>\t")
    normal = [e for e in entries[257:] if e.split("\t")[0] != "▁"]
    kept = normal[:400] + [e for e in normal[400:] if len(e.split("\t")[0]) == 1]
    return "\n".join([header] + special + kept) + "\n"


def random_model(pieces_text, causal):
    """Seeded random weights, large enough that attention is peaked and guesses are well apart."""
    g = torch.Generator().manual_seed(SEED + (0 if causal else 1))
    pieces = tinylm.pieces_in_text(pieces_text)
    vocab = pieces + ([] if causal else [tinylm.MASK])

    def normal(*shape, std):
        return torch.randn(*shape, generator=g, dtype=torch.float64).float() * std

    embedding = normal(len(vocab), D, std=0.5)
    emb_scale, emb_q = tinylm.quantise_rows(embedding)
    layers = []
    for _ in range(LAYERS):
        t = {}
        for name, shape in tinylm.layer_shapes(D, D_FF).items():
            if name.startswith("norm"):
                t[name] = (1.0 if name.endswith("gamma") else 0.0) + normal(*shape, std=0.2)
            elif name in ("W_Q", "W_K"):
                t[name] = normal(*shape, std=1.5 / D ** 0.5)
            elif name.startswith("W"):
                t[name] = normal(*shape, std=1.0 / shape[0] ** 0.5)
            else:
                t[name] = normal(*shape, std=0.1)
        layers.append(t)
    return {"vocab": vocab, "pieces_text": pieces_text, "d_model": D, "layers": LAYERS, "heads": HEADS, "d_ff": D_FF,
            "context": CONTEXT, "eps": 1e-5, "embedding_scale": D ** 0.5, "emb_scale": emb_scale, "emb_q": emb_q,
            "layer_tensors": layers, "final_gamma": 1.0 + normal(D, std=0.2), "final_beta": normal(D, std=0.1),
            "captions": [], "causal": causal, "mask_id": 0 if causal else len(pieces)}


def label(piece, byte_or_unk):
    """PieceVocabulary::label: "▁sta" → "sta", "tion" → "##tion", byte pieces and <unk> as stored."""
    if byte_or_unk:
        return piece
    return piece[1:] if piece.startswith("▁") else "##" + piece


def sentencepiece_of(text):
    """SentencePiece's own BPE encoder for a pieces vocabulary's text: the model proto written by hand (no
    protobuf module here), BPE with byte fallback and identity normalisation, as data/build_pieces.py trains."""
    import sentencepiece as spm

    def varint(n):
        n %= 1 << 64
        out = b""
        while n >= 0x80:
            out, n = out + bytes([n & 0x7F | 0x80]), n >> 7
        return out + bytes([n])

    def field(number, value):  # int → varint, float → fixed32, bytes → length-delimited
        if isinstance(value, float):
            return varint(number << 3 | 5) + struct.pack("<f", value)
        if isinstance(value, int):
            return varint(number << 3) + varint(value)
        return varint(number << 3 | 2) + varint(len(value)) + value

    proto = b""
    for line in text.split("\n")[1:]:
        if not line:
            continue
        piece, score = line.split("\t")
        kind = 2 if piece == "<unk>" else 6 if is_byte_piece(piece) else 1  # UNKNOWN, BYTE, NORMAL
        proto += field(1, field(1, piece.encode("utf-8")) + field(2, float(score)) + field(3, kind))
    trainer = field(3, 2) + field(35, 1) + field(40, 0) + field(41, -1) + field(42, -1) + field(43, -1)  # BPE, bytes
    normalizer = field(1, b"identity") + field(3, 1) + field(4, 0) + field(5, 1)  # dummy prefix, "▁" for spaces
    return spm.SentencePieceProcessor(model_proto=proto + field(2, trainer) + field(3, normalizer))


def is_byte_piece(piece):
    return piece.startswith("<0x") and len(piece) == 6


def allowed_lists(log_probabilities, positions, vocab, mask_id):
    """Each masked position's allowed pieces, best first (equal log-probabilities: lower id first)."""
    def allowed(i, piece_id):
        piece = vocab[piece_id]
        if piece_id == 0 or piece_id == mask_id or is_byte_piece(piece):
            return False
        return piece.startswith("▁") and len(piece) > 1 if i == 0 else not piece.startswith("▁")

    lists = []
    for i, t in enumerate(positions):
        lp = log_probabilities[t].tolist()
        ids = sorted((v for v in range(len(vocab)) if allowed(i, v)), key=lambda v: (-lp[v], v))
        lists.append([(v, lp[v]) for v in ids])
    return lists


def canonical_candidates(lists, vocab, sp):
    """Every combination of the lists' pieces in ranking order (higher sum first, then lower ids), by a heap
    over index vectors (each successor raises one index at or after the last one raised, so each vector is
    met once), yielding (pieces, sum) for those SentencePiece would write for the word they spell."""
    k = len(lists)

    def entry(index, last):
        pieces = [lists[i][j][0] for i, j in enumerate(index)]
        return (-sum(lists[i][j][1] for i, j in enumerate(index)), pieces, index, last)

    heap = [entry((0,) * k, 0)]
    while heap:
        negative, pieces, index, last = heapq.heappop(heap)
        for m in range(last, k):
            if index[m] + 1 < len(lists[m]):
                heapq.heappush(heap, entry(index[:m] + (index[m] + 1,) + index[m + 1:], m))
        if sp.encode("".join(vocab[i] for i in pieces)[1:]) == pieces:
            yield pieces, -negative


def whole_word_guesses(log_probabilities, positions, vocab, mask_id, sp):
    """The five best canonical whole words for the masked positions, by brute force (canonical_candidates)."""
    found = []
    for guess in canonical_candidates(allowed_lists(log_probabilities, positions, vocab, mask_id), vocab, sp):
        found.append(guess)
        if len(found) == 5:
            break
    return found


def run_case(lines, model, m, vocab_file, sp, name, sentence, blank=None):
    (words,) = tinylm.pieces_of_lines([sentence], vocab_file)
    ids = [i for word in words for i in word]
    word_of = [w for w, word in enumerate(words) for _ in word]
    assert 1 <= len(ids) <= m["context"], (name, len(ids))
    vocab, mask_id = m["vocab"], m["mask_id"]
    is_byte = [p.startswith("<0x") and len(p) == 6 for p in vocab]
    tokens = [(label(vocab[i], i == 0 or is_byte[i]), vocab[i], i, w) for i, w in zip(ids, word_of)]
    masked = [t for t, w in enumerate(word_of) if w == blank] if blank is not None and blank >= 0 else []
    run_ids = [mask_id if t in masked else i for t, i in enumerate(ids)]
    print(f"{name}: {len(words)} words, {len(ids)} pieces: {' '.join(t[0] for t in tokens)}" +
          (f"; blank word {blank}, pieces {masked}" if masked else ""))
    x0, weights, outputs, final = tinylm.run_with_attention(model, torch.tensor([run_ids]))
    lines += [f"case {name}", f"sentence {sentence}"]
    if blank is not None:
        lines.append(f"blank {blank}")
    lines += [f"token {text} known {piece} {i} {w}" for text, piece, i, w in tokens]
    make_golden.write(lines, "input", x0[0])
    for l, (w, out) in enumerate(zip(weights, outputs)):
        for h in range(w.shape[1]):
            make_golden.write(lines, f"L{l}.H{h}.weights", w[0, h])
        make_golden.write(lines, f"L{l}.output", out[0])
    make_golden.write(lines, "final_norm", final[0])
    make_golden.write(lines, "rollout", tinylm.rollout([w[0] for w in weights]))
    for what, stream in [("input", x0[0])] + [(f"L{l}", out[0]) for l, out in enumerate(outputs)]:
        nearest_ids, similarities = make_golden.nearest(model, m, stream, run_ids)
        make_golden.write(lines, f"nearest.{what}.ids", nearest_ids.double())
        make_golden.write(lines, f"nearest.{what}.similarities", similarities)
    if blank == -1:
        return
    if blank is None:  # the decoder's next piece after the last one
        logits = final[0, -1] @ model.embedding.weight.T
        ids5, logits5, probabilities5 = make_golden.top5(logits, 0, vocab)
        make_golden.write(lines, "top5_ids", ids5.double())
        make_golden.write(lines, "top5_logits", logits5)
        make_golden.write(lines, "top5_probabilities", probabilities5)
        print("  next: " + ", ".join(f"{vocab[i]} {p:.3f}" for i, p in zip(ids5.tolist(), probabilities5.tolist())))
        gap = (logits5[:-1] - logits5[1:]).min().item()
    else:
        log_probabilities = torch.log_softmax(final[0] @ model.embedding.weight.T, dim=1)
        guesses = whole_word_guesses(log_probabilities, masked, vocab, mask_id, sp)
        make_golden.write(lines, "masked", torch.tensor([masked], dtype=torch.float64))
        decoded = ["".join(vocab[i] for i in pieces)[1:] for pieces, _ in guesses]
        lines += [f"guess {word}" for word in decoded]
        make_golden.write(lines, "top5_pieces", torch.tensor([p for p, _ in guesses], dtype=torch.float64))
        sums = torch.tensor([s for _, s in guesses], dtype=torch.float64)
        make_golden.write(lines, "top5_logits", sums)
        make_golden.write(lines, "top5_probabilities", sums.exp())
        print("  guesses: " + ", ".join(f"{w} {s.exp():.4f}" for w, s in zip(decoded, sums)))
        gap = (sums[:-1] - sums[1:]).min().item()
    print(f"  smallest gap between the top-5 scores: {gap:.2e}")
    assert gap > 1e-3, "too close for float32: change the seed"


def word_odds(log_probabilities, masked, target, vocab, mask_id, sp):
    """A pieces blank's target under one run: the product of its pieces' probabilities, its rank among the
    canonical candidates (1 + those ranking before it, counted up to RANK_CAP) and whether that is exact."""
    score = sum(log_probabilities[t, p].item() for t, p in zip(masked, target))
    before = 0
    for pieces, total in canonical_candidates(allowed_lists(log_probabilities, masked, vocab, mask_id), vocab, sp):
        if not (total > score or (total == score and pieces < target)):
            break
        before += 1
        if before > RANK_CAP:
            return float(torch.tensor(score).exp()), RANK_CAP + 1, 0
    return float(torch.tensor(score).exp()), before + 1, 1


def write_effects(lines, m, vocab_file, sp, name, sentence, blank, mode):
    """One head_effects case: the target with nothing switched off, then with each head switched off in turn."""
    w = make_intervention_golden.Weights(m)
    vocab, mask_id = m["vocab"], m["mask_id"]
    (words,) = tinylm.pieces_of_lines([sentence], vocab_file)
    ids = [i for word in words for i in word]
    if m["causal"]:
        at = len(ids) - 1
        _, _, plain = make_intervention_golden.forward(w, ids)
        target = [make_golden.top5(plain[at] @ w.E.T, 0, vocab)[0][0].item()]

        def odds(final):
            return make_intervention_golden.odds(w, final, at, target[0]) + (1,)
    else:
        word_of = [x for x, word in enumerate(words) for _ in word]
        masked = [t for t, x in enumerate(word_of) if x == blank]
        target = [ids[t] for t in masked]
        ids = [mask_id if t in masked else i for t, i in enumerate(ids)]

        def odds(final):
            return word_odds(torch.log_softmax(final @ w.E.T, dim=1), masked, target, vocab, mask_id, sp)

    base = odds(make_intervention_golden.forward(w, ids)[2])
    rows = []
    for l in range(len(w.layers)):
        for h in range(w.H):
            p, rank, exact = odds(make_intervention_golden.forward(w, ids, [(l, h)], mode)[2])
            rows.append([l, h, p, rank, base[0] - p, exact])
    lines += [f"case {name}", f"sentence {sentence}", f"blank {blank}", f"effects {mode}"]
    make_golden.write(lines, "target", torch.tensor([[float(target[0])]]))
    make_golden.write(lines, "target_pieces", torch.tensor([target], dtype=torch.float64))
    make_golden.write(lines, "base", torch.tensor([base], dtype=torch.float64))
    make_golden.write(lines, "heads", torch.tensor(rows, dtype=torch.float64))
    word = "".join(vocab[i] for i in target)
    print(f"  effects {name} ({mode}) on '{word}': p {base[0]:.3g}, rank {base[1]}{'' if base[2] else '+'}; ranks "
          + " ".join(f"{r[3]}{'' if r[5] else '+'}" for r in rows))


def main():
    torch.set_default_dtype(torch.float64)
    vocab_file = REFERENCE / "pieces_fixture.vocab"
    text = small_vocabulary()
    vocab_file.write_text(text, encoding="utf-8")
    sp = sentencepiece_of(text)
    effects = []
    for causal, kind in ((True, "decoder"), (False, "encoder")):
        path = REFERENCE / f"pieces_{kind}.bin"
        size = tinylm.write_model(path, random_model(text, causal))
        m = tinylm.read_model(path)
        assert m["pieces_text"] == text and m["causal"] == causal
        model = tinylm.model_from_file(m, torch.float64)
        data = path.read_bytes()
        lines = [f"model {len(data)} {make_golden.fnv1a64(data):016x}"]
        print(f"-- {path.name}: {size} bytes, V = {len(m['vocab'])}")
        cases = [(n, s, None) for n, s in SENTENCES.items()] if causal else ENCODER_CASES
        for name, sentence, blank in cases:
            run_case(lines, model, m, vocab_file, sp, name, sentence, blank)
        out = REFERENCE / f"pieces_{kind}_cases.txt"
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {out} ({out.stat().st_size} bytes)")
        effects.append(f"model {kind} {len(data)} {make_golden.fnv1a64(data):016x}")
        for model_kind, name, sentence, blank, mode in EFFECTS_CASES:
            if model_kind == kind:
                write_effects(effects, m, vocab_file, sp, name, sentence, blank, mode)
    out = REFERENCE / "pieces_effects_cases.txt"
    out.write_text("\n".join(effects) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
