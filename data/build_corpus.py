#!/usr/bin/python3
"""The wider training text of issue 24 §4: WordNet's glosses (build/vectors/corpus.txt, as the committed
models saw them) plus the definitions and quotations of GCIDE (Debian's dict-gcide, GPL-2+, see
data/GCIDE-LICENSE), cleaned to plain English lines and tokenised by the core's own tokenizer
(build/native/attention-tokenize).

  /usr/bin/python3 data/build_corpus.py          # → build/corpus/{train,heldout}.txt and sizes on stdout

Split (deterministic, never random): a WordNet line keeps the committed models' rule (line i is held out
when i % 20 == 19, so today's models are scored on the lines they never saw); a GCIDE line is held out when
the first byte of sha256(tokenised line) % 20 == 19, so a line quoted under several headwords always lands
on the same side. GCIDE lines are de-duplicated, and one that equals a WordNet line is dropped (GCIDE
quotes WordNet 1.5 for many entries; those paragraphs, tagged [WordNet …], are skipped whole).
Debian's fortune databases are never read.

Output files hold one line per definition or quotation, tokens separated by single spaces (attn::tokenize:
ASCII lower-cased, punctuation split off)."""
import gzip
import hashlib
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "corpus"
GCIDE = pathlib.Path("/usr/share/dictd/gcide.dict.dz")
TOKENIZE = ROOT / "build" / "native" / "attention-tokenize"
VALIDATION_EVERY = 20
MIN_TOKENS = 3  # shorter lines ("Same as Rhomb.") teach little and would skew the held-out cases

# GCIDE's dict format spells letters it cannot type in ASCII inside brackets: antenn[ae], r[o^]m, ["i].
LIGATURE = re.compile(r"\[(ae|oe|AE|OE)\]")
ACCENT = re.compile(r"\[(?:[\"^`'~=,.]([A-Za-z])|([A-Za-z])[\"^`'~=,.])\]")
CITATION = re.compile(r"\s*--\s*[A-Z][^.;]{0,60}\.(?:\s*[ivxlcdmIVXLCDM0-9]+\.(?:\s*[0-9]+\.?)?)?")
# What may stand between a headword's pronunciation and its definition: parts of speech, plural forms,
# domain labels ("(Geom.)"), "imp. & p. p." and the like.
LEADING_LABELS = re.compile(
    r"^(?:\s|[,;.&]|\([^)]*\)|\{[^}]*\}|\b(?:n|a|v|t|i|adv|prep|conj|interj|pron|imp|p|pr|pl|sing|superl|"
    r"compar|vb|obs|archaic|adj|pp|inf|fem|masc)\b\.?)*")


def unmark(text):
    """GCIDE markup to plain text: accents and ligatures to letters, every other [...] (etymologies,
    usage tags like [Obs.], source tags like [1913 Webster]) removed, {cross references} kept as words,
    citations (--Milton., --Acts xvii. 27.) dropped."""
    text = LIGATURE.sub(lambda m: m.group(1), text)
    text = ACCENT.sub(lambda m: m.group(1) or m.group(2), text)
    out, depth = [], 0
    for c in text:  # brackets nest across lines in etymologies: drop everything inside them
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    text = "".join(out).replace("{", "").replace("}", "").replace('"', "").replace("`", "")
    text = CITATION.sub("", text)
    return " ".join(text.split())


def paragraphs(lines):
    block = []
    for line in lines:
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


# GCIDE writes "?" for a letter it could not transcribe (Greek etymologies, "discour?ges"): such lines go.
UNTRANSCRIBED = re.compile(r"\w\?\w|\?\?")


