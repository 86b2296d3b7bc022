"""`python -m explorer real-text {corpus,train,attention}`: the real-text corpus, the four models, their attention."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.progress import SILENT, Printed
from explorer.realtext import corpus, objectives, reading, training


def register(sub: argparse._SubParsersAction) -> list[argparse.ArgumentParser]:
    p = sub.add_parser(
        "real-text",
        help="real-text models: corpus, training, attention on a sentence",
        description="Four equal-size Transformers (decoder, encoder, prefix-LM, encoder-decoder) "
        "trained on a shipped public-domain corpus; their attention on your sentence.",
    )
    actions = p.add_subparsers(dest="action", metavar="action", required=True)
    c = actions.add_parser("corpus", help="build (--save) or describe the shipped corpus excerpt")
    c.add_argument(
        "--save",
        action="store_true",
        help="rebuild data/realtext/corpus_*.txt from the Debian packages bible-kjv and fortunes-zh",
    )
    c.add_argument("--out", type=Path, default=corpus.DATA_DIR)
    c.set_defaults(handler=_corpus)
    t = actions.add_parser("train", help="train one model on the corpus and report its held-out loss")
    t.add_argument("--arch", required=True, choices=training.ARCHS)
    t.add_argument("--steps", type=int, default=None, help="fewer steps than the shipped recipe (a quick check)")
    t.add_argument("--save", action="store_true", help="write the weights, sidecar and tokenizer to --out")
    t.add_argument("--out", type=Path, default=training.SHIPPED_DIR)
    t.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    t.set_defaults(handler=_train)
    a = actions.add_parser("attention", help="a shipped model's attention on a sentence, with its heads' patterns")
    a.add_argument("--text", required=True)
    a.add_argument("--arch", required=True, choices=training.ARCHS)
    a.add_argument("--dir", type=Path, default=training.SHIPPED_DIR, help="where the weights are")
    a.set_defaults(handler=_attention)
    return [p, c, t, a]


def _corpus(args: argparse.Namespace) -> dict:
    built = corpus.build(args.out) if args.save else None
    return {
        "built": built,
        "summary": corpus.summary(args.out),
        "english_books": list(corpus.EN_BOOKS),
        "chinese_files": [str(p) for p in corpus.ZH_FILES],
    }


def _train(args: argparse.Namespace) -> dict:
    recipe = training.Recipe() if args.steps is None else training.quick(training.Recipe(), args.steps)
    tok = training.train_tokenizer()
    shown = SILENT if args.quiet else Printed().part(prefix=f"{args.arch}: ")
    model, record = training.train(args.arch, recipe, shown, objectives.Streams(tok))
    out = {
        k: record[k]
        for k in (
            "arch",
            "steps_done",
            "seconds",
            "held_out_loss",
            "parameters",
            "vocab_size",
            "samples",
            "forward_ms_64_tokens",
        )
    }
    if args.save:
        out["bytes"] = training.save(model, record, tok, args.out)["bytes"]
        out["path"] = str(training.weights_path(args.arch, args.out))
    return out


def _attention(args: argparse.Namespace) -> dict:
    try:
        model, _, tok = training.load(args.arch, args.dir)
    except FileNotFoundError as err:
        raise ValueError(f"{err}: train it with `python -m explorer real-text train --arch {args.arch} --save`")
    return reading.read(model, tok, args.text).as_json()
