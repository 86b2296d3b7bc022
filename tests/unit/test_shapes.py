import pytest

from explorer.shapes import ShapeError, check, conforms


def test_the_message_names_where_the_value_differs():
    shape = {"runs": [{"seed": int, "loss": float}]}
    with pytest.raises(ShapeError, match=r"record\.runs\[1\]\.loss: expected a number, found str"):
        check({"runs": [{"seed": 0, "loss": 1.5}, {"seed": 1, "loss": "low"}]}, shape)
    with pytest.raises(ShapeError, match="the key 'seed' is missing"):
        check({"runs": [{"loss": 1.0}]}, shape)


@pytest.mark.parametrize(
    "value, shape, ok",
    [
        (1, float, True),
        (1.5, int, False),
        (True, int, False),
        (True, float, False),
        (True, bool, True),
        (float("nan"), float, False),
        (float("-inf"), float, False),
        (None, (None, int), True),
        ("x", (None, int), False),
        ([[1.0, 2]], [[float]], True),
        ([1] * 11, [int], False),
        ({"a": 1}, [int], False),
    ],
)
def test_numbers_lists_alternatives_and_the_bound_on_lists(value, shape, ok):
    assert conforms(value, shape, max_items=10) is ok