def gcide_lines(path=GCIDE):
    """Plain lines of GCIDE: 'headword definition' for each sense, and each quotation on its own line."""
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    headword = None
    for block in paragraphs(lines):
        raw = "\n".join(block)
        if "[WordNet" in raw or "[PJC]" in raw or raw.startswith("00-database"):
            continue
        first = block[0]
        if not first.startswith(" "):  # an entry's first paragraph: "Head \Pro*nun"ci*a`tion\, n. [etym.] ..."
            head, sep, rest = first.partition(" \\")
            if not sep:
                headword = None
                continue
            headword = unmark(head)
            rest = rest.partition("\\")[2] + " " + " ".join(b.strip() for b in block[1:])
            rest = re.sub(r"\\[^\\]*\\", " ", rest)  # further headwords' pronunciations
            text = re.sub(r"^(?:\d+\.|\([a-z]\))\s*", "", LEADING_LABELS.sub("", unmark(rest)))
            if text:
                yield headword + " " + text
            continue
        indent = len(first) - len(first.lstrip())
        body = " ".join(b.strip() for b in block)
        if body.startswith(("Syn:", "Syn.", "See ")):  # lists of synonyms and bare cross references
            continue
        text = unmark(body)
        if indent >= 8:  # a quotation from literature
            yield text
        else:
            text = re.sub(r"^(?:\d+\.|\([a-z]\))\s*", "", text)  # "1. " or "(a) " sense numbers
            text = re.sub(r"^Note:\s*", "", text)
            text = LEADING_LABELS.sub("", text) if re.match(r"^\(", text) else text
            if text and headword:
                yield headword + " " + text


def tokenize(lines):
    """attn::tokenize through the core's CLI, one output line per input line."""
    if not TOKENIZE.exists():
        subprocess.run(["cmake", "--build", str(ROOT / "build" / "native"), "--target", "attention-tokenize"],
                       check=True)
    data = "".join(l.replace("\n", " ") + "\n" for l in lines).encode("utf-8")
    out = subprocess.run([str(TOKENIZE)], input=data, stdout=subprocess.PIPE, check=True).stdout
    result = out.decode("utf-8", errors="surrogateescape").split("\n")[:-1]
    assert len(result) == len(lines)
    return result


def held_out(line):
    return hashlib.sha256(line.encode("utf-8", errors="surrogateescape")).digest()[0] % VALIDATION_EVERY == \
        VALIDATION_EVERY - 1


def build():
    sys.path.insert(0, str(ROOT / "model"))
    import tinylm  # the WordNet corpus exactly as the committed models read it

    wordnet = [" ".join(tokens) for tokens in tinylm.read_corpus()]
    wn_train = [l for i, l in enumerate(wordnet) if i % VALIDATION_EVERY != VALIDATION_EVERY - 1]
    wn_held = [l for i, l in enumerate(wordnet) if i % VALIDATION_EVERY == VALIDATION_EVERY - 1]
    raw = list(gcide_lines())
    seen = set(wordnet)
    gc_train, gc_held = [], []
    raw = [l for l in raw if not UNTRANSCRIBED.search(l)]
    for line in tokenize(raw):
        if len(line.split()) < MIN_TOKENS or line in seen:
            continue
        seen.add(line)
        (gc_held if held_out(line) else gc_train).append(line)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, lines in (("train", wn_train + gc_train), ("heldout", wn_held + gc_held)):
        (OUT / f"{name}.txt").write_text("".join(l + "\n" for l in lines), encoding="utf-8",
                                         errors="surrogateescape")
    # Which source each line came from, for per-source scores: W lines of WordNet first, then GCIDE.
    (OUT / "sources.txt").write_text(f"train wordnet {len(wn_train)} gcide {len(gc_train)}\n"
                                     f"heldout wordnet {len(wn_held)} gcide {len(gc_held)}\n")

    def tokens(lines):
        return sum(len(l.split()) for l in lines)

    print(f"GCIDE: {len(raw)} raw lines -> {len(gc_train) + len(gc_held)} kept (≥ {MIN_TOKENS} tokens, unique, "
          f"not in WordNet)")
    for name, a, b in (("train", wn_train, gc_train), ("heldout", wn_held, gc_held)):
        print(f"{name}: WordNet {len(a)} lines {tokens(a)} tokens + GCIDE {len(b)} lines {tokens(b)} tokens = "
              f"{len(a) + len(b)} lines {tokens(a) + tokens(b)} tokens")


if __name__ == "__main__":
    build()
