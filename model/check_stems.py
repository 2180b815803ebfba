#!/usr/bin/python3
"""Shows that moving the Python side onto the core's stemmer (tinylm.stem_candidates now asks
`attention-tokenize --stems`) changed nothing the committed models depend on: for every token of the
WordNet corpus and every word of /usr/share/dict/words, the stems equal those of the hand-copied Python
stemmer that tinylm.py held before (read from git, commit 24508b0), and the ids of the whole corpus under
data/model.bin's and data/encoder.bin's vocabularies are the same.

  /usr/bin/python3 model/check_stems.py      # prints the counts; exits non-zero on any difference"""
import importlib.util
import pathlib
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

BEFORE = "24508b0"  # the last commit whose tinylm.py carried the Python copy of the stemmer


def old_tinylm():
    source = subprocess.run(["git", "show", f"{BEFORE}:model/tinylm.py"], cwd=tinylm.ROOT, check=True,
                            stdout=subprocess.PIPE).stdout
    path = tinylm.ROOT / "build" / "tinylm_before.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("tinylm_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    old = old_tinylm()
    lines = tinylm.read_corpus()
    words = {t for line in lines for t in line}
    words |= {w.lower() for w in pathlib.Path("/usr/share/dict/words").read_text(encoding="utf-8").split("\n") if w}
    words |= {"you've", "aren't", "won't", "95th", "1987", "non-linear", "well-paid", "replied", "smarter", "bigger"}
    started = time.time()
    tinylm.prefetch_stems(words)
    differ = [w for w in sorted(words) if tinylm.stem_candidates(w) != old.stem_candidates(w)]
    print(f"stems: {len(words)} words (corpus tokens and /usr/share/dict/words), {len(differ)} differ "
          f"({time.time() - started:.1f} s)")
    for w in differ[:10]:
        print("  ", w, tinylm.stem_candidates(w), old.stem_candidates(w))
    failures = len(differ)
    for path in (tinylm.WORDS_DECODER_FILE, tinylm.WORDS_ENCODER_FILE):
        vocab_words = tinylm.read_model(path)["vocab"]
        new_ids = tinylm.Vocabulary(vocab_words).ids_of_lines(lines)
        old_vocab = old.Vocabulary(vocab_words)
        old_ids = [old_vocab.ids(line) for line in lines]
        tokens = sum(len(line) for line in lines)
        same = sum(a == b for new, prev in zip(new_ids, old_ids) for a, b in zip(new, prev))
        print(f"{path.name}: {same} of {tokens} corpus tokens get the same id")
        failures += tokens - same
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
