"""SignPosterboard / SignBoard symbols: presets drawn by our code, special codes and colours, as
SignPosterboard.cs reads them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agentkit.envs.animalai_common.signboards import (
    DEFAULT_SYMBOL_COLOR,
    PRESETS,
    board_scale,
    parse_special_code,
    pixel_quads,
    preset_mask,
    symbol_image,
)


@pytest.mark.parametrize("name", PRESETS[1:])
def test_every_preset_is_a_distinct_visible_shape(name):
    mask = preset_mask(name)
    assert 0.05 < mask.mean() < 0.7
    others = [preset_mask(other) for other in PRESETS[1:] if other != name]
    assert all((mask != other).mean() > 0.03 for other in others)


def test_arrows_point_where_they_say():
    def head_side(mask):
        """Where the arrow is widest across its axis: (right minus left, top minus bottom)."""
        half = mask.shape[0] // 2
        across_columns, across_rows = mask.sum(axis=0), mask.sum(axis=1)
        return (
            across_columns[half:].max() - across_columns[:half].max(),
            across_rows[:half].max() - across_rows[half:].max(),
        )

    assert head_side(preset_mask("right-arrow"))[0] > 0 > head_side(preset_mask("left-arrow"))[0]
    assert head_side(preset_mask("up-arrow"))[1] > 0 > head_side(preset_mask("down-arrow"))[1]
    assert not preset_mask("default").any()


def test_special_codes_are_read_row_by_row_from_the_top():
    rng = random.Random(0)
    assert parse_special_code("01/10", rng).tolist() == [[0, 1], [1, 0]]
    assert parse_special_code("111/110/001", rng).tolist() == [[1, 1, 1], [1, 1, 0], [0, 0, 1]]
    mixed = parse_special_code("0101/**10/0010/0***", rng)
    assert mixed.shape == (4, 4) and mixed[0].tolist() == [0, 1, 0, 1] and mixed[2].tolist() == [0, 0, 1, 0]
    random_grid = parse_special_code("13x11", rng)
    assert random_grid.shape == (11, 13) and 0.2 < random_grid.mean() < 0.8
    for bad in ("01/1", "012/101", "0101", "1x2x3", "ax3"):
        assert parse_special_code(bad, rng) is None


def test_colours_the_file_gives_or_the_prefabs_override_and_unset_boards():
    special = symbol_image("01/10", (255, 0, 0))
    assert special.size == (2, 2)
    assert special.pixels[0, 1, :3].tolist() == [255, 0, 0] and special.pixels[0, 0, :3].tolist() == [0, 0, 0]
    preset = symbol_image("circle", None)
    colours = set(pixel_quads(preset))
    assert colours == {DEFAULT_SYMBOL_COLOR, (0, 0, 0)}  # the prefab's purple-blue, with a black outline
    unset = symbol_image(None, (0, 255, 0), "3.1.3")  # no symbolNames: the saved white right arrow
    assert (255, 255, 255) in pixel_quads(unset) and (0, 255, 0) not in pixel_quads(unset)
    assert not symbol_image(None, None, "4.1.0").visible()
    assert not symbol_image("no-such-symbol", (1, 2, 3)).visible()  # unknown names show the empty default
    assert not symbol_image("01/1", (1, 2, 3)).visible()  # an invalid code too


def test_pixel_runs_cover_the_visible_pixels_once():
    image = symbol_image("star", (10, 200, 30))
    covered = np.zeros(image.pixels.shape[:2], dtype=int)
    for runs in pixel_quads(image).values():
        for row, col, length in runs:
            covered[row, col : col + length] += 1
    assert (covered == (image.pixels[..., 3] > 0)).all()


def test_board_scale():
    assert board_scale(None, "3.1.3") == (1.0, 1.0, 1.0)
    assert board_scale((-1, -1, -1), "3.1.3") == (1.0, 1.0, 1.0)
    assert board_scale((0.1, 2, 9), "3.1.3") == (0.5, 2, 2.5)
    assert board_scale((2, 2, 2), "4.1.0") == (1.0, 1.0, 1.0)  # SignBoard.prefab: sizeMin = sizeMax = 1
