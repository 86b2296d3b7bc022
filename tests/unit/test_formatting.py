"""Seed lists and counted nouns read the same in English as always, and in Chinese under a Chinese page."""

from explorer import formatting, i18n


def test_seed_lists_and_counts_follow_the_language():
    assert [formatting.seed_list(s) for s in ([0], [2, 0, 1], [0, 2, 5])] == ["seed 0", "seeds 0-2", "seeds 0, 2, 5"]
    assert [formatting.plural(k, w) for k, w in ((1, "model"), (6, "model"), (2, "paired seed"), (3, "step"))] == [
        "1 model",
        "6 models",
        "2 paired seeds",
        "3 steps",
    ]
    assert formatting.colon() == ": "
    with i18n.using("zh"):
        assert [formatting.seed_list(s) for s in ([0], [2, 0, 1], [0, 2, 5])] == [
            "随机种子 0",
            "随机种子 0-2",
            "随机种子 0、2、5",
        ]
        assert [formatting.plural(k, w) for k, w in ((1, "model"), (1_200, "run"), (2, "thread"))] == [
            "1 个模型",
            "1,200 次运行",
            "2 个线程",
        ]
        assert formatting.colon() == "："
