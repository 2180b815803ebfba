"""What model/train.py, export.py, make_golden.py and head_stats.py share: the tokenised WordNet corpus and
its train/validation split, the word vocabulary with the core's stemming fallback, the torch model, and
the reader/writer of data/model.bin (format in model/README.md).

Runs with Debian's python3-torch (/usr/bin/python3). Nothing here is needed by CI."""
import math
import os
import pathlib
import struct
import subprocess
import sys
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "vectors"  # shared with data/build_vectors.sh: the same corpus file
CORPUS = WORK / "corpus.txt"
MODEL_FILE = ROOT / "data" / "model.bin"
ENCODER_FILE = ROOT / "data" / "encoder.bin"
# The words models the page shipped before the pieces models: now the engine's word-vocabulary test fixtures.
WORDS_DECODER_FILE = ROOT / "tests" / "reference" / "words_decoder.bin"
WORDS_ENCODER_FILE = ROOT / "tests" / "reference" / "words_encoder.bin"
UNK = "<unk>"
MASK = "[MASK]"  # the encoder's blank: the last vocabulary entry; the tokenizer can never produce it
VALIDATION_EVERY = 20  # corpus line i is held out when i % 20 == 19

# ---- corpus ------------------------------------------------------------------------------------------


def ensure_corpus(wordnet_dir="/usr/share/wordnet"):
    """build/vectors/corpus.txt, made the way data/build_vectors.sh makes it if it is missing."""
    if CORPUS.exists():
        return CORPUS
    sys.path.insert(0, str(ROOT / "data"))
    import build_vectors  # the corpus extraction of the word vectors, not a copy of it

    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cmake", "-S", ".", "-B", "build/native", "-DCMAKE_BUILD_TYPE=Release"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", "build/native", "--target", "attention-tokenize", "-j2"], cwd=ROOT, check=True)
    raw = WORK / "wordnet.txt"
    build_vectors.corpus(wordnet_dir, str(raw))
    with open(raw, "rb") as src, open(CORPUS, "wb") as dst:
        subprocess.run([str(ROOT / "build" / "native" / "attention-tokenize")], stdin=src, stdout=dst, check=True)
    return CORPUS


def read_corpus():
    """Every corpus line as a list of tokens (attn::tokenize's output, space-separated)."""
    with open(ensure_corpus(), encoding="utf-8") as f:
        return [line.split() for line in f.read().split("\n")[:-1]]


def split_corpus(lines):
    """(train, validation): every 20th line is held out, the rest trains."""
    train = [l for i, l in enumerate(lines) if i % VALIDATION_EVERY != VALIDATION_EVERY - 1]
    validation = [l for i, l in enumerate(lines) if i % VALIDATION_EVERY == VALIDATION_EVERY - 1]
    return train, validation


def chunks(tokens, context):
    """A line longer than the context is cut into consecutive pieces; each piece starts at position 0,
    like the reader's sentence on the page. Pieces of one token have nothing to predict and are dropped."""
    return [tokens[s:s + context] for s in range(0, len(tokens), context) if len(tokens) - s >= 2]


# ---- vocabulary ----------------------------------------------------------------------------------------


TOKENIZE = ROOT / "build" / "native" / "attention-tokenize"
_stems = {}  # word -> its stems, as the core gave them
_stemmer = None  # one `attention-tokenize --stems` process, kept open for words asked one at a time


def _tool():
    """build/native/attention-tokenize, built if missing (the core's tokenizer, stemmer and piece encoder)."""
    if not TOKENIZE.exists():
        subprocess.run(["cmake", "-S", ".", "-B", "build/native", "-DCMAKE_BUILD_TYPE=Release"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", "build/native", "--target", "attention-tokenize", "-j2"], cwd=ROOT,
                       check=True)
    return str(TOKENIZE)


def _encode(word):
    return word.encode("utf-8", errors="surrogateescape")


def _decode(raw):
    return raw.decode("utf-8", errors="surrogateescape")


def prefetch_stems(words):
    """Asks the core for the stems of many words in one run (a corpus's unknown tokens), for stem_candidates."""
    todo = sorted({w for w in words if w not in _stems})
    if not todo:
        return
    assert all("\n" not in w for w in todo)
    out = subprocess.run([_tool(), "--stems"], input=b"".join(_encode(w) + b"\n" for w in todo),
                         stdout=subprocess.PIPE, check=True).stdout.split(b"\n")[:-1]
    assert len(out) == len(todo)
    for w, line in zip(todo, out):
        _stems[w] = [_decode(t) for t in line.split(b" ") if t]


def stem_candidates(word):
    """attn::stem_candidates, from the core itself (attention-tokenize --stems): the stems a word the
    vocabulary lacks is tried with, in order ("stations" -> "station", "you've" -> "you", "replied" ->
    "reply", "95" -> "90", "non-linear" -> "linear"). Not a copy of the C++ rules: one implementation."""
    global _stemmer
    if word not in _stems:
        if _stemmer is None:
            _stemmer = subprocess.Popen([_tool(), "--stems"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _stemmer.stdin.write(_encode(word) + b"\n")
        _stemmer.stdin.flush()
        _stems[word] = [_decode(t) for t in _stemmer.stdout.readline().rstrip(b"\n").split(b" ") if t]
    return _stems[word]


def pieces_of_lines(lines, vocab_file=ROOT / "data" / "pieces.vocab"):
    """Each line's words as lists of piece ids (attn::PieceVocabulary::encode through attention-tokenize
    --pieces): the same pieces the core gives the reader's sentence."""
    data = b"".join(_encode(l.replace("\n", " ")) + b"\n" for l in lines)
    out = subprocess.run([_tool(), "--pieces", str(vocab_file)], input=data, stdout=subprocess.PIPE,
                         check=True).stdout.split(b"\n")[:-1]
    assert len(out) == len(lines)
    return [[[int(i) for i in word.split(b",")] for word in line.split(b" ") if word] for line in out]


class Vocabulary:
    def __init__(self, words):
        self.words = list(words)
        self.index = {w: i for i, w in enumerate(self.words)}
        assert self.words[0] == UNK and len(self.index) == len(self.words)

    @staticmethod
    def from_counts(train_lines, size, mask=False):
        """<unk> (id 0), then the `size` most frequent training tokens (ties broken alphabetically), then,
        for the encoder, [MASK] (id size + 1)."""
        counts = Counter(t for line in train_lines for t in line)
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return Vocabulary([UNK] + [w for w, _ in ranked[:size]] + ([MASK] if mask else []))

    def lookup(self, token):
        """(id, 'known' | 'stemmed' | 'unknown', matched word) exactly as the C++ core decides it."""
        if token in self.index:
            return self.index[token], "known", token
        for stem in stem_candidates(token):
            if stem in self.index:
                return self.index[stem], "stemmed", stem
        return 0, "unknown", ""

    def ids(self, tokens):
        return [self.lookup(t)[0] for t in tokens]

    def ids_of_lines(self, lines):
        """ids() of many lines, with the stems of all their unknown tokens asked of the core in one run."""
        prefetch_stems(t for line in lines for t in line if t not in self.index)
        return [[self.lookup(t)[0] for t in line] for line in lines]

    def __len__(self):
        return len(self.words)


# ---- the model -----------------------------------------------------------------------------------------


def sinusoidal_positions(T, d):
    """attn::sinusoidal_positions: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)."""
    import torch
    pe = torch.zeros(T, d, dtype=torch.float64)
    for pos in range(T):
        for k in range(d):
            angle = pos / math.pow(10000.0, (k - k % 2) / d)
            pe[pos, k] = math.sin(angle) if k % 2 == 0 else math.cos(angle)
    return pe


def make_model(vocab_size, d_model, heads, d_ff, layers, context, dropout, causal=True):
    """The decoder (causal=True, model.bin) or the bidirectional encoder (causal=False, encoder.bin): the
    same layers, only the attention mask differs."""
    import torch
    from torch import nn

    class TinyLM(nn.Module):
        """x = √d·E[ids] + PE; pre-norm encoder layers (causal for the decoder); logits = LN_f(x)·Eᵀ (tied)."""

        def __init__(self):
            super().__init__()
            self.d_model, self.heads, self.d_ff, self.context = d_model, heads, d_ff, context
            self.is_causal = causal
            self.embedding = nn.Embedding(vocab_size, d_model)
            # With the √d scale below, rows of E of norm ~1 give inputs as large as the positions.
            nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)
            self.register_buffer("positions", sinusoidal_positions(context, d_model).float(), persistent=False)
            self.layers = nn.ModuleList(
                nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout=dropout, activation="gelu",
                                           batch_first=True, norm_first=True) for _ in range(layers))
            self.final_norm = nn.LayerNorm(d_model)
            upper = torch.triu(torch.full((context, context), float("-inf")), diagonal=1)
            self.register_buffer("causal", upper, persistent=False)

        def hidden(self, ids, segments=None, positions=None):  # ids: B × T → LN_f(x): B × T × d
            """segments, positions (B × T, for sequences packed from several lines, model/train.py --pack):
            each token's line (-1: padding) and its position in that line; a token then attends only to
            the tokens of its own line up to itself (and padding to itself alone)."""
            T = ids.shape[1]
            dtype = self.embedding.weight.dtype
            if positions is None:
                x = self.embedding(ids) * math.sqrt(self.d_model) + self.positions[:T].to(dtype)
            else:
                x = self.embedding(ids) * math.sqrt(self.d_model) + self.positions[positions].to(dtype)
            # The encoder's batches hold sequences of one length (train.py), so it needs no mask.
            mask = self.causal[:T, :T].to(x.dtype) if self.is_causal else None
            if segments is not None:
                allowed = (segments[:, :, None] == segments[:, None, :]) & (segments[:, :, None] >= 0)
                if self.is_causal:
                    allowed &= torch.ones(T, T, dtype=torch.bool).tril()
                allowed |= torch.eye(T, dtype=torch.bool)
                mask = torch.zeros(allowed.shape, dtype=x.dtype).masked_fill(~allowed, float("-inf"))
                mask = mask.repeat_interleave(self.heads, dim=0)  # (B · heads) × T × T, as attention wants it
            for layer in self.layers:
                x = layer(x, src_mask=mask)
            return self.final_norm(x)

        def logits(self, h):  # tied head
            return h @ self.embedding.weight.T

    return TinyLM()


# ---- training (train.py, train_encoder.py) ----------------------------------------------------------------
def log_to(path):
    """A log function that prints each line and writes it to `path` as it goes."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "w", encoding="utf-8")

    def log(*parts):
        line = " ".join(str(p) for p in parts)
        print(line, flush=True)
        handle.write(line + "\n")
        handle.flush()
    return log


def tied_logits(model, h):
    """logits = h·Eᵀ. Written as a 1×1 convolution only for speed: Debian's torch links the reference
    BLAS, and its oneDNN convolution computes the same product ~4× faster (check_tied_logits)."""
    import torch.nn.functional as F
    return F.conv1d(h.T.unsqueeze(0), model.embedding.weight.unsqueeze(2)).squeeze(0).T


def check_tied_logits(model, d_model):
    """The convolution gives h·Eᵀ (checked once at start-up, on random h)."""
    import torch
    with torch.no_grad():
        h = torch.randn(100, d_model)
        assert torch.allclose(tied_logits(model, h), h @ model.embedding.weight.T, atol=1e-5)


def adamw(model, lr):
    """AdamW; no weight decay on biases, LayerNorm parameters or the embedding (rare words would shrink)."""
    import torch
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and "embedding" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.dim() == 2 and "embedding" not in n)]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.98))


# ---- data/model.bin and data/encoder.bin ---------------------------------------------------------------
MAGIC, VERSION = b"ATTNLM", 1
VERSION_2 = 2  # adds the mask token's id to the header and the flags below
FLAG_CAUSAL, FLAG_GELU, FLAG_SINUSOIDAL = 1, 2, 4
FLAG_INT8 = 8  # version 2: the layers' weight matrices are int8 with a float32 scale per output unit
FLAG_PIECES = 32  # version 2: the words block is a pieces vocabulary's text (data/pieces.vocab), V = its pieces
                  # (+ [MASK] for an encoder, id = the pieces count)
# magic, version, V, d_model, layers, heads, d_ff, context, flags, words_bytes, eps, embedding scale
HEADER = struct.Struct("<6sH8I2f")
# Version 2: the same, then mask_id (0: none) after words_bytes.
HEADER_2 = struct.Struct("<6sH9I2f")
# One layer's tensors, in file order, in the core's row convention (W is d_in × d_out).
LAYER_TENSORS = ("norm1_gamma", "norm1_beta", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O",
                 "norm2_gamma", "norm2_beta", "W1", "b1", "W2", "b2")
MATRICES = ("W_Q", "W_K", "W_V", "W_O", "W1", "W2")  # int8 under FLAG_INT8; the vectors stay float16


def layer_shapes(d, d_ff):
    return {"norm1_gamma": (d,), "norm1_beta": (d,), "W_Q": (d, d), "b_Q": (d,), "W_K": (d, d), "b_K": (d,),
            "W_V": (d, d), "b_V": (d,), "W_O": (d, d), "b_O": (d,), "norm2_gamma": (d,), "norm2_beta": (d,),
            "W1": (d, d_ff), "b1": (d_ff,), "W2": (d_ff, d), "b2": (d,)}


def torch_layer_tensors(layer):
    """The float tensors of one nn.TransformerEncoderLayer under the file's names (transposed to d_in × d_out)."""
    a = layer.self_attn
    d = a.embed_dim
    W, b = a.in_proj_weight.detach(), a.in_proj_bias.detach()
    out = {"norm1_gamma": layer.norm1.weight, "norm1_beta": layer.norm1.bias,
           "W_Q": W[:d].T, "b_Q": b[:d], "W_K": W[d:2 * d].T, "b_K": b[d:2 * d], "W_V": W[2 * d:].T, "b_V": b[2 * d:],
           "W_O": a.out_proj.weight.T, "b_O": a.out_proj.bias,
           "norm2_gamma": layer.norm2.weight, "norm2_beta": layer.norm2.bias,
           "W1": layer.linear1.weight.T, "b1": layer.linear1.bias, "W2": layer.linear2.weight.T, "b2": layer.linear2.bias}
    return {k: v.detach().float().contiguous() for k, v in out.items()}


def quantise_rows(table):
    """Symmetric int8 per row: scale = max|x| / 127 (a float32), q = round(x / scale) in [-127, 127]."""
    import torch
    peak = table.abs().amax(dim=1).float()
    scale = (peak / 127.0).float()
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.clamp(torch.round(table.float() / safe[:, None]), -127, 127).to(torch.int8)
    return scale, q


def quantise_columns(matrix):
    """A d_in × d_out weight matrix as int8 with one float32 scale per output unit (per column here, per
    row of torch's weight): scale = max|column| / 127, q = round(x / scale) in [-127, 127]."""
    import torch
    scale, q = quantise_rows(torch.as_tensor(matrix).T)
    return scale, q.T.contiguous()


def write_model(path, m):
    """m: dict with vocab (list of words), d_model, layers, heads, d_ff, context, eps, embedding_scale,
    emb_scale (V float32), emb_q (V × d int8), layer_tensors (list of dicts of float tensors),
    final_gamma, final_beta, captions (list of strings, empty or layers × heads); for the encoder also
    causal = False and mask_id, and int8 = True to store the layers' matrices as int8. A pieces model also
    has pieces_text (the text of data/pieces.vocab, scores included); its vocab is then that file's pieces,
    plus [MASK] (mask_id = the pieces count) for an encoder. A causal words model with float16 layers is
    written as version 1 (data/model.bin), anything else as version 2."""
    import numpy as np
    V, d, d_ff = len(m["vocab"]), m["d_model"], m["d_ff"]
    causal, int8, mask_id = m.get("causal", True), m.get("int8", False), m.get("mask_id", 0)
    pieces_text = m.get("pieces_text")
    if pieces_text is None:
        words = b"".join(bytes([len(w.encode("utf-8"))]) + w.encode("utf-8") for w in m["vocab"])
        assert all(0 < len(w.encode("utf-8")) < 256 for w in m["vocab"])
    else:
        pieces = pieces_in_text(pieces_text)
        assert m["vocab"] == pieces + ([] if causal else [MASK]), "vocab must be the text's pieces (+ [MASK])"
        assert causal or mask_id == len(pieces), "a pieces encoder's [MASK] comes right after its pieces"
        words = pieces_text.encode("utf-8")
    assert causal == (mask_id == 0), "an encoder has a mask token, a decoder none"
    flags = (FLAG_CAUSAL if causal else 0) | FLAG_GELU | FLAG_SINUSOIDAL | (FLAG_INT8 if int8 else 0) | \
        (FLAG_PIECES if pieces_text is not None else 0)
    if causal and not int8 and pieces_text is None:
        out = bytearray(HEADER.pack(MAGIC, VERSION, V, d, m["layers"], m["heads"], d_ff, m["context"], flags,
                                    len(words), m["eps"], m["embedding_scale"]))
    else:
        assert m["vocab"][mask_id] == MASK or causal
        out = bytearray(HEADER_2.pack(MAGIC, VERSION_2, V, d, m["layers"], m["heads"], d_ff, m["context"], flags,
                                      len(words), mask_id, m["eps"], m["embedding_scale"]))
    out += words
    out += np.asarray(m["emb_scale"], dtype="<f4").tobytes()
    out += np.asarray(m["emb_q"], dtype=np.int8).tobytes()
    shapes = layer_shapes(d, d_ff)
    for tensors in m["layer_tensors"]:
        for name in LAYER_TENSORS:
            if int8 and name in MATRICES:
                scale, q = quantise_columns(tensors[name])
                assert tuple(q.shape) == shapes[name], (name, q.shape)
                out += np.asarray(scale, dtype="<f4").tobytes() + np.asarray(q, dtype=np.int8).tobytes()
                continue
            t = np.asarray(tensors[name], dtype="<f2")
            assert t.shape == shapes[name], (name, t.shape)
            assert np.isfinite(t).all(), name
            out += t.tobytes()
    out += np.asarray(m["final_gamma"], dtype="<f2").tobytes() + np.asarray(m["final_beta"], dtype="<f2").tobytes()
    captions = m.get("captions", [])
    assert len(captions) in (0, m["layers"] * m["heads"])
    out += encode_captions(captions)
    tmp = str(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, path)
    return len(out)


def pieces_in_text(text):
    """The pieces of a pieces vocabulary's text (data/pieces.vocab: a header line, then piece TAB score)."""
    lines = text.split("\n")
    assert lines[0] == "attention-pieces 1 bpe", lines[0]
    return [l.split("\t")[0] for l in lines[1:] if l]


def read_model(path=MODEL_FILE):
    """A model file (data/model.bin or data/encoder.bin) de-quantised to float32 numpy arrays exactly as
    the C++ core computes them (scale × int8 in float32; float16 → float32 is exact)."""
    import numpy as np
    data = pathlib.Path(path).read_bytes()
    if struct.unpack_from("<H", data, 6)[0] == VERSION_2:
        magic, version, V, d, L, H, d_ff, context, flags, words_bytes, mask_id, eps, emb_scale = \
            HEADER_2.unpack_from(data, 0)
        pos = HEADER_2.size
    else:
        magic, version, V, d, L, H, d_ff, context, flags, words_bytes, eps, emb_scale = HEADER.unpack_from(data, 0)
        mask_id, pos = 0, HEADER.size
    assert magic == MAGIC and version in (VERSION, VERSION_2), (magic, version)
    words, end, pieces_text = [], pos + words_bytes, None
    if flags & FLAG_PIECES:
        pieces_text = data[pos:end].decode("utf-8")
        words = pieces_in_text(pieces_text) + ([] if flags & FLAG_CAUSAL else [MASK])
        pos = end
    while pos < end:
        n = data[pos]
        words.append(data[pos + 1:pos + 1 + n].decode("utf-8"))
        pos += 1 + n

    def take(count, dtype, size):
        nonlocal pos
        a = np.frombuffer(data, dtype=dtype, count=count, offset=pos)
        pos += count * size
        return a

    scale = take(V, "<f4", 4).astype(np.float32)
    q = take(V * d, np.int8, 1).reshape(V, d)
    embedding = (scale[:, None] * q.astype(np.float32)).astype(np.float32)
    shapes = layer_shapes(d, d_ff)
    layers = []
    for _ in range(L):
        tensors = {}
        for name in LAYER_TENSORS:
            n = int(np.prod(shapes[name]))
            if flags & FLAG_INT8 and name in MATRICES:  # value (r, c) = scale[c] × q(r, c), in float32
                column_scale = take(shapes[name][1], "<f4", 4).astype(np.float32)
                values = take(n, np.int8, 1).reshape(shapes[name]).astype(np.float32)
                tensors[name] = (values * column_scale[None, :]).astype(np.float32)
            else:
                tensors[name] = take(n, "<f2", 2).astype(np.float32).reshape(shapes[name])
        layers.append(tensors)
    final_gamma = take(d, "<f2", 2).astype(np.float32)
    final_beta = take(d, "<f2", 2).astype(np.float32)
    captions_offset = pos
    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    captions = []
    for _ in range(count):
        (n,) = struct.unpack_from("<H", data, pos)
        captions.append(data[pos + 2:pos + 2 + n].decode("utf-8"))
        pos += 2 + n
    assert pos == len(data), (pos, len(data))
    return {"vocab": words, "d_model": d, "layers": L, "heads": H, "d_ff": d_ff, "context": context, "flags": flags,
            "causal": bool(flags & FLAG_CAUSAL), "mask_id": mask_id, "int8": bool(flags & FLAG_INT8), "eps": eps, "embedding_scale": emb_scale, "emb_scale": scale, "emb_q": q, "embedding": embedding,
            "layer_tensors": layers, "final_gamma": final_gamma, "final_beta": final_beta, "captions": captions,
            "captions_offset": captions_offset, "size": len(data),
            **({"pieces_text": pieces_text} if pieces_text is not None else {})}


def encode_captions(captions):
    out = struct.pack("<I", len(captions))
    for c in captions:
        b = c.encode("utf-8")
        assert len(b) < 65536
        out += struct.pack("<H", len(b)) + b
    return out


def replace_captions(path, captions):
    """Rewrites only the captions section of a model file; every weight byte stays as it was."""
    m = read_model(path)
    assert len(captions) == m["layers"] * m["heads"]
    data = pathlib.Path(path).read_bytes()[:m["captions_offset"]] + encode_captions(captions)
    tmp = str(path) + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return len(data)


def model_from_file(m, dtype):
    """A TinyLM holding the file's de-quantised weights (dropout 0, eval mode) in float32 or float64."""
    import torch
    model = make_model(len(m["vocab"]), m["d_model"], m["heads"], m["d_ff"], m["layers"], m["context"], 0.0,
                       causal=m["causal"])
    d = m["d_model"]
    with torch.no_grad():
        model.embedding.weight.copy_(torch.from_numpy(m["embedding"]))
        for layer, t in zip(model.layers, m["layer_tensors"]):
            T = {k: torch.from_numpy(v.copy()) for k, v in t.items()}
            layer.self_attn.in_proj_weight.copy_(torch.cat([T["W_Q"].T, T["W_K"].T, T["W_V"].T], 0))
            layer.self_attn.in_proj_bias.copy_(torch.cat([T["b_Q"], T["b_K"], T["b_V"]]))
            layer.self_attn.out_proj.weight.copy_(T["W_O"].T)
            layer.self_attn.out_proj.bias.copy_(T["b_O"])
            layer.linear1.weight.copy_(T["W1"].T)
            layer.linear1.bias.copy_(T["b1"])
            layer.linear2.weight.copy_(T["W2"].T)
            layer.linear2.bias.copy_(T["b2"])
            for n, norm in (("norm1", layer.norm1), ("norm2", layer.norm2)):
                norm.weight.copy_(T[n + "_gamma"])
                norm.bias.copy_(T[n + "_beta"])
                norm.eps = m["eps"]
        model.final_norm.weight.copy_(torch.from_numpy(m["final_gamma"].copy()))
        model.final_norm.bias.copy_(torch.from_numpy(m["final_beta"].copy()))
        model.final_norm.eps = m["eps"]
    assert d == model.d_model
    return model.to(dtype).eval()


def run_with_attention(model, ids):
    """The forward pass of TinyLM.hidden, keeping what the golden cases and the head statistics need.
    ids: B × T. Returns the input x₀ (B × T × d), per layer the heads' weights (B × H × T × T) and the
    layer's output (B × T × d), and LN_f of the last output."""
    import torch
    with torch.no_grad():
        T = ids.shape[1]
        dtype = model.embedding.weight.dtype
        x = model.embedding(ids) * math.sqrt(model.d_model) + sinusoidal_positions(T, model.d_model).to(dtype)
        mask = torch.triu(torch.full((T, T), float("-inf"), dtype=dtype), diagonal=1) if model.is_causal else None
        inputs, weights, outputs = x, [], []
        for layer in model.layers:
            attention_input = layer.norm1(x)  # pre-norm: the attention sees LN1(x)
            _, w = layer.self_attn(attention_input, attention_input, attention_input, attn_mask=mask,
                                   need_weights=True, average_attn_weights=False)
            weights.append(w)
            x = layer(x, src_mask=mask)
            outputs.append(x)
        return inputs, weights, outputs, model.final_norm(x)


def rollout(layer_weights):
    """Attention rollout (Abnar & Zuidema 2020) of one sequence: layer_weights[l] is H × T × T."""
    import torch
    result = None
    for w in layer_weights:
        T = w.shape[-1]
        mixed = 0.5 * w.mean(dim=0) + 0.5 * torch.eye(T, dtype=w.dtype)
        mixed = mixed / mixed.sum(dim=1, keepdim=True)
        result = mixed if result is None else mixed @ result
    return result
